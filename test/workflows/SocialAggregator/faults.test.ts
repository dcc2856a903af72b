/**
 * Right under every rate limit, every fault and every bad input: a rate limit without
 * Retry-After waited out by one request while the others wait with it; the longest wait
 * the user sets; a DELETE whose first attempt may have deleted; a create whose answer was
 * lost; and every check that can be made before a request made before it.
 */
import { SEEDED } from '../../fake-service';
import { PAGE_CONCURRENCY } from '../../../nodes/shared/requestGate';
import { fastSleep, useFakeService } from '../support';
import { feed, runNode, statusesByPage } from './helpers';

const fake = useFakeService();
let waits: number[];
let onSleep: (ms: number) => Promise<void>;
let restoreSleep: () => void;

beforeEach(() => {
	onSleep = async () => {};
	const sleep = fastSleep(async (ms) => await onSleep(ms));
	waits = sleep.waits;
	restoreSleep = sleep.restore;
});

afterEach(() => {
	restoreSleep();
	fake.control.rateLimits.setEnabled(false);
	fake.control.rateLimits.setWindowScale(1);
	fake.control.rateLimits.setRetryAfter(true);
});

const realSleep = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));
const F = SEEDED.feeds;

describe('a rate limit without Retry-After', () => {
	const POSTS = 2050; // 21 pages of 100
	const PAGES = 21;

	test('two Return Alls in a row: every post once, in order; one request waits out each window, so a window end costs at most PAGE_CONCURRENCY 429s', async () => {
		const bigFeed = fake.control.seedFeed({ posts: POSTS }).feedId;
		const expected = (await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), returnAll: true })).items.map(
			(item) => item.json.id,
		);
		expect(expected).toHaveLength(POSTS);

		fake.control.rateLimits.setEnabled(true);
		fake.control.rateLimits.setRetryAfter(false);
		// A minute of 240 ms, 10 requests in it.
		fake.control.rateLimits.setWindowScale(0.004);
		fake.control.rateLimits.set(fake.control.keys.owner, { burstPerMinute: 10, requestsPerHour: null });
		// The node waits the documented minute; here that is the scaled window.
		onSleep = async (ms) => await realSleep(ms * 0.004);

		for (let run = 1; run <= 2; run++) {
			waits.length = 0;
			const result = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(bigFeed), returnAll: true });
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json.id)).toEqual(expected);
			const limited = result.requests.filter((r) => r.status === 429);
			expect(limited.length + PAGES).toBe(result.requests.length);
			// Each window's end: one wait of a whole window, by one request.
			expect(waits.length).toBeGreaterThan(0);
			expect(waits.every((ms) => ms === 60_000)).toBe(true);
			expect(limited.length).toBeLessThanOrEqual(PAGE_CONCURRENCY * waits.length);
			expect([...statusesByPage(result.requests).values()].every((statuses) => statuses.at(-1) === 200)).toBe(true);
		}
	});

	test('Max Retry Wait under Request Options bounds the wait: a window longer than it fails at once, saying what to raise', async () => {
		fake.control.injectFault({ kind: 'error', status: 429, method: 'GET', path: '/account', retryAfter: null });
		const run = await runNode(fake, { resource: 'account', operation: 'get', requestOptions: { maxRetryWait: 30 } });
		expect(run.requests.map((r) => r.status)).toEqual([429]);
		expect(waits).toEqual([]);
		expect(run.error?.message).toBe('The service kept answering 429 (rate limit exceeded) after 1 attempt and 0 s of waiting');
		expect(run.error?.description).toContain('raise "Max Retry Wait (Seconds)" under the node\'s Request Options');
	});

	test('a Max Retry Wait that is not a number of seconds is refused before any request', async () => {
		const run = await runNode(fake, { resource: 'account', operation: 'get', requestOptions: { maxRetryWait: '={{ -5 }}' } });
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toBe('Invalid Max Retry Wait (Seconds) (item 0): -5 is not a number of seconds of 0 or more');
	});
});

