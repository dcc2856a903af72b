/**
 * The webhook, source and post pickers (resource locators): their list searches as the editor
 * calls them, and each mode's value, as well as the plain text a saved workflow holds, reaching
 * the request after the same checks as before.
 */
import type { ILoadOptionsFunctions, INodeListSearchResult, INodeParameters } from 'n8n-workflow';

import { SEEDED } from '../../fake-service';
import { SocialAggregator } from '../../../nodes/SocialAggregator/SocialAggregator.node';
import { expectPickable, loadOptionsContext, useFakeService, type NodeRun } from '../support';
import { feed, NODE, runNode, sent, workflow } from './helpers';

const fake = useFakeService();
const { listSearch } = new SocialAggregator().methods;

const F = SEEDED.feeds;
const P = SEEDED.firstPostId;

type SearchName = keyof typeof listSearch;

async function search(
	method: SearchName,
	parameters: INodeParameters,
	filter?: string,
	token?: string,
): Promise<INodeListSearchResult> {
	const path = { searchWebhooks: 'webhookId', searchSources: 'sourceId', searchPosts: 'postId', searchFeeds: 'feedId' }[method];
	const context: ILoadOptionsFunctions = loadOptionsContext(fake, workflow(parameters), NODE, parameters, `parameters.${path}`);
	const found = await listSearch[method].call(context, filter, token);
	expectPickable(found.results.map(({ name, value }) => ({ name, value: String(value) })));
	return found;
}

/** The next answer to GET `path` has this body instead of the fake's. */
const answer = (path: string, body: unknown) => fake.control.answers.add({ path, body, count: 1 });
const values = (found: INodeListSearchResult) => found.results.map((r) => r.value);
const asked = () => fake.control.requests.list().map((r) => ({ path: r.path, query: r.query }));

function outputOf(run: NodeRun) {
	expect(run.error).toBeUndefined();
	return run.items.map((item) => item.json);
}

/** The three forms one ID can take: picked from the list, typed By ID, and a saved workflow's plain text. */
const FORMS = [
	['From List', (id: number) => ({ __rl: true, mode: 'list', value: String(id) })],
	['By ID', (id: number) => ({ __rl: true, mode: 'id', value: ` ${id} ` })],
	['plain text of a saved workflow', (id: number) => String(id)],
] as const;

describe('Webhook locator', () => {
	const parameters = { resource: 'webhook', operation: 'get' };

	test('lists the account’s subscriptions by URL and status, and filters by URL, event or ID', async () => {
		const all = await search('searchWebhooks', parameters);
		expect(all.results).toEqual([
			{
				name: `https://hooks.acme.example/social (${SEEDED.webhooks.acmeActive})`,
				value: String(SEEDED.webhooks.acmeActive),
				description: 'active: post.created',
			},
			expect.objectContaining({ value: String(SEEDED.webhooks.acmePaused), description: expect.stringMatching(/^paused: /) }),
		]);
		expect(all.paginationToken).toBeUndefined();
		expect(asked()).toEqual([{ path: '/webhooks', query: { page: '1', per_page: '100' } }]);

		expect(values(await search('searchWebhooks', parameters, 'PAUSED'))).toEqual([String(SEEDED.webhooks.acmePaused)]);
		expect(values(await search('searchWebhooks', parameters, String(SEEDED.webhooks.acmeActive)))).toEqual([
			String(SEEDED.webhooks.acmeActive),
		]);
		expect(values(await search('searchWebhooks', parameters, 'no such hook'))).toEqual([]);
	});

	test('pages: the token is the next page while the answer counts more, and asks for that page', async () => {
		answer('/webhooks', { data: [{ id: 31, url: 'https://a.example/1' }, { id: null }, { id: {} }, null], meta: { page: 1, total_pages: 3 } });
		const first = await search('searchWebhooks', parameters);
		expect(first).toEqual({ results: [{ name: 'https://a.example/1 (31)', value: '31' }], paginationToken: '2' });

		answer('/webhooks', { data: [{ id: 32 }], meta: { page: 3, total_pages: 3 } });
		fake.control.requests.clear();
		const last = await search('searchWebhooks', parameters, undefined, '3');
		expect(last).toEqual({ results: [{ name: 'Webhook 32', value: '32' }], paginationToken: undefined });
		expect(asked()).toEqual([{ path: '/webhooks', query: { page: '3', per_page: '100' } }]);
	});

	test.each(FORMS)('%s reaches the request', async (_form, value) => {
		const id = SEEDED.webhooks.acmePaused;
		const run = await runNode(fake, { ...parameters, webhookId: value(id) });
		// The first request reads that ID (the live service answers it 404: the subscription is then found in GET /webhooks).
		expect(run.requests.map(sent)[0]).toEqual({ method: 'GET', path: `/webhooks/${id}`, query: {}, body: undefined });
		expect(outputOf(run)).toEqual([expect.objectContaining({ id })]);
	});

	test('an ID that is not a number is refused, naming the field and the item, before any request', async () => {
		// By ID's own check stops a non-number in the editor; an expression or a saved value reaches this one.
		const run = await runNode(fake, { ...parameters, webhookId: { __rl: true, mode: 'list', value: '={{ "hook-2" }}' } });
		expect(run.error?.message).toBe('The Webhook ID must be a number, not "hook-2" [item 0]');
		expect(run.requests).toEqual([]);
	});
});

