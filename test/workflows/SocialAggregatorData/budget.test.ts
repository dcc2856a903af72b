/**
 * Post › Search with Return All against a key's hourly budget (30 requests, a burst of 10, no Retry-After). A Data API
 * page says only that more is there, not how much, so the search cannot be refused after page 1: it spends what the
 * budget allows and stops before a request the service would refuse, naming what it fetched and paid and the cursors
 * to resume from. Instagram (3 credits a page, 100 pages) and Twitter (1 credit, 10 pages): the full search is 100
 * requests and 310 credits. In both legal shapes of the service's answers (the service documents no rate-limit headers):
 * with `X-RateLimit-*` headers, the stand-in's hour shortened to 3 s, which only its headers tell (real time); without,
 * the documented hour (docs/service.md#rate-limits), counted by the node with the credential's Requests per Hour, on the stand-in's clock.
 */
import { onRealHour } from '../budgetClock';
import { useFakeService } from '../support';
import { isStatus, postsOf, runNode } from './helpers';

const HOUR_S = 3;
const fake = useFakeService({
	port: 0,
	allowHttpWebhooks: true,
	limits: { enabled: true, windowScale: HOUR_S / 3600, retryAfter: false },
});
const KEY_LIMITS = { requestsPerHour: 30, burstPerMinute: 10 };

/** A new hour at the stand-in, with the key's limits. */
function newHour(): void {
	fake.control.rateLimits.clear(fake.control.keys.owner);
	fake.control.rateLimits.set(fake.control.keys.owner, KEY_LIMITS);
}

beforeEach(() => {
	// The file's stand-in: the hour shortened, and so told in X-RateLimit-* headers.
	fake.control.rateLimits.setWindowScale(HOUR_S / 3600);
	fake.control.rateLimits.setHeaders(undefined);
	newHour();
	fake.control.data.configure('Instagram', { pages: 100 });
	fake.control.data.configure('Twitter', { pages: 10 });
	fake.control.data.resetCredits();
});

const search = (options: Record<string, unknown> = {}, budgetWait?: number) => ({
	resource: 'post',
	operation: 'search',
	term: '#budget',
	platforms: ['Instagram', 'Twitter'],
	returnAll: true,
	options,
	requestOptions: budgetWait === undefined ? {} : { budgetWait },
});

const keyOf = (json: Record<string, unknown>) => `${String(json.platform)}|${String(json.platform_id ?? json.url)}`;

