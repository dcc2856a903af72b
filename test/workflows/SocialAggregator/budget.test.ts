/**
 * Return All against a key's hourly budget (30 requests an "hour", a burst of 10 a "minute", no Retry-After): a list
 * of 100 pages is refused after page 1 with the numbers; with a wait allowed above the need it finishes with every
 * post once, in order; with a wait below the need it is refused after page 1 too, and Continue On Fail keeps what was
 * fetched. In both legal shapes of the service's answers (the service documents no rate-limit headers):
 * - with `X-RateLimit-*` headers: the stand-in's hour shortened to 3 s, which only its headers tell (the credential
 *   keeps the documented defaults); real time, about 10 s for the case that waits;
 * - without: the documented hour (docs/service.md#rate-limits), counted by the node with the credential's Requests per Hour, on the stand-in's clock (a
 *   wait moves it on).
 * Then: answers that arrive out of order never make a Return All that fits its waits spend a 429, and a 429 that says
 * only when its window resets (`X-RateLimit-Reset`, no Retry-After) is retried at that reset.
 */
import { onRealHour } from '../budgetClock';
import { useFakeService } from '../support';
import { feed, runNode } from './helpers';

const HOUR_S = 3;
const fake = useFakeService({
	port: 0,
	allowHttpWebhooks: true,
	limits: { enabled: true, windowScale: HOUR_S / 3600, retryAfter: false },
});
const KEY_LIMITS = { requestsPerHour: 30, burstPerMinute: 10 };
const credential = { ...KEY_LIMITS };
const POSTS = 10_000;
let wall: number;

/** A new hour at the stand-in, with the key's limits. */
function newHour(limits: { requestsPerHour: number | null; burstPerMinute: number | null } = KEY_LIMITS): void {
	fake.control.rateLimits.clear(fake.control.keys.owner);
	fake.control.rateLimits.set(fake.control.keys.owner, limits);
}

beforeEach(() => {
	// The file's stand-in: the hour shortened, and so told in X-RateLimit-* headers.
	fake.control.rateLimits.setWindowScale(HOUR_S / 3600);
	fake.control.rateLimits.setHeaders(undefined);
	wall = fake.control.seedFeed({ posts: POSTS }).feedId;
	// Seeding spends no request; a new hour starts for the run.
	newHour();
});

const returnAll = (budgetWait?: number) => ({
	resource: 'post',
	operation: 'getAll',
	feedId: feed(wall),
	returnAll: true,
	requestOptions: budgetWait === undefined ? {} : { budgetWait },
});

const postRequests = (requests: Array<{ path: string; status: number }>, feedId = wall) => requests.filter((r) => r.path === `/feeds/${feedId}/posts`);

