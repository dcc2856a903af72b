import { webhookEventKinds } from '../../../nodes/shared/loadOptions';

describe('webhookEventKinds: the event kinds of GET /webhook_events, in every legal shape', () => {
	it('reads names and objects by name or event, in data or not, each once, with their descriptions', () => {
		const kinds = [{ name: 'post.created', value: 'post.created', description: 'New posts' }, { name: 'feed.synced', value: 'feed.synced' }];
		const entries = [{ event: 'post.created', description: 'New posts' }, 'feed.synced', { name: 'post.created' }];
		expect(webhookEventKinds(entries)).toEqual(kinds);
		expect(webhookEventKinds({ data: entries })).toEqual(kinds);
		expect(webhookEventKinds({ data: { webhook_events: entries } })).toEqual(kinds);
	});

	it('tells an empty list (no kinds) from an answer that holds no list (none read)', () => {
		expect(webhookEventKinds({ data: [] })).toEqual([]);
		for (const answer of [undefined, {}, { data: 'post.created' }, 'post.created']) expect(webhookEventKinds(answer)).toBeUndefined();
	});
});
