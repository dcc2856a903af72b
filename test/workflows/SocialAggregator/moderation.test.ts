/**
 * Feed moderation through the Social Aggregator node: every setting sent under the service's
 * name and type (PATCH /feeds/{id}), read back from Feed › Get in the service's record shape,
 * Create's follow-up PATCH (and its undo when the service refuses), input checks before any
 * request, and the 422 for a plan without AI moderation.
 */
import { SEEDED } from '../../fake-service';
import { recordSleeps, useFakeService } from '../support';
import { feed, NODE, runNode, sent } from './helpers';

const fake = useFakeService();
recordSleeps();

const F = SEEDED.feeds;

/** Every setting as the panel stores it: words as text, the sentiment filter as a multi-select, switches. */
const EVERY_SETTING = {
	queue: true,
	allowedWords: 'acme, launch',
	blockedWords: 'spam, giveaway, scam',
	profanityFilter: true,
	preventDuplicates: true,
	deduplicationStrategy: 'distribute_across_sources',
	aiModeration: true,
	aiHarmfulContentFilter: true,
	aiModerationRules: 'Hide posts that mention competitors.\nKeep product reviews.',
	aiSentimentFilter: ['negative', 'neutral'],
};

/** The same, as the service's PATCH body takes them. */
const SENT = {
	queue: true,
	allowed: 'acme,launch',
	disallowed: 'spam,giveaway,scam',
	profanity: true,
	prevent_duplicates: true,
	deduplication_strategy: 'distribute_across_sources',
	ai_moderation: true,
	ai_harmful_content_filter: true,
	ai_moderation_rules: 'Hide posts that mention competitors.\nKeep product reviews.',
	ai_sentiment_filter: ['negative', 'neutral'],
};

/** The same, as the service's feed record answers them. */
const READ_BACK = {
	enabled: true,
	allowed: 'acme,launch',
	disallowed: 'spam,giveaway,scam',
	profanity_filter: true,
	prevent_duplicates: true,
	deduplication_strategy: 'distribute_across_sources',
	ai_moderation_available: true,
	ai_moderation: true,
	ai_harmful_content_filter: true,
	ai_moderation_rules: 'Hide posts that mention competitors.\nKeep product reviews.',
	ai_sentiment_filter: ['negative', 'neutral'],
};

async function moderationOf(feedId: number, apiKey?: string) {
	const run = await runNode(fake, { resource: 'feed', operation: 'get', feedId: feed(feedId) }, { apiKey });
	expect(run.error).toBeUndefined();
	return run.items[0].json.moderation;
}

