/**
 * Answers that cannot be trusted, through both action nodes' one path: never a silent
 * loss, a made-up item, a runaway or an unclear error. Each error names the request, the
 * HTTP status and what was wrong; with Continue On Fail an error item takes the item's place.
 */
import { SEEDED } from '../../fake-service';
import { recordSleeps, useFakeService } from '../support';
import { runNode as runDataNode } from '../SocialAggregatorData/helpers';
import { feed, runNode } from './helpers';

const fake = useFakeService();
recordSleeps();
const F = SEEDED.feeds;

const postsOf = (feedId: number) => `/feeds/${feedId}/posts`;
const returnAll = (feedId: number) => ({ resource: 'post', operation: 'getAll', feedId: feed(feedId), returnAll: true });

describe('silent loss: a list answer without its list fails instead of returning fewer items', () => {
	test('page 1 without `data` that says 3 pages', async () => {
		const wall = fake.control.seedFeed({ posts: 250 }).feedId;
		fake.control.answers.add({ path: postsOf(wall), query: { page: '1' }, body: { meta: { page: 1, per_page: 100, total_count: 250, total_pages: 3 } } });
		const run = await runNode(fake, returnAll(wall));
		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe(
			`The service's answer to GET /feeds/${wall}/posts, page 1 (HTTP 200) cannot be used: \`data\` is missing`,
		);
		expect(run.error?.httpCode).toBe('200');
		expect(run.error?.description).toContain('Nothing was output for this item');
	});

	test('page 2 with `data: null`', async () => {
		const wall = fake.control.seedFeed({ posts: 250 }).feedId;
		fake.control.answers.add({ path: postsOf(wall), query: { page: '2' }, body: { data: null, meta: { page: 2, per_page: 100, total_count: 250, total_pages: 3 } } });
		const run = await runNode(fake, returnAll(wall));
		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe(
			`The service's answer to GET /feeds/${wall}/posts, page 2 (HTTP 200) cannot be used: \`data\` is null, not a list`,
		);
	});

	test("a feed list answered `{}`; with Continue On Fail an error item takes the item's place", async () => {
		fake.control.answers.add({ path: '/feeds', body: {} });
		const run = await runNode(fake, { resource: 'feed', operation: 'getAll', returnAll: true }, { onError: 'continueRegularOutput' });
		expect(run.items.map((item) => [item.json.error, item.pairedItem])).toEqual([
			["The service's answer to GET /feeds, page 1 (HTTP 200) cannot be used: `data` is missing", { item: 0 }],
		]);
	});

	test('a Data API answer whose `meta.platforms` holds null', async () => {
		fake.control.answers.add({ path: '/data/posts', body: { data: [], meta: { total_results: 0, platforms: [null] } } });
		const run = await runDataNode(fake, { resource: 'post', operation: 'search', term: '#acme', platforms: ['Bluesky'], limit: 10 });
		expect(run.error?.message).toBe(
			"The service's answer to GET /data/posts (HTTP 200) cannot be used: element 1 of `meta.platforms` is null",
		);
	});
});

describe('made-up items: a read never invents an item', () => {
	test.each([
		['an empty 200', { raw: '' }, 'the answer is empty'],
		['a 204', { raw: '', status: 204 }, 'the answer is empty'],
		['a number for `data`', { body: { data: 5 } }, '`data` is a number, not an object'],
		['a list for `data`', { body: { data: [1] } }, '`data` is a list, not an object'],
	])('Feed › Get answered %s', async (_case, answer, problem) => {
		fake.control.answers.add({ path: '/feeds/:id', ...answer });
		const run = await runNode(fake, { resource: 'feed', operation: 'get', feedId: feed(F.reviews) });
		expect(run.items).toEqual([]);
		expect(run.error?.message).toMatch(new RegExp(`^The service's answer to GET /feeds/${F.reviews} \\(HTTP 20[04]\\) cannot be used: `));
		expect(run.error?.message.endsWith(problem)).toBe(true);
	});

	test('list elements that are not records', async () => {
		fake.control.answers.add({ path: '/feeds', body: { data: [{ id: 1, name: 'A' }, 7, 'x', [1]], meta: { page: 1, per_page: 100, total_count: 4, total_pages: 1 } } });
		const run = await runNode(fake, { resource: 'feed', operation: 'getAll', returnAll: true });
		expect(run.error?.message).toBe("The service's answer to GET /feeds, page 1 (HTTP 200) cannot be used: element 2 of `data` is a number");
	});

	test('a profile look-up whose answer holds values that are not profiles', async () => {
		fake.control.answers.add({ path: '/data/profiles', body: { data: ['acme', 3], meta: { platforms: [{ platform: 'Bluesky', success: true }] } } });
		const run = await runDataNode(fake, { resource: 'profile', operation: 'lookUp', term: 'acme', platforms: ['Bluesky'] });
		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe("The service's answer to GET /data/profiles (HTTP 200) cannot be used: element 1 of `data` is a string");
	});

	test('a write the service answers without a body still succeeds: the service documents no body for it', async () => {
		fake.control.answers.add({ method: 'POST', path: '/feeds/:id/posts/:post/pin', raw: '', status: 204 });
		const run = await runNode(fake, { resource: 'post', operation: 'pin', feedId: feed(F.brandMentions), postId: String(SEEDED.firstPostId) });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([{ success: true }]);
	});
});