/** The cases of one shape: its hour (and how an hour passes), the credential the user has. */
function budgetCases(hour: { ms: number; pass: () => Promise<void>; credential: Record<string, number> }) {
	const credential = hour.credential;
	const allowed = (10 * hour.ms) / 1000;

	test('with a wait allowed above the need: every post once, 100 requests, 310 credits', async () => {
		const run = await runNode(fake, search({}, allowed), { credential });

		expect(run.error).toBeUndefined();
		expect(run.searches.filter((r) => r.status === 200)).toHaveLength(100);
		const posts = postsOf(run.items);
		expect(new Set(posts.map((p) => keyOf(p.json))).size).toBe(posts.length);
		expect(fake.control.data.credits().total).toBe(310);
		expect(run.result.logs.some((line) => /waiting \d+ (s|min): the key's rate-limit budget is spent/.test(line.message))).toBe(true);
		const hints = (run.result.runData['Social Aggregator Data'][0] as { hints?: Array<{ message: string }> }).hints ?? [];
		expect(hints.map((hint) => hint.message)).toEqual([expect.stringMatching(/^Waited \d+ (s|min) in all for the key's rate-limit budget/)]);
	}, 30_000);

	test('without a wait: stops before the request the budget refuses, names the credits paid and the cursors; resumed later, the two runs spend exactly the full search', async () => {
		const full = await runNode(fake, search({}, allowed), { credential });
		const fullKeys = postsOf(full.items).map((p) => keyOf(p.json));
		fake.control.data.resetCredits();
		newHour();
		await hour.pass();

		const failing = await runNode(fake, search(), { credential });
		expect(failing.searches.filter((r) => r.status === 200)).toHaveLength(30);
		// The stand-in's "minute" is 50 ms here, so a fast machine can meet its burst of 10: such a 429 spends nothing
		// and is asked again. The search must stop before a request the hour refuses: its last request was answered.
		expect(failing.searches.at(-1)?.status).toBe(200);
		expect(failing.error?.message).toMatch(/^The key's rate limit allows no more requests now, so the search stopped before its next page/);
		// Rounds 1 to 10 cost 3 + 1, rounds 11 to 30 cost 3.
		expect(failing.error?.description).toMatch(/The next request \(Instagram\) would cost 3 credits \(Instagram 3\)/);
		expect(failing.error?.description).toMatch(/Stopped after 30 requests fetched \d+ posts and spent 100 credits \(Instagram 90 \+ Twitter 10\)\. They are not output/);
		expect(fake.control.data.credits().total).toBe(100);

		fake.control.data.resetCredits();
		newHour();
		await hour.pass();
		const kept = await runNode(fake, search(), { credential, onError: 'continueRegularOutput' });
		const keptPosts = postsOf(kept.items.filter((item) => !('error' in item.json)));
		const statuses = kept.items.filter(isStatus).map((item) => item.json);
		const last = kept.items.at(-1)!.json as { error: string; details: { description: string } };
		expect(last.error).toMatch(/^The key's rate limit allows no more requests now/);
		expect(last.details.description).toMatch(/spent 100 credits \(Instagram 90 \+ Twitter 10\)\. They are output before this error item/);
		expect(last.details.description).toMatch(/search only Instagram with Options → Resume From Cursors \(Instagram: \S+\); each further request costs 3 credits \(Instagram 3\)/);
		const instagram = statuses.find((s) => s.platform === 'Instagram')!;
		expect(instagram).toMatchObject({ success: true, has_more: true, stopped_early: true });
		expect(statuses.find((s) => s.platform === 'Twitter')).toMatchObject({ success: true, has_more: false });
		expect(fake.control.data.credits().total).toBe(100);

		// The next "hour": resumed from the cursor with a wait allowed, it buys only the pages not yet bought.
		await hour.pass();
		const resumed = await runNode(
			fake,
			{ ...search({ resumeCursors: { cursor: [{ platform: 'Instagram', cursor: instagram.next_cursor }] } }, allowed), platforms: ['Instagram'] },
			{ credential },
		);
		expect(resumed.error).toBeUndefined();
		expect(fake.control.data.credits().total).toBe(310);
		const together = [...keptPosts, ...postsOf(resumed.items)].map((p) => keyOf(p.json));
		expect(together).toEqual(fullKeys.filter((key) => together.includes(key)));
		expect(new Set(together)).toEqual(new Set(fullKeys));
		expect(together).toHaveLength(fullKeys.length);
	}, 60_000);

	test('with a wait allowed below the need: stops at the cap with what it fetched and paid, kept with Continue On Fail', async () => {
		const run = await runNode(fake, search({}, 1), { credential, onError: 'continueRegularOutput' });

		expect(run.searches.filter((r) => r.status === 200)).toHaveLength(30);
		const last = run.items.at(-1)!.json as { error: string; details: { description: string } };
		expect(last.error).toMatch(/^The key's rate-limit budget is spent and waiting \d+ (s|min) more would pass the 1 s allowed/);
		expect(last.details.description).toMatch(/Stopped after 30 requests fetched \d+ posts and spent 100 credits/);
		expect(postsOf(run.items).length).toBeGreaterThan(0);
		expect(fake.control.data.credits().total).toBe(100);
	});
}

describe("with X-RateLimit-* headers: the stand-in's hour shortened to 3 s, which only its headers tell", () => {
	budgetCases({ ms: HOUR_S * 1000, pass: async () => await new Promise((resolve) => setTimeout(resolve, HOUR_S * 1000)), credential: {} });
});

describe("without rate-limit headers: the documented hour, counted by the node (on the stand-in's clock)", () => {
	onRealHour(fake, { headers: false, newHour });
	budgetCases({
		ms: 3_600_000,
		pass: async () => {
			fake.control.clock.advance(3_600_000);
		},
		credential: KEY_LIMITS,
	});
});
