/**
 * Return All against a key's hourly budget, with the stand-in's hour shrunk to 3 s (30 requests an "hour", a burst
 * of 10 a "minute" of 50 ms) and the credential saying so: a list of 100 pages is refused after page 1 with the
 * numbers; with a wait allowed above the need it finishes with every post once, in order; with a wait below the
 * need it is refused after page 1 too, and Continue On Fail keeps what was fetched. Each case once without and once
 * with the `X-RateLimit-*` headers (SPEC.md shows none; both are legal answers). Real time: about 25 s in all.
 */
import { useFakeService } from '../support';
import { feed, runNode } from './helpers';

const HOUR_S = 3;
const fake = useFakeService({
	port: 0,
	allowHttpWebhooks: true,
	limits: { enabled: true, windowScale: HOUR_S / 3600, retryAfter: false },
});
const credential = { requestsPerHour: 30, burstPerMinute: 10, rateLimitHour: HOUR_S };
const POSTS = 10_000;
let wall: number;

beforeEach(() => {
	fake.control.rateLimits.set(fake.control.keys.owner, { requestsPerHour: 30, burstPerMinute: 10 });
	wall = fake.control.seedFeed({ posts: POSTS }).feedId;
	// Seeding spends no request; a new hour starts for the run.
	fake.control.rateLimits.clear(fake.control.keys.owner);
	fake.control.rateLimits.set(fake.control.keys.owner, { requestsPerHour: 30, burstPerMinute: 10 });
});

afterEach(() => {
	fake.control.rateLimits.setHeaders(false);
});

const returnAll = (budgetWait?: number) => ({
	resource: 'post',
	operation: 'getAll',
	feedId: feed(wall),
	returnAll: true,
	requestOptions: budgetWait === undefined ? {} : { budgetWait },
});

const postRequests = (requests: Array<{ path: string; status: number }>) => requests.filter((r) => r.path === `/feeds/${wall}/posts`);