describe('runaway: a page count that cannot be right fails before a second request', () => {
	test.each([2 ** 53, 1e308, 10_001])('total_pages %p', async (pages) => {
		fake.control.answers.add({ path: postsOf(F.brandMentions), query: { page: '1' }, body: { data: [{ id: 1 }], meta: { page: 1, per_page: 100, total_count: 1, total_pages: pages } } });
		const run = await runNode(fake, returnAll(F.brandMentions));
		expect(run.requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/, page 1 \(HTTP 200\) cannot be used: `meta\.total_pages` is /);
	});

	test('more pages than total_count at per_page allows', async () => {
		fake.control.answers.add({ path: postsOf(F.brandMentions), query: { page: '1' }, body: { data: [{ id: 1 }], meta: { page: 1, per_page: 100, total_count: 120, total_pages: 50 } } });
		const run = await runNode(fake, returnAll(F.brandMentions));
		expect(run.requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/`meta\.total_pages` \(50\) is more than `meta\.total_count` \(120\) at `meta\.per_page` \(100\) a page allows$/);
	});
});

describe('unclear errors become clear ones', () => {
	test.each([
		['truncated', 'its body ended before it was complete'],
		['badEncoding', 'it was not encoded the way its headers said (Content-Encoding)'],
	] as const)('an answer that is %s: retried like a reset, then named', async (kind, reason) => {
		fake.control.injectFault({ kind, method: 'GET', path: '/account', count: 'always' });
		const run = await runNode(fake, { resource: 'account', operation: 'get' });
		expect(run.requests).toHaveLength(6);
		expect(run.error?.message).toBe(`The service's answer to GET /account (HTTP 200) could not be read: ${reason} (after 6 attempts)`);
	});

	test('an answer that ends early once is asked again and the run succeeds', async () => {
		fake.control.injectFault({ kind: 'truncated', method: 'GET', path: '/feeds/:id' });
		const run = await runNode(fake, { resource: 'feed', operation: 'get', feedId: feed(F.reviews) });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.id).toBe(F.reviews);
	});

	test('an error envelope whose message is blank or not text names the status and the request', async () => {
		fake.control.injectFault({ kind: 'error', status: 422, method: 'POST', path: '/feeds', message: '  ' });
		const run = await runNode(fake, { resource: 'feed', operation: 'create', name: 'X' });
		expect(run.error?.message).toBe('The service answered HTTP 422 to POST /feeds without a readable message');
	});

	test('a platform failure whose code and message are objects', async () => {
		fake.control.answers.add({
			path: '/data/posts',
			body: { data: [], meta: { total_results: 0, platforms: [{ platform: 'Tumblr', success: false, error_code: { a: 1 }, message: { b: 2 } }] } },
		});
		const search = { resource: 'post', operation: 'search', term: '#acme', platforms: ['Tumblr'], limit: 10 };
		const run = await runDataNode(fake, { ...search, options: { onPlatformFailure: 'fail', platformRetries: 0 } });
		expect(run.error?.message).toBe('Tumblr failed: no readable reason was given (platform_error)');
		fake.control.answers.add({
			path: '/data/posts',
			body: { data: [], meta: { total_results: 0, platforms: [{ platform: 'Tumblr', success: false, error_code: ['x'], message: '' }] } },
		});
		const kept = await runDataNode(fake, { ...search, output: 'postsAndStatus', options: { platformRetries: 0 } });
		expect(JSON.stringify(kept.items)).not.toContain('[object Object]');
		expect(kept.items.map((item) => [item.json.error_code, item.json.message])).toContainEqual(['platform_error', 'no readable reason was given']);
	});
});