/** The cases of one shape: its hour, its clock, the credential the user has, and how the wait before the budget frees up reads. */
function budgetCases(hour: { ms: number; now: () => number; credential: Record<string, number>; frees: RegExp }) {
	test('a Return All of 100 pages is refused after page 1 with the numbers, having sent 1 request', async () => {
		const run = await runNode(fake, returnAll(), { credential: hour.credential });

		expect(run.requests).toHaveLength(1);
		expect(run.requests[0].query.page).toBe('1');
		expect(run.error?.message).toMatch(/^Return All needs 100 pages, more than the key's rate limit can carry: 99 more requests needed, 29 requests left/);
		expect(run.error?.message).toMatch(hour.frees);
		expect(run.error?.description).toMatch(/Only page 1 of 100 was fetched \(1 request\)/);
		expect(run.error?.description).toMatch(/Limit of at most 3000/);
		expect(run.error?.description).toMatch(/"Wait for Rate Limit Budget \(Seconds\)" under Request Options to at least \d+/);
		expect(run.error?.description).toMatch(/Stopped after 1 page of 100: 100 items of page 1 were fetched and are not output: turn on Continue On Fail/);
	});

	test('with a wait allowed above the need: every post once, in order, each page answered once', async () => {
		const started = hour.now();
		const run = await runNode(fake, returnAll((10 * hour.ms) / 1000), { credential: hour.credential });
		const elapsed = hour.now() - started;

		expect(run.error).toBeUndefined();
		const ids = run.items.map((item) => item.json.id);
		expect(ids).toHaveLength(POSTS);
		expect(new Set(ids).size).toBe(POSTS);
		const times = run.items.map((item) => Date.parse(String(item.json.external_created_at)));
		expect([...times].sort((a, b) => b - a)).toEqual(times);
		const answered = postRequests(run.requests).filter((r) => r.status === 200);
		expect(answered).toHaveLength(100);
		// No request the hour refused: a 429 here is a burst's, which spends nothing.
		expect(postRequests(run.requests).filter((r) => r.status !== 200).every((r) => r.status === 429)).toBe(true);
		// 100 pages at 30 an hour: the fourth hour starts 3 hours after the first request.
		expect(elapsed).toBeGreaterThanOrEqual(3 * hour.ms - 500);
		expect(elapsed).toBeLessThan(5 * hour.ms);
		expect(run.result.logs.some((line) => /waiting \d+ (s|min): the key's rate-limit budget is spent/.test(line.message))).toBe(true);
	}, 30_000);

	test('with a wait allowed below the need: refused after page 1; with Continue On Fail page 1 is output, then the error', async () => {
		const failing = await runNode(fake, returnAll(2), { credential: hour.credential });
		expect(failing.requests).toHaveLength(1);
		expect(failing.error?.message).toMatch(/more than the key's rate limit and the 2 s of waiting allowed can carry: 99 more requests needed/);

		newHour();
		const kept = await runNode(fake, returnAll(2), { credential: hour.credential, onError: 'continueRegularOutput' });
		expect(postRequests(kept.requests)).toHaveLength(1);
		expect(kept.items).toHaveLength(101);
		const posts = kept.items.slice(0, 100).map((item) => item.json);
		expect(posts.every((post) => typeof post.id === 'number')).toBe(true);
		const last = kept.items[100].json as { error: string; details: { description: string } };
		expect(last.error).toMatch(/^Return All needs 100 pages/);
		expect(last.details.description).toMatch(/Stopped after 1 page of 100. The 100 items of page 1 of 100 are output before this error item, in order/);
		expect(kept.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
	});
}

describe("with X-RateLimit-* headers: the stand-in's hour shortened to 3 s, which only its headers tell", () => {
	budgetCases({ ms: HOUR_S * 1000, now: () => Date.now(), credential: {}, frees: /frees up in [1-3] s/ });
});

describe("without rate-limit headers: the documented hour, counted by the node (on the stand-in's clock)", () => {
	onRealHour(fake, { headers: false, newHour });
	budgetCases({ ms: 3_600_000, now: () => fake.control.clock.now().getTime(), credential, frees: /frees up in 60 min/ });
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

describe("answers read out of order, with X-RateLimit-* headers (the documented hour, on the stand-in's clock)", () => {
	const LIMIT = 6;
	const PAGES = 9;
	onRealHour(fake, { headers: true, newHour: () => newHour({ requestsPerHour: LIMIT, burstPerMinute: null }) });

	test('a Return All that fits its waits never spends a 429, 50 runs in a row: an older answer read late never reopens a spent hour', async () => {
		const small = fake.control.seedFeed({ posts: PAGES * 100 }).feedId;
		// Each page's answer leaves a few ms after the service counted it, each page another delay: answers cross.
		for (let page = 2; page <= PAGES; page++) {
			fake.control.injectFault({ kind: 'delay', when: 'after', path: '/feeds/:id/posts', query: { page: String(page) }, delayMs: ((page * 7) % 9) * 3, count: 'always' });
		}
		newHour({ requestsPerHour: LIMIT, burstPerMinute: null });
		const statuses: number[] = [];
		let waited = 0;
		for (let run = 1; run <= 50; run++) {
			const result = await runNode(fake, { ...returnAll(5 * 3600), feedId: feed(small) }, { credential: {} });
			expect([run, result.error?.message]).toEqual([run, undefined]);
			expect(new Set(result.items.map((item) => item.json.id)).size).toBe(PAGES * 100);
			statuses.push(...postRequests(result.requests, small).map((r) => r.status));
			if (result.result.logs.some((line) => /waiting \d+ min: the key's rate-limit budget is spent/.test(line.message))) waited++;
		}
		expect(statuses.filter((status) => status !== 200)).toEqual([]);
		expect(statuses).toHaveLength(50 * PAGES);
		// Each run needs more than the hour has left: each waits for a reset.
		expect(waited).toBe(50);
	}, 60_000);
});

test('a 429 with X-RateLimit-Reset: 5 and no Retry-After is retried at the reset, 5 to 6 s later (real time), not a minute later', async () => {
	newHour({ requestsPerHour: null, burstPerMinute: null });
	fake.control.injectFault({ kind: 'error', status: 429, method: 'GET', path: '/account', retryAfter: null, headers: { 'X-RateLimit-Reset': '5' } });

	const run = await runNode(fake, { resource: 'account', operation: 'get' }, { credential });

	expect(run.error).toBeUndefined();
	const [limited, retried] = run.requests.filter((r) => r.path === '/account');
	expect([limited.status, retried.status]).toEqual([429, 200]);
	const waitedMs = Date.parse(retried.time) - Date.parse(limited.time);
	expect(waitedMs).toBeGreaterThanOrEqual(5000);
	expect(waitedMs).toBeLessThanOrEqual(6000);
}, 15_000);
