/**
 * Return All and Limit over a large feed: pages of 100 up to meta.total_pages, no page a
 * limit does not need, and a 429 in the middle that waits and resumes at that page.
 * Pages after the first are asked several at once (concurrency.test.ts), so requests
 * are compared page by page rather than in the order the service answered them.
 */
import { recordSleeps, useFakeService } from '../support';
import { feed, runNode, statusesByPage } from './helpers';

const fake = useFakeService();
/** The waits the node asked for, instead of waiting. */
const waits = recordSleeps();
let bigFeed: number;

beforeEach(() => {
	bigFeed = fake.control.seedFeed({ posts: 1050 }).feedId;
});

const postsPath = () => `/feeds/${bigFeed}/posts`;
const pageOf = (query: Record<string, unknown>) => [Number(query.page), Number(query.per_page)];

test('Return All over 1,050 posts: exactly 1,050 distinct posts in 11 requests of 100', async () => {
	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), returnAll: true });

	expect(run.error).toBeUndefined();
	expect(run.requests.map((r) => [r.method, r.path, r.status])).toEqual(Array(11).fill(['GET', postsPath(), 200]));
	expect(pageOf(run.requests[0].query)).toEqual([1, 100]);
	expect(run.requests.map((r) => pageOf(r.query)).sort(([a], [b]) => a - b)).toEqual(
		Array.from({ length: 11 }, (_, i) => [i + 1, 100]),
	);
	const ids = run.items.map((item) => item.json.id);
	expect(ids).toHaveLength(1050);
	expect(new Set(ids).size).toBe(1050);
	// The service's order (newest first) is kept.
	const times = run.items.map((item) => Date.parse(String(item.json.external_created_at)));
	expect([...times].sort((a, b) => b - a)).toEqual(times);
	expect(run.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
	expect(waits).toEqual([]);
});

test('Limit 150: 150 posts in 2 requests', async () => {
	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), limit: 150 });

	expect(run.error).toBeUndefined();
	expect(run.requests.map((r) => pageOf(r.query))).toEqual([
		[1, 100],
		[2, 100],
	]);
	const ids = run.items.map((item) => item.json.id);
	expect(ids).toHaveLength(150);
	expect(new Set(ids).size).toBe(150);
});

test('a limit that one page holds costs one request of that size', async () => {
	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), limit: 30 });
	expect(run.requests.map((r) => pageOf(r.query))).toEqual([[1, 30]]);
	expect(run.items).toHaveLength(30);
});

test('a limit above the total stops at meta.total_pages', async () => {
	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), limit: 5000 });
	expect(run.requests).toHaveLength(11);
	expect(run.items).toHaveLength(1050);
});

test('a 429 at page 5 waits for Retry-After and resumes at page 5: still 1,050 distinct posts, one extra request', async () => {
	fake.control.injectFault({ kind: 'error', status: 429, method: 'GET', path: '/feeds/:id/posts', query: { page: '5' }, retryAfter: 2 });

	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), returnAll: true });

	expect(run.error).toBeUndefined();
	expect(run.requests).toHaveLength(12);
	expect([...statusesByPage(run.requests)]).toEqual([
		[1, [200]],
		[2, [200]],
		[3, [200]],
		[4, [200]],
		[5, [429, 200]],
		[6, [200]],
		[7, [200]],
		[8, [200]],
		[9, [200]],
		[10, [200]],
		[11, [200]],
	]);
	expect(waits).toEqual([2000]);
	const ids = run.items.map((item) => item.json.id);
	expect(ids).toHaveLength(1050);
	expect(new Set(ids).size).toBe(1050);
});

test('a 429 without Retry-After waits the documented window (a minute) and still resumes at that page', async () => {
	fake.control.injectFault({
		kind: 'error',
		status: 429,
		path: '/feeds/:id/posts',
		query: { page: '3' },
		retryAfter: null,
		count: 2,
	});

	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), limit: 400 });

	expect(run.error).toBeUndefined();
	expect([...statusesByPage(run.requests)]).toEqual([
		[1, [200]],
		[2, [200]],
		[3, [429, 429, 200]],
		[4, [200]],
	]);
	// The documented burst is 60 requests a minute (docs/service.md#rate-limits): a shorter wait would only spend more 429s.
	expect(waits).toEqual([60_000, 60_000]);
	expect(new Set(run.items.map((item) => item.json.id)).size).toBe(400);
});

test('a 503 on a page is retried there too, and a dropped connection as well', async () => {
	fake.control.injectFault({ kind: 'error', status: 503, path: '/feeds/:id/posts', query: { page: '2' } });
	fake.control.injectFault({ kind: 'drop', path: '/feeds/:id/posts', query: { page: '3' } });

	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), limit: 300 });

	expect(run.error).toBeUndefined();
	expect([...statusesByPage(run.requests)]).toEqual([
		[1, [200]],
		[2, [503, 200]],
		[3, [0, 200]],
	]);
	expect(new Set(run.items.map((item) => item.json.id)).size).toBe(300);
	expect(waits).toHaveLength(2);
});

test('an empty feed gives no items after one request', async () => {
	const empty = fake.control.seedFeed({ posts: 0 }).feedId;
	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(empty), returnAll: true });
	expect(run.error).toBeUndefined();
	expect(run.requests).toHaveLength(1);
	expect(run.items).toEqual([]);
});

test('each input item pages its own feed and its posts are paired with it', async () => {
	const small = fake.control.seedFeed({ posts: 120 }).feedId;
	const run = await runNode(
		fake,
		{ resource: 'post', operation: 'getAll', feedId: feed('={{ $json.feed }}', 'id'), returnAll: true, simplify: false },
		{ items: [{ feed: small }, { feed: bigFeed }] },
	);

	expect(run.error).toBeUndefined();
	expect(run.requests.filter((r) => r.path === `/feeds/${small}/posts`)).toHaveLength(2);
	expect(run.requests.filter((r) => r.path === postsPath())).toHaveLength(11);
	expect(run.items).toHaveLength(1170);
	const pairedTo = (index: number) => run.items.filter((item) => JSON.stringify(item.pairedItem) === JSON.stringify({ item: index }));
	expect(pairedTo(0).map((item) => item.json.feed_id)).toEqual(Array(120).fill(small));
	expect(pairedTo(1).map((item) => item.json.feed_id)).toEqual(Array(1050).fill(bigFeed));
});