describe('Source locator', () => {
	const parameters = { resource: 'source', operation: 'delete', feedId: feed(F.brandMentions) };

	test('lists the chosen feed’s sources, filtered by term, platform or term type', async () => {
		const all = await search('searchSources', parameters);
		expect(values(all)).toHaveLength(5);
		expect(asked()).toEqual([{ path: `/feeds/${F.brandMentions}/sources`, query: { page: '1', per_page: '100' } }]);

		const reddit = await search('searchSources', parameters, 'reddit');
		expect(values(reddit)).toEqual([String(SEEDED.sources.redditAcme)]);
		expect(reddit.results[0].name).toMatch(/^Reddit: /);

		const byFeedId = await search('searchSources', { ...parameters, feedId: feed(F.reviews, 'id') });
		expect(values(byFeedId)).toEqual([String(SEEDED.sources.googleReviews), String(SEEDED.sources.rssBlog)]);
	});

	test('no feed chosen: nothing listed and nothing asked', async () => {
		fake.control.requests.clear();
		expect(await search('searchSources', { ...parameters, feedId: feed('') })).toEqual({ results: [] });
		expect(asked()).toEqual([]);
	});

	test('pages: a feed with more sources than a page gives a token for the next', async () => {
		const sources = Array.from({ length: 150 }, (_, i) => ({ platform: 'RSS', term: `https://blog${i}.example/feed`, term_type: 'rss' }));
		const { feedId, sourceIds } = fake.control.seedFeed({ posts: 0, name: 'Many sources', sources });
		const first = await search('searchSources', { ...parameters, feedId: feed(feedId) });
		expect(values(first)).toEqual(sourceIds.slice(0, 100).map(String));
		expect(first.paginationToken).toBe('2');
		const second = await search('searchSources', { ...parameters, feedId: feed(feedId) }, undefined, first.paginationToken);
		expect(values(second)).toEqual(sourceIds.slice(100).map(String));
		expect(second.paginationToken).toBeUndefined();
		const found = await search('searchSources', { ...parameters, feedId: feed(feedId) }, 'blog7.example');
		expect(values(found)).toEqual([String(sourceIds[7])]);
	});

	test.each(FORMS)('%s reaches the request', async (_form, value) => {
		const id = SEEDED.sources.redditAcme;
		const run = await runNode(fake, { ...parameters, sourceId: value(id) });
		expect(run.requests.map(sent)).toEqual([
			{ method: 'DELETE', path: `/feeds/${F.brandMentions}/sources/${id}`, query: {}, body: undefined },
		]);
		expect(outputOf(run)).toEqual([{ deleted: true, id }]);
	});

	test('an ID that is not a number is refused, naming the field and the item, before any request', async () => {
		const run = await runNode(fake, { ...parameters, sourceId: 'reddit' });
		expect(run.error?.message).toBe('The Source ID must be a number, not "reddit" [item 0]');
		expect(run.requests).toEqual([]);
	});
});