describe('a request whose answer was lost', () => {
	test('a DELETE retried after the connection dropped once the service had deleted: the 404 of the repeat is a success, with a note', async () => {
		fake.control.injectFault({ kind: 'drop', method: 'DELETE', path: '/feeds/:id', when: 'after' });
		const run = await runNode(fake, { resource: 'feed', operation: 'delete', feedId: feed(F.reviews) });
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => [r.method, r.fault === null ? r.status : 'dropped'])).toEqual([
			['DELETE', 'dropped'],
			['DELETE', 404],
		]);
		expect(run.items.map((item) => item.json)).toEqual([
			{ deleted: true, id: F.reviews, note: expect.stringMatching(/^It was already gone/) },
		]);
		expect((await runNode(fake, { resource: 'feed', operation: 'get', feedId: feed(F.reviews) })).error?.httpCode).toBe('404');
	});

	test('a DELETE of something that never existed still fails: only a repeat after a lost answer counts a 404 as done', async () => {
		const run = await runNode(fake, { resource: 'feed', operation: 'delete', feedId: feed(987654) });
		expect(run.requests.map((r) => r.status)).toEqual([404]);
		expect(run.error?.httpCode).toBe('404');
	});

	test('a create whose connection drops after the service acted says it may have been done, names the list to check, and is not repeated', async () => {
		fake.control.injectFault({ kind: 'drop', method: 'POST', path: '/feeds', when: 'after' });
		const run = await runNode(fake, { resource: 'feed', operation: 'create', name: 'Only once' });
		expect(run.requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/^The connection to the service failed after the request was sent \(\w+\); its answer never came$/);
		expect(run.error?.description).toBe(
			'The service may have acted on the request. Running the node again could do it a second time: first check whether the feed exists (Feed › Get Many), and run again only if it was not.',
		);
		const feeds = await runNode(fake, { resource: 'feed', operation: 'getAll', returnAll: true });
		expect(feeds.items.filter((item) => item.json.name === 'Only once')).toHaveLength(1);
	});

	test('a create that could not connect at all was never sent: that error says so, and to check the Base URL', async () => {
		const run = await runNode(fake, { resource: 'feed', operation: 'create', name: 'Never sent' }, { baseUrl: 'http://127.0.0.1:1/v1' });
		expect(run.error?.message).toBe('The service could not be reached (ECONNREFUSED) after 1 attempt');
		expect(run.error?.description).toContain('Check the Base URL');
	});
});

describe('checks before any request, naming the field and the item', () => {
	test.each([0, -1, 2.5, '={{ "many" }}'])('Limit %p on Post › Get Many', async (limit) => {
		const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(F.brandMentions), limit });
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toMatch(/^Invalid Limit \(item 0\): .* is not a whole number of 1 or more$/);
	});

	test('Limit 0 on a list the service answers whole (Platform › Get Many)', async () => {
		const run = await runNode(fake, { resource: 'platform', operation: 'getAll', limit: 0 });
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toBe('Invalid Limit (item 0): 0 is not a whole number of 1 or more');
	});

	test('a role other than manager or collaborator is not sent', async () => {
		const run = await runNode(fake, { resource: 'user', operation: 'invite', email: 'x@acme.example', role: '={{ "owner" }}' });
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toBe('The Role must be "manager" or "collaborator", not "owner" [item 0]');
	});

	test('a webhook URL that is not HTTPS is refused unless Allow HTTP URL is on, on create and on update', async () => {
		const create = { resource: 'webhook', operation: 'create', url: 'http://127.0.0.1:9/hook', events: ['post.created'] };
		const refused = await runNode(fake, create);
		expect(refused.requests).toEqual([]);
		expect(refused.error?.message).toBe(
			'The URL "http://127.0.0.1:9/hook" is not an HTTPS address: the service delivers webhooks to https:// addresses only [item 0]',
		);
		expect(refused.error?.description).toContain('Allow HTTP URL (Local Testing Only)');

		const allowed = await runNode(fake, { ...create, options: { allowHttp: true } });
		expect(allowed.error).toBeUndefined();
		expect(allowed.requests.map((r) => [r.method, r.status])).toEqual([['POST', 201]]);

		const update = { resource: 'webhook', operation: 'update', webhookId: String(allowed.items[0].json.id), updateFields: { url: 'http://example.com/h' } };
		const updateRefused = await runNode(fake, update);
		expect(updateRefused.requests).toEqual([]);
		expect(updateRefused.error?.message).toMatch(/is not an HTTPS address/);
		expect((await runNode(fake, { ...update, options: { allowHttp: true } })).requests.map((r) => r.status)).toEqual([200]);
	});

	test.each([
		['without the version prefix', (url: string) => url.replace(/\/v1$/, ''), /does not end in the version prefix \/v1/],
		['with a path after it', (url: string) => `${url}/feeds`, /goes on after the version prefix \(\/feeds\)/],
		['not a URL', () => 'api.example.com/v1', /is not a web address/],
		['plain http to another machine', () => 'http://api.example.com/v1', /uses plain http/],
	])('a credential Base URL %s is refused, naming the credential field', async (_case, make, reason) => {
		const run = await runNode(fake, { resource: 'feed', operation: 'get', feedId: feed(F.reviews) }, { baseUrl: make(fake.url) });
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toMatch(/^Invalid Base URL \(of the Social Aggregator API credential\) \(item 0\): /);
		expect(run.error?.message).toMatch(reason);
		expect(run.error?.description).toContain('https://api.example.com/v1');
	});
});
