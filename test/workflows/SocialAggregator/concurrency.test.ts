/**
 * Return All with pages in flight at once: once page 1 has told how many pages there
 * are, the rest are asked several at a time, at most PAGE_CONCURRENCY for the whole
 * node run (all input items together). The output keeps the service's order and loses
 * nothing when pages get 429s, whether injected or from the service's own rate limit;
 * a 429 holds back the requests not yet sent; a page that fails for good stops its list.
 */
import type { RequestLogEntry } from '../../fake-service';
import { PAGE_CONCURRENCY } from '../../../nodes/shared/requestGate';
import { fastSleep, useFakeService } from '../support';
import { feed, runNode, statusesByPage } from './helpers';

const fake = useFakeService();
/** The waits the node asked for. */
let waits: number[];
/** What a wait does instead of waiting (nothing unless a test says otherwise). */
let onSleep: (ms: number) => Promise<void>;
let restoreSleep: () => void;

const POSTS = 2050; // 21 pages of 100
const PAGES = 21;
let bigFeed: number;

beforeEach(() => {
	bigFeed = fake.control.seedFeed({ posts: POSTS }).feedId;
	onSleep = async () => {};
	const sleep = fastSleep(async (ms) => await onSleep(ms));
	waits = sleep.waits;
	restoreSleep = sleep.restore;
});

afterEach(() => {
	restoreSleep();
	// reset() keeps these two: put back the file's fake as it started.
	fake.control.rateLimits.setEnabled(false);
	fake.control.rateLimits.setWindowScale(1);
});

const realSleep = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The feed's post ids in the service's order, read page after page outside the node. */
async function servicesOrder(): Promise<unknown[]> {
	const ids: unknown[] = [];
	for (let page = 1; page <= PAGES; page++) {
		const response = await fetch(`${fake.url}/feeds/${bigFeed}/posts?page=${page}&per_page=100`, {
			headers: { Authorization: `Bearer ${fake.control.keys.owner}` },
		});
		const body = (await response.json()) as { data: Array<{ id: unknown }> };
		ids.push(...body.data.map((post) => post.id));
	}
	return ids;
}

const returnAll = () => ({ resource: 'post', operation: 'getAll', feedId: feed(bigFeed), returnAll: true });

/** The most requests the service was working on at one moment. */
function mostAtOnce(requests: RequestLogEntry[]): number {
	const edges = requests.flatMap((r) => {
		const start = Date.parse(r.time);
		return [
			{ at: start, step: 1 },
			{ at: start + r.durationMs, step: -1 },
		];
	});
	edges.sort((a, b) => a.at - b.at || a.step - b.step);
	let now = 0;
	let most = 0;
	for (const edge of edges) {
		now += edge.step;
		most = Math.max(most, now);
	}
	return most;
}

test('pages after the first are in flight at once, never more than PAGE_CONCURRENCY, and the output keeps the service order', async () => {
	const expected = await servicesOrder();
	fake.control.setLatency(25);

	const run = await runNode(fake, returnAll());

	expect(run.error).toBeUndefined();
	expect(run.requests).toHaveLength(PAGES);
	expect([...statusesByPage(run.requests).keys()]).toEqual(Array.from({ length: PAGES }, (_, i) => i + 1));
	// Page 1 alone (it tells how many there are), then several at once.
	expect(Number(run.requests[0].query.page)).toBe(1);
	const atOnce = mostAtOnce(run.requests);
	expect(atOnce).toBeGreaterThan(1);
	expect(atOnce).toBeLessThanOrEqual(PAGE_CONCURRENCY);
	expect(run.items.map((item) => item.json.id)).toEqual(expected);
	expect(waits).toEqual([]);
});