describe('Feed › Update', () => {
	test('sends every moderation setting under its service name and type; Feed › Get reads each back', async () => {
		const run = await runNode(fake, {
			resource: 'feed',
			operation: 'update',
			feedId: feed(F.productLaunch),
			updateFields: { name: 'Launch (moderated)', ...EVERY_SETTING },
		});
		expect(run.error).toBeUndefined();
		expect(run.requests.map(sent)).toEqual([
			{ method: 'PATCH', path: `/feeds/${F.productLaunch}`, query: {}, body: { name: 'Launch (moderated)', ...SENT } },
		]);
		expect(run.items.map((i) => [i.pairedItem, i.json.moderation])).toEqual([[{ item: 0 }, READ_BACK]]);
		expect(await moderationOf(F.productLaunch)).toEqual(READ_BACK);

		const list = await runNode(fake, { resource: 'feed', operation: 'getAll', returnAll: true });
		expect(list.items.find((i) => i.json.id === F.productLaunch)?.json.moderation).toEqual(READ_BACK);
	});

	test.each(Object.keys(EVERY_SETTING))('%s alone is sent alone, under its own name', async (name) => {
		const value = EVERY_SETTING[name as keyof typeof EVERY_SETTING];
		const run = await runNode(fake, {
			resource: 'feed',
			operation: 'update',
			feedId: feed(F.reviews),
			updateFields: { [name]: value },
		});
		expect(run.error).toBeUndefined();
		const [body] = run.requests.map((r) => r.body as Record<string, unknown>);
		expect(Object.keys(body)).toHaveLength(1);
		const [property] = Object.keys(body);
		expect(body[property]).toEqual(SENT[property as keyof typeof SENT]);
		const answerName = { queue: 'enabled', profanity: 'profanity_filter' }[property] ?? property;
		expect((await moderationOf(F.reviews)) as Record<string, unknown>).toMatchObject({
			[answerName]: READ_BACK[answerName as keyof typeof READ_BACK],
		});
	});

	test('values from expressions: a list of words, sentiments as text, switches as "true"/"false"', async () => {
		const run = await runNode(
			fake,
			{
				resource: 'feed',
				operation: 'update',
				feedId: feed(F.reviews),
				updateFields: {
					blockedWords: '={{ $json.words }}',
					aiSentimentFilter: '={{ $json.sentiments }}',
					profanityFilter: '={{ $json.profanity }}',
					queue: '={{ $json.queue }}',
				},
			},
			{ items: [{ words: ['spam', ' scam ', 'spam', ''], sentiments: 'negative, Neutral', profanity: 'true', queue: false }] },
		);
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => r.body)).toEqual([
			{ queue: false, disallowed: 'spam,scam', profanity: true, ai_sentiment_filter: ['negative', 'neutral'] },
		]);
	});

	test('empty words, rules and sentiments clear them, switches turn off', async () => {
		await runNode(fake, { resource: 'feed', operation: 'update', feedId: feed(F.reviews), updateFields: EVERY_SETTING });
		const run = await runNode(fake, {
			resource: 'feed',
			operation: 'update',
			feedId: feed(F.reviews),
			updateFields: { allowedWords: '', blockedWords: ' , ', aiModerationRules: '', aiSentimentFilter: [], queue: false },
		});
		expect(run.requests.map((r) => r.body)).toEqual([
			{ queue: false, allowed: '', disallowed: '', ai_moderation_rules: '', ai_sentiment_filter: [] },
		]);
		expect(await moderationOf(F.reviews)).toEqual({
			...READ_BACK,
			enabled: false,
			allowed: '',
			disallowed: '',
			ai_moderation_rules: '',
			ai_sentiment_filter: [],
		});
	});

	test('wrong values are refused before any request, naming the field and the item', async () => {
		const cases: Array<[string, unknown, unknown, string]> = [
			['queue', true, 'maybe', 'Invalid Hold New Posts for Approval (item 1): must be true or false, not "maybe"'],
			[
				'aiSentimentFilter',
				['negative'],
				['negative', 'angry'],
				'Invalid AI Sentiment Filter (item 1): must be a list of "positive", "neutral", "negative", not "angry"',
			],
			[
				'deduplicationStrategy',
				'prioritize_top_source',
				'newest',
				'Invalid Deduplication Strategy (item 1): must be one of "prioritize_top_source", "distribute_across_sources", not "newest"',
			],
			['allowedWords', 'fine', { a: 1 }, 'Invalid Allowed Words (item 1): must be words separated by commas, not {"a":1}'],
			['aiModerationRules', 'Be kind', 42, 'Invalid AI Moderation Rules (item 1): must be text, not 42'],
		];
		for (const [field, good, bad, message] of cases) {
			const run = await runNode(
				fake,
				{ resource: 'feed', operation: 'update', feedId: feed(F.reviews), updateFields: { [field]: '={{ $json.v }}' } },
				{ items: [{ v: good }, { v: bad }], onError: 'continueRegularOutput' },
			);
			expect(run.items.map((i) => [i.pairedItem, i.json.error ?? i.json.id])).toEqual([
				[{ item: 0 }, F.reviews],
				[{ item: 1 }, message],
			]);
			expect(run.requests).toHaveLength(1);
		}
	});

	test('a plan without AI moderation: 422 naming the plan, with the upgrade link and the code; nothing changed', async () => {
		const key = fake.control.keys.proOwner;
		const before = await moderationOf(F.busy, key);
		const run = await runNode(
			fake,
			{ resource: 'feed', operation: 'update', feedId: feed(F.busy), updateFields: { aiModeration: true, queue: true } },
			{ apiKey: key },
		);
		expect(run.requests.map((r) => [r.method, r.path, r.status, r.body])).toEqual([
			['PATCH', `/feeds/${F.busy}`, 422, { queue: true, ai_moderation: true }],
		]);
		expect(run.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '422',
			message: 'AI moderation is not available on your Pro plan. Upgrade to Team to turn it on.',
		});
		expect(run.error?.description).toMatch(
			new RegExp(`^Upgrade to the Team plan: ${fake.control.origin}/web/upgrade\\?plan=team&token=\\w+$`, 'm'),
		);
		expect(run.error?.description).toContain('Error code: ai_moderation_not_available');
		expect(await moderationOf(F.busy, key)).toEqual(before);
	});
});