test('a saved version 1 workflow with plain text IDs runs as before', async () => {
	const webhook = await runNode(fake, { resource: 'webhook', operation: 'reEnable', webhookId: String(SEEDED.webhooks.acmePaused), catchUp: false }, { typeVersion: 1 });
	expect(webhook.requests.map(sent)).toEqual([
		{ method: 'PATCH', path: `/webhooks/${SEEDED.webhooks.acmePaused}`, query: {}, body: { status: 'active' } },
	]);
	const post = await runNode(fake, { resource: 'post', operation: 'get', feedId: String(F.reviews), postId: ' 1190 ' }, { typeVersion: 1 });
	expect(post.requests.map(sent)).toEqual([{ method: 'GET', path: `/feeds/${F.reviews}/posts/1190`, query: {}, body: undefined }]);
	expect(outputOf(post)).toEqual([expect.objectContaining({ id: 1190 })]);
});

describe('Post locator', () => {
	const parameters = { resource: 'post', operation: 'get', feedId: feed(F.brandMentions) };

	test('lists the chosen feed’s posts; the text is searched by the service', async () => {
		const all = await search('searchPosts', parameters);
		expect(all.results).toHaveLength(100);
		expect(all.paginationToken).toBe('2');
		const next = await search('searchPosts', parameters, undefined, '2');
		expect(next.results.length).toBeGreaterThan(0);
		expect(next.results.map((r) => r.value)).not.toContain(all.results[0].value);

		// A word of one post's message: the service's search answers it, and the label shows the text.
		const message = String(fake.control.getPost(P)?.message ?? '');
		const word = message.split(/\s+/).find((w) => /^[a-z]{5,}$/i.test(w))!;
		fake.control.requests.clear();
		const found = await search('searchPosts', parameters, ` ${word} `);
		expect(asked()).toEqual([
			{ path: `/feeds/${F.brandMentions}/posts`, query: { search: word, page: '1', per_page: '100' } },
		]);
		expect(values(found)).toContain(String(P));
		expect(found.results.length).toBeLessThan(all.results.length);
		expect(found.results.find((r) => r.value === String(P))?.name).toContain(`(${P})`);
	});

	test('posts without text are labelled by ID; entries without an ID are left out', async () => {
		answer(`/feeds/${F.brandMentions}/posts`, { data: [{ id: 7, message: '' }, { message: 'no id' }, { id: 8, message: 'Hi <a href="https://x.example">there</a>', poster: { name: 'Ann' } }] });
		expect((await search('searchPosts', parameters)).results.map(({ name, value }) => ({ name, value }))).toEqual([
			{ name: 'Post 7', value: '7' },
			{ name: 'Ann: Hi there (8)', value: '8' },
		]);
	});

	test.each(FORMS)('%s reaches the request', async (_form, value) => {
		const run = await runNode(fake, { ...parameters, operation: 'pin', postId: value(P + 2) });
		expect(run.requests.map(sent)).toEqual([
			{ method: 'POST', path: `/feeds/${F.brandMentions}/posts/${P + 2}/pin`, query: {}, body: undefined },
		]);
		expect(outputOf(run)).toEqual([expect.objectContaining({ id: P + 2, pinned: true })]);
	});

	test('an ID that is not a number is refused, naming the field and the item, before any request', async () => {
		const run = await runNode(fake, { ...parameters, postId: { __rl: true, mode: 'list', value: 'abc' } });
		expect(run.error?.message).toBe('The Post ID must be a number, not "abc" [item 0]');
		expect(run.requests).toEqual([]);
	});
});