test('429s on pages in flight at once: each such page is asked again, nothing is lost, duplicated or reordered', async () => {
	const expected = await servicesOrder();
	// Pages 2 to 4 are in flight together; page 9 gets a 429 twice in a row.
	for (const page of ['2', '3', '4', '9', '15', '21']) {
		const count = page === '9' ? 2 : 1;
		fake.control.injectFault({ kind: 'error', status: 429, method: 'GET', path: '/feeds/:id/posts', query: { page }, retryAfter: 2, count });
	}

	const run = await runNode(fake, returnAll());

	expect(run.error).toBeUndefined();
	expect(run.requests).toHaveLength(PAGES + 7);
	const byPage = statusesByPage(run.requests);
	for (let page = 1; page <= PAGES; page++) {
		const wanted = page === 9 ? [429, 429, 200] : ['2', '3', '4', '15', '21'].includes(String(page)) ? [429, 200] : [200];
		expect([page, byPage.get(page)]).toEqual([page, wanted]);
	}
	// Only the page that waits out a 429 sleeps; pages answered 429 meanwhile wait at the gate with it.
	expect(waits.length).toBeGreaterThanOrEqual(2);
	expect(waits.length).toBeLessThanOrEqual(7);
	expect(waits.every((ms) => ms === 2000)).toBe(true);
	expect(run.items.map((item) => item.json.id)).toEqual(expected);
	expect(run.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
});

test('under the service own rate limit (10 a window): every post once, in order, after waiting out the windows', async () => {
	const expected = await servicesOrder();
	// A service that says when to retry (the spec shape's Retry-After); without one, faults.test.ts.
	fake.control.setShapes('spec');
	fake.control.rateLimits.setEnabled(true);
	// A minute of 1.2 s: long enough that more than 10 pages are asked within one window on a loaded machine.
	fake.control.rateLimits.setWindowScale(0.02);
	fake.control.rateLimits.set(fake.control.keys.owner, { burstPerMinute: 10, requestsPerHour: null });
	// Retry-After comes in whole seconds (at least 1, at most 2 here): waiting it out ends the window.
	onSleep = async (ms) => await realSleep(ms);

	const run = await runNode(fake, returnAll());

	expect(run.error).toBeUndefined();
	const answered = run.requests.filter((r) => r.status === 200);
	expect(answered).toHaveLength(PAGES);
	expect(run.requests.filter((r) => r.status !== 200).every((r) => r.status === 429)).toBe(true);
	// Each window's end costs at most the pages that were in flight.
	const limited = run.requests.length - PAGES;
	expect(limited).toBeGreaterThan(0);
	expect(limited).toBeLessThanOrEqual(PAGE_CONCURRENCY * Math.ceil(PAGES / 10));
	expect(run.items.map((item) => item.json.id)).toEqual(expected);
});

test('a 429 holds back the pages not yet sent until that page is answered', async () => {
	fake.control.injectFault({ kind: 'error', status: 429, method: 'GET', path: '/feeds/:id/posts', query: { page: '3' }, retryAfter: 1 });
	let sentDuringWait = -1;
	onSleep = async () => {
		const before = fake.control.requests.list().length;
		await realSleep(150);
		sentDuringWait = fake.control.requests.list().length - before;
	};

	const run = await runNode(fake, returnAll());

	expect(run.error).toBeUndefined();
	expect(waits).toEqual([1000]);
	// Only pages already on their way when the 429 came may be answered during the wait.
	expect(sentDuringWait).toBeGreaterThanOrEqual(0);
	expect(sentDuringWait).toBeLessThan(PAGE_CONCURRENCY);
	expect(run.requests).toHaveLength(PAGES + 1);
	expect(new Set(run.items.map((item) => item.json.id)).size).toBe(POSTS);
});

test('a page that fails for good fails the list with its error and stops the pages not yet sent', async () => {
	fake.control.injectFault({ kind: 'error', status: 404, method: 'GET', path: '/feeds/:id/posts', query: { page: '4' }, count: 'always' });
	fake.control.setLatency(10);

	const run = await runNode(fake, returnAll());

	expect(run.error?.message).toBe('Injected 404');
	// Pages still in flight when the run ended are answered afterwards; then nothing more comes.
	await realSleep(400);
	const requests = fake.control.requests.list();
	expect(requests.filter((r) => Number(r.query.page) === 4)).toHaveLength(1);
	// Page 1, the pages in flight with page 4, and those started before page 4 was answered.
	expect(requests.length).toBeLessThanOrEqual(1 + 2 * PAGE_CONCURRENCY);
});

test('several input items share the limit: never more than PAGE_CONCURRENCY requests in flight for the node run, and a 429 on one list holds back the others', async () => {
	const feeds = [bigFeed, fake.control.seedFeed({ posts: POSTS }).feedId, fake.control.seedFeed({ posts: POSTS }).feedId];
	fake.control.setLatency(25);
	fake.control.injectFault({ kind: 'error', status: 429, method: 'GET', path: `/feeds/${feeds[1]}/posts`, query: { page: '6' }, retryAfter: 1 });
	let sentDuringWait = -1;
	onSleep = async () => {
		const before = fake.control.requests.list().length;
		await realSleep(200);
		sentDuringWait = fake.control.requests.list().length - before;
	};

	const run = await runNode(
		fake,
		{ resource: 'post', operation: 'getAll', feedId: feed('={{ $json.feed }}', 'id'), returnAll: true, simplify: false },
		{ items: feeds.map((id) => ({ feed: id })) },
	);

	expect(run.error).toBeUndefined();
	expect(run.requests).toHaveLength(3 * PAGES + 1);
	expect(mostAtOnce(run.requests)).toBeLessThanOrEqual(PAGE_CONCURRENCY);
	expect(sentDuringWait).toBeGreaterThanOrEqual(0);
	expect(sentDuringWait).toBeLessThan(PAGE_CONCURRENCY);
	feeds.forEach((id, index) => {
		const posts = run.items.filter((item) => JSON.stringify(item.pairedItem) === JSON.stringify({ item: index }));
		expect(posts.map((item) => item.json.feed_id)).toEqual(Array(POSTS).fill(id));
		expect(new Set(posts.map((item) => item.json.id)).size).toBe(POSTS);
	});
});

test('Limit: the pages a limit needs are asked at once as well, and no page beyond them', async () => {
	const expected = await servicesOrder();
	const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), limit: 730 });

	expect(run.error).toBeUndefined();
	expect(run.requests.map((r) => Number(r.query.page)).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
	expect(run.items.map((item) => item.json.id)).toEqual(expected.slice(0, 730));
});