describe('Feed › Create', () => {
	test('creates the feed, then sets every moderation setting with a PATCH of it; Feed › Get reads them back', async () => {
		const run = await runNode(fake, {
			resource: 'feed',
			operation: 'create',
			name: 'Moderated wall',
			additionalFields: { syncInterval: 60, ...EVERY_SETTING },
		});
		expect(run.error).toBeUndefined();
		const id = run.items[0].json.id as number;
		expect(run.requests.map(sent)).toEqual([
			{ method: 'POST', path: '/feeds', query: {}, body: { name: 'Moderated wall', sync_interval: 60 } },
			{ method: 'PATCH', path: `/feeds/${id}`, query: {}, body: SENT },
		]);
		expect(run.items).toHaveLength(1);
		expect(run.items[0].pairedItem).toEqual({ item: 0 });
		expect(run.items[0].json).toMatchObject({ id, name: 'Moderated wall', sync_interval: 60, moderation: READ_BACK });
		expect(await moderationOf(id)).toEqual(READ_BACK);
	});

	test('without moderation settings, only the POST', async () => {
		const run = await runNode(fake, { resource: 'feed', operation: 'create', name: 'Plain', additionalFields: { syncInterval: 5 } });
		expect(run.requests.map((r) => r.method)).toEqual(['POST']);
	});

	test('wrong settings are refused before the feed is created', async () => {
		const run = await runNode(fake, {
			resource: 'feed',
			operation: 'create',
			name: 'Never made',
			additionalFields: { aiSentimentFilter: 'happy', queue: 'sometimes' },
		});
		expect(run.error?.message).toBe('Invalid Hold New Posts for Approval (item 0): must be true or false, not "sometimes"');
		expect(run.error?.description).toContain('Also: Invalid AI Sentiment Filter (item 0)');
		expect(run.requests).toEqual([]);
	});

	test('a plan without AI moderation: the new feed is deleted again, and the error names the plan and the link', async () => {
		const key = fake.control.keys.proOwner;
		const feedsBefore = (await runNode(fake, { resource: 'feed', operation: 'getAll', returnAll: true }, { apiKey: key })).items;
		const run = await runNode(
			fake,
			{ resource: 'feed', operation: 'create', name: 'AI wall', additionalFields: { aiModeration: true } },
			{ apiKey: key },
		);
		const id = Number(/\/feeds\/(\d+)/.exec(run.requests[1]?.path ?? '')?.[1]);
		expect(run.requests.map((r) => [r.method, r.path, r.status])).toEqual([
			['POST', '/feeds', 201],
			['PATCH', `/feeds/${id}`, 422],
			['DELETE', `/feeds/${id}`, 204],
		]);
		expect(run.error).toMatchObject({
			httpCode: '422',
			message:
				'The feed was not created, because setting its moderation failed: AI moderation is not available on your Pro plan. Upgrade to Team to turn it on.',
		});
		expect(run.error?.description).toMatch(/^Create made the feed, then the moderation settings failed, so the feed was deleted again/);
		expect(run.error?.description).toMatch(/^Upgrade to the Team plan: http:\/\/127\.0\.0\.1:\d+\/web\/upgrade\?plan=team&token=\w+$/m);
		expect(run.error?.description).toContain('Error code: ai_moderation_not_available');
		const feedsAfter = (await runNode(fake, { resource: 'feed', operation: 'getAll', returnAll: true }, { apiKey: key })).items;
		expect(feedsAfter.map((i) => i.json.id)).toEqual(feedsBefore.map((i) => i.json.id));
	});

	test('with Continue On Fail the refusal is an error item with the upgrade link, paired with its input', async () => {
		const run = await runNode(
			fake,
			{ resource: 'feed', operation: 'create', name: '={{ $json.name }}', additionalFields: { aiModeration: '={{ $json.ai }}' } },
			{ items: [{ name: 'No AI', ai: false }, { name: 'AI', ai: true }], apiKey: fake.control.keys.proOwner, onError: 'continueRegularOutput' },
		);
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(run.items[0].json).toMatchObject({ name: 'No AI', moderation: { ai_moderation: false } });
		expect(run.items[1].json).toMatchObject({
			error: expect.stringMatching(/^The feed was not created/),
			details: { code: 'ai_moderation_not_available', httpCode: '422', link: expect.stringContaining('/web/upgrade?plan=team') },
		});
	});

	test('other legal answers: a PATCH without a body outputs the created feed; an ID given as text is used', async () => {
		fake.control.answers.add({ method: 'PATCH', path: '/feeds/:id', body: null });
		const run = await runNode(fake, { resource: 'feed', operation: 'create', name: 'Quiet', additionalFields: { queue: true } });
		expect(run.error).toBeUndefined();
		const id = run.items[0].json.id as number;
		expect(run.requests.map((r) => [r.method, r.path])).toEqual([
			['POST', '/feeds'],
			['PATCH', `/feeds/${id}`],
		]);
		expect(run.items[0].json).toMatchObject({ name: 'Quiet', moderation: { enabled: false } });
		expect(await moderationOf(id)).toMatchObject({ enabled: true });

		const next = id + 1;
		fake.control.answers.add({ method: 'POST', path: '/feeds', body: { data: { id: String(next), name: 'Texted' } } });
		const texted = await runNode(fake, { resource: 'feed', operation: 'create', name: 'Texted', additionalFields: { queue: true } });
		expect(texted.error).toBeUndefined();
		expect(texted.requests.map((r) => [r.method, r.path, r.status])).toEqual([
			['POST', '/feeds', 201],
			['PATCH', `/feeds/${next}`, 200],
		]);
	});

	test('a created feed answered without an ID: no PATCH, and the error says the feed exists without its settings', async () => {
		fake.control.answers.add({ method: 'POST', path: '/feeds', body: { data: { name: 'Nameless' } } });
		const run = await runNode(fake, { resource: 'feed', operation: 'create', name: 'Nameless', additionalFields: { queue: true } });
		expect(run.requests.map((r) => r.method)).toEqual(['POST']);
		expect(run.error?.message).toBe(
			'The feed "Nameless" was created, but its moderation settings were not set: the service\'s answer has no feed ID',
		);
		expect(run.error?.description).toMatch(/Feed › Get Many .* Feed › Update; running Create again would make a second feed/);
	});

	test('when deleting the new feed fails too, the error names the feed that is left', async () => {
		fake.control.injectFault({ kind: 'error', status: 500, method: 'PATCH', path: '/feeds/:id' });
		fake.control.injectFault({ kind: 'error', status: 503, method: 'DELETE', path: '/feeds/:id', count: 'always' });
		const run = await runNode(fake, { resource: 'feed', operation: 'create', name: 'Left over', additionalFields: { queue: true } });
		const id = run.requests[0] && Number(/\/feeds\/(\d+)/.exec(run.requests[1].path)?.[1]);
		expect(run.requests[0]).toMatchObject({ method: 'POST', status: 201 });
		expect(run.requests[1]).toMatchObject({ method: 'PATCH', status: 500 });
		expect(run.requests.slice(2).every((r) => r.method === 'DELETE' && r.status === 503)).toBe(true);
		expect(run.error?.message).toMatch(new RegExp(`^Feed ${id} was created, but its moderation settings were not set: `));
		expect(run.error?.description).toMatch(new RegExp(`^Deleting the feed again failed too .*Feed › Update on feed ${id}`));
		fake.control.faults.clear();
		expect(await moderationOf(id)).toMatchObject({ enabled: false });
	});
});

test('the node panel offers the settings in both collections, in alphabetical order', async () => {
	const { SocialAggregator } = await import('../../../nodes/SocialAggregator/SocialAggregator.node');
	const properties = new SocialAggregator().description.properties;
	for (const name of ['additionalFields', 'updateFields']) {
		const fields = properties.find((p) => p.name === name && p.displayOptions?.show?.resource?.includes('feed'))!.options as Array<{
			displayName: string;
			name: string;
			type: string;
		}>;
		const names = fields.map((f) => f.displayName);
		expect([name, names]).toEqual([name, [...names].sort((a, b) => a.localeCompare(b))]);
		const byName = Object.fromEntries(fields.map((f) => [f.name, f.type]));
		expect(byName).toMatchObject({
			queue: 'boolean',
			allowedWords: 'string',
			blockedWords: 'string',
			profanityFilter: 'boolean',
			preventDuplicates: 'boolean',
			deduplicationStrategy: 'options',
			aiModeration: 'boolean',
			aiHarmfulContentFilter: 'boolean',
			aiModerationRules: 'string',
			aiSentimentFilter: 'multiOptions',
		});
	}
	expect(NODE).toBe('Social Aggregator');
});