describe.each([
	['without rate-limit headers', false],
	['with X-RateLimit-* headers', true],
])('%s', (_shape, headers) => {
	beforeEach(() => {
		fake.control.rateLimits.setHeaders(headers);
	});

	test('a Return All of 100 pages is refused after page 1 with the numbers, having sent 1 request', async () => {
		const run = await runNode(fake, returnAll(), { credential });

		expect(run.requests).toHaveLength(1);
		expect(run.requests[0].query.page).toBe('1');
		expect(run.error?.message).toMatch(/^Return All needs 100 pages, more than the key's rate limit can carry: 99 more requests needed, 29 requests left/);
		expect(run.error?.message).toMatch(/frees up in [1-3] s/);
		expect(run.error?.description).toMatch(/Only page 1 of 100 was fetched \(1 request\)/);
		expect(run.error?.description).toMatch(/Limit of at most 3000/);
		expect(run.error?.description).toMatch(/"Wait for Rate Limit Budget \(Seconds\)" under Request Options to at least \d+/);
		expect(run.error?.description).toMatch(/Stopped after 1 page of 100: 100 items of page 1 were fetched and are not output: turn on Continue On Fail/);
	});

	test('with a wait allowed above the need: every post once, in order, each page answered once', async () => {
		const started = Date.now();
		const run = await runNode(fake, returnAll(30), { credential });
		const elapsed = Date.now() - started;

		expect(run.error).toBeUndefined();
		const ids = run.items.map((item) => item.json.id);
		expect(ids).toHaveLength(POSTS);
		expect(new Set(ids).size).toBe(POSTS);
		const times = run.items.map((item) => Date.parse(String(item.json.external_created_at)));
		expect([...times].sort((a, b) => b - a)).toEqual(times);
		const answered = postRequests(run.requests).filter((r) => r.status === 200);
		expect(answered).toHaveLength(100);
		// 100 pages at 30 an "hour": the fourth hour starts 3 hours after the first request.
		expect(elapsed).toBeGreaterThanOrEqual(3 * HOUR_S * 1000 - 500);
		expect(elapsed).toBeLessThan(5 * HOUR_S * 1000);
		expect(run.result.logs.some((line) => /waiting \d+ s: the key's rate-limit budget is spent/.test(line.message))).toBe(true);
	}, 30_000);

	test('with a wait allowed below the need: refused after page 1; with Continue On Fail page 1 is output, then the error', async () => {
		const failing = await runNode(fake, returnAll(2), { credential });
		expect(failing.requests).toHaveLength(1);
		expect(failing.error?.message).toMatch(/more than the key's rate limit and the 2 s of waiting allowed can carry: 99 more requests needed/);

		fake.control.rateLimits.clear(fake.control.keys.owner);
		fake.control.rateLimits.set(fake.control.keys.owner, { requestsPerHour: 30, burstPerMinute: 10 });
		const kept = await runNode(fake, returnAll(2), { credential, onError: 'continueRegularOutput' });
		expect(postRequests(kept.requests)).toHaveLength(1);
		expect(kept.items).toHaveLength(101);
		const posts = kept.items.slice(0, 100).map((item) => item.json);
		expect(posts.every((post) => typeof post.id === 'number')).toBe(true);
		const last = kept.items[100].json as { error: string; details: { description: string } };
		expect(last.error).toMatch(/^Return All needs 100 pages/);
		expect(last.details.description).toMatch(/Stopped after 1 page of 100. The 100 items of page 1 of 100 are output before this error item, in order/);
		expect(kept.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
	});
});

test('a page that fails after its retries: with Continue On Fail the pages before it are output in order, then the error naming where it stopped', async () => {
	fake.control.rateLimits.set(fake.control.keys.owner, { requestsPerHour: null, burstPerMinute: null });
	fake.control.injectFault({ kind: 'error', status: 404, method: 'GET', path: '/feeds/:id/posts', query: { page: '5' }, count: 'always' });
	const small = fake.control.seedFeed({ posts: 1000 }).feedId;

	const run = await runNode(fake, { ...returnAll(), feedId: feed(small) }, { credential, onError: 'continueRegularOutput' });

	const posts = run.items.slice(0, -1).map((item) => item.json);
	expect(posts).toHaveLength(400);
	expect(new Set(posts.map((post) => post.id)).size).toBe(400);
	const times = posts.map((post) => Date.parse(String(post.external_created_at)));
	expect([...times].sort((a, b) => b - a)).toEqual(times);
	const last = run.items.at(-1)!.json as { error: string; details: { description: string } };
	expect(last.error).toBe('Injected 404');
	expect(last.details.description).toMatch(/Stopped after 4 pages of 10. The 400 items of pages 1 to 4 of 10 are output before this error item, in order/);
});

test('a Limit that needs more pages than the budget allows is refused the same way, named as the Limit', async () => {
	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(wall), returnAll: false, limit: 5000 }, { credential });
	expect(run.requests).toHaveLength(1);
	expect(run.error?.message).toMatch(/^A Limit of 5000 needs 50 pages, more than the key's rate limit can carry: 49 more requests needed, 29 requests left/);
});

test('a Return All that fits what is left is not held back: each page answered once, nothing refused', async () => {
	const small = fake.control.seedFeed({ posts: 2500 }).feedId;
	const run = await runNode(fake, { ...returnAll(), feedId: feed(small) }, { credential });
	expect(run.error).toBeUndefined();
	expect(run.items).toHaveLength(2500);
	expect(postRequests(run.requests)).toHaveLength(0);
	const sent = run.requests.filter((r) => r.path === `/feeds/${small}/posts`);
	// The stand-in's "minute" is 50 ms here, so a fast machine can meet its burst of 10: such a 429 spends nothing
	// and is retried. What must hold is one answer per page, none refused for the hour.
	const answered = sent.filter((r) => r.status !== 429).map((r) => Number(r.query.page));
	expect(answered.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
	expect(sent.every((r) => r.status === 200 || r.status === 429)).toBe(true);
});

test('a wait that is not a number of seconds is refused before any request, naming the field', async () => {
	const run = await runNode(fake, returnAll(-3), { credential });
	expect(run.requests).toHaveLength(0);
	expect(run.error?.message).toMatch(/Wait for Rate Limit Budget \(Seconds\)/);
});
