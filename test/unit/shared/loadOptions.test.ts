import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { getFeeds, webhookEventKinds } from '../../../nodes/shared/loadOptions';
import { scriptedContext, type Answer } from '../support/context';

const ok = (body: unknown): Answer => ({ statusCode: 200, body });

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

test('getFeeds offers the account’s feeds by name and ID', async () => {
	// A key of its own: what this process counted of a key's budget is never another test's.
	const { context: scripted, requests } = scriptedContext([ok({ data: [{ id: 3, name: 'Wall' }, { id: 4, name: '' }] })], 'sag_live_loadoptionsfeeds0001');
	const context = scripted as unknown as ILoadOptionsFunctions;
	expect(await getFeeds.call(context)).toEqual([
		{ name: 'Wall (3)', value: '3' },
		{ name: 'Feed 4', value: '4' },
	]);
	expect(requests[0].url).toBe('http://127.0.0.1:9/v1/feeds');
});
