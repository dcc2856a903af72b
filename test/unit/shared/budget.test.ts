import { BudgetLedger, DEFAULT_LIMITS, ledgerFor, platformCredits } from '../../../nodes/shared/budget';

const limits = { perWindow: 30, windowMs: 20_000, burst: 10 };

/** A ledger with `count` answers at `at`. */
function spent(count: number, at = 0): BudgetLedger {
	const ledger = new BudgetLedger(limits);
	for (let i = 0; i < count; i++) {
		ledger.reserve(at);
		ledger.settle(at, { statusCode: 200 });
	}
	return ledger;
}

/** `X-RateLimit-*` headers, those given. */
function limitHeaders(told: { limit?: number; remaining?: number; reset?: number }): Record<string, string> {
	const headers: Record<string, string> = {};
	if (told.limit !== undefined) headers['X-RateLimit-Limit'] = String(told.limit);
	if (told.remaining !== undefined) headers['X-RateLimit-Remaining'] = String(told.remaining);
	if (told.reset !== undefined) headers['X-RateLimit-Reset'] = String(told.reset);
	return headers;
}

/** One request sent at `sentAt` and answered at `at`, with `X-RateLimit-*` headers when given. */
function answer(ledger: BudgetLedger, at: number, told: { limit?: number; remaining?: number; reset?: number }, sentAt = at): void {
	ledger.reserve(sentAt);
	ledger.settle(at, { statusCode: 200, headers: limitHeaders(told) });
}

/** A repeatable random number source (mulberry32). */
function seeded(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * A service counting fixed windows of 3 s, 10 requests each (a window starts at the first request after the last one
 * ended), sending as many requests as the ledger allows over 200 seeded runs, each answer read `latency` ms after it
 * was counted, in the order they arrive. Returns each time the ledger allowed more than the service had left.
 */
function againstFixedWindows(latency: (random: () => number) => number): { passed: string[]; sent: number; windows: number } {
	const WINDOW = 3000;
	const LIMIT = 10;
	const passed: string[] = [];
	let sent = 0;
	let windows = 0;
	for (let seed = 1; seed <= 200; seed++) {
		const random = seeded(seed);
		const ledger = new BudgetLedger({ perWindow: 300, windowMs: 3_600_000, burst: 0 });
		const service = { start: -Infinity, count: 0 };
		const pending: Array<{ at: number; headers: Record<string, string> }> = [];
		let now = 0;
		let told = false;
		for (let step = 0; step < 300; step++) {
			now += Math.floor(random() * 40);
			if (now >= service.start + WINDOW) {
				Object.assign(service, { start: now, count: 0 });
				windows++;
			}
			// Answers due by now are read, in the order they arrive.
			pending.sort((a, b) => a.at - b.at);
			while (pending.length > 0 && pending[0].at <= now) {
				ledger.settle(now, { statusCode: 200, headers: pending.shift()!.headers });
				told = true;
			}
			// Until the first answer, only the first request is sent: nothing is known of the service.
			if (!told && service.count > 0) continue;
			if (told && ledger.left(now) > LIMIT - service.count) passed.push(`seed ${seed} at ${now}: ${ledger.left(now)} > ${LIMIT - service.count}`);
			if (ledger.left(now) === 0) continue;
			ledger.reserve(now);
			service.count++;
			sent++;
			const reset = Math.ceil((service.start + WINDOW - now) / 1000);
			const headers = { 'x-ratelimit-limit': String(LIMIT), 'x-ratelimit-remaining': String(LIMIT - service.count), 'x-ratelimit-reset': String(reset) };
			pending.push({ at: now + latency(random), headers });
		}
	}
	return { passed, sent, windows };
}

describe('BudgetLedger without headers (what this process counted)', () => {
	test('the documented defaults (docs/service.md#rate-limits): 300 an hour, 60 a minute', () => {
		expect(DEFAULT_LIMITS).toEqual({ perWindow: 300, windowMs: 3_600_000, burst: 60 });
	});

	test('counts answers in a sliding window; a 429 and a failed attempt spend nothing', () => {
		const ledger = spent(1);
		ledger.reserve(5);
		ledger.settle(5, { statusCode: 429 });
		ledger.reserve(6);
		ledger.settle(6);
		expect(ledger.left(10)).toBe(29);
		expect(ledger.left(20_000)).toBe(30);
	});

	test('requests in flight count against what is left', () => {
		const ledger = spent(28);
		ledger.reserve(1);
		expect(ledger.left(1)).toBe(1);
		ledger.reserve(1);
		expect(ledger.left(1)).toBe(0);
		expect(ledger.freesAt(1)).toBe(20_000);
	});

	test('a plan of 99 more after 1: 29 now, then 30 at each window: 60 s of waiting in all', () => {
		const plan = spent(1).plan(99, 100);
		expect(plan).toMatchObject({ needed: 99, left: 29, freesAt: 20_000, told: false });
		// Request 100 goes three windows after request 70, which went at 100.
		expect(plan.waitMs).toBe(3 * 20_000);
	});

	test('a plan that fits needs no wait', () => {
		expect(spent(1).plan(29, 0).waitMs).toBe(0);
	});

	test('a 429 is the hour spent only when this process has spent it; else it is left to the retry policy', () => {
		expect(spent(30).spentWindow(1)).toBe(true);
		expect(spent(5).spentWindow(1)).toBe(false);
		expect(new BudgetLedger({ ...limits, perWindow: 0 }).left(0)).toBe(Number.POSITIVE_INFINITY);
	});
});

describe('BudgetLedger with X-RateLimit-* headers (what the service says)', () => {
	test('the headers win over the count, and a plan waits for their reset and then windows of the length they tell', () => {
		// The credential knows only the documented hour; the service counts 20 s windows and says so.
		const ledger = new BudgetLedger({ ...limits, windowMs: 3_600_000 });
		answer(ledger, 0, { limit: 30, remaining: 29, reset: 20 });
		expect(ledger.windowMs()).toBe(20_000);
		expect(ledger.burstWindowMs()).toBeCloseTo(20_000 / 60);
		answer(ledger, 5000, { limit: 30, remaining: 10, reset: 15 });
		expect(ledger.left(5000)).toBe(10);
		const plan = ledger.plan(50, 5000);
		expect(plan).toMatchObject({ left: 10, freesAt: 20_000, told: true });
		expect(plan.limits).toMatchObject({ perWindow: 30, windowMs: 20_000 });
		// 10 now, 30 at the reset, 10 a window later.
		expect(plan.waitMs).toBe(15_000 + 20_000);
		expect(ledger.left(20_000)).toBe(30);
	});

	test('an older answer read after a newer one never raises what is left of the same window', () => {
		const ledger = new BudgetLedger(limits);
		// Five requests sent at 900, their answers read one by one.
		answer(ledger, 1000, { limit: 30, remaining: 2, reset: 10 }, 900);
		// Counted earlier, answered later: the whole seconds to go reckoned from a later now give a later reset.
		answer(ledger, 1400, { limit: 30, remaining: 6, reset: 10 }, 900);
		answer(ledger, 1450, { limit: 30, remaining: 4, reset: 9 }, 900);
		expect(ledger.left(1500)).toBe(2);
		answer(ledger, 1600, { limit: 30, remaining: 0, reset: 9 }, 900);
		answer(ledger, 1700, { limit: 30, remaining: 1, reset: 10 }, 900);
		expect(ledger.left(1700)).toBe(0);
		// The window ends at the earliest reset reckoned.
		expect(ledger.freesAt(1700)).toBe(10_450);
		expect(ledger.spentWindow(1700)).toBe(true);
	});

	test('a later reset starts a new window; an earlier window answer read late says nothing', () => {
		const ledger = new BudgetLedger(limits);
		answer(ledger, 0, { limit: 30, remaining: 0, reset: 10 });
		answer(ledger, 10_100, { limit: 30, remaining: 29, reset: 10 });
		expect(ledger.left(10_100)).toBe(29);
		// An answer of the window that ended, held up on its way.
		answer(ledger, 10_200, { limit: 30, remaining: 0, reset: 1 }, 9500);
		expect(ledger.left(10_200)).toBe(29);
	});

	test('once the told window has ended and before the next answer: its limit again, less what was answered since', () => {
		const ledger = new BudgetLedger(limits);
		answer(ledger, 0, { limit: 5, remaining: 0, reset: 10 });
		for (const at of [10_000, 10_001, 10_002]) answer(ledger, at, {});
		expect(ledger.left(10_003)).toBe(2);
		for (const at of [10_003, 10_004]) answer(ledger, at, {});
		expect(ledger.left(10_005)).toBe(0);
		// Never "now" again: a request waiting for the budget waits, it does not spin.
		expect(ledger.freesAt(10_005)).toBeGreaterThan(10_005);
	});

	test('a service counting fixed windows, answers read out of order: what the ledger allows never passes what the service has left', () => {
		const { passed, sent, windows } = againstFixedWindows((random) => Math.floor(random() * 300));
		expect(passed).toEqual([]);
		// The budget is used, not just held back: most of every window's requests are sent.
		expect(sent).toBeGreaterThan(0.8 * 10 * windows);
	});

	test('the same with some answers read a window or more after they were counted: still never more than the service has left', () => {
		const { passed, sent, windows } = againstFixedWindows((random) => (random() < 0.05 ? Math.floor(random() * 4500) : Math.floor(random() * 300)));
		expect(passed).toEqual([]);
		expect(sent).toBeGreaterThan(0.5 * 10 * windows);
	});

	test('a late answer of the window that ended never moves the next window\'s reset earlier: a 2 s window, an answer read 0.7 s after it was sent', () => {
		// The service: 3 requests per 2 s window, a window starting at the first request after the last one ended.
		const ledger = new BudgetLedger(limits);
		const told = (remaining: number, reset: number) => ({ limit: 3, remaining, reset });
		answer(ledger, 50, told(2, 2), 0);
		answer(ledger, 1050, told(1, 1), 1000);
		// C, sent at 1900 and counted at 1950 as the window's last (Reset: 1), is answered only at 2600.
		expect(ledger.left(1900)).toBe(1);
		ledger.reserve(1900);
		// The reset reckoned (2050) has passed: D and E start the next window at the service (2050 to 4050).
		expect(ledger.left(2050)).toBe(2);
		ledger.reserve(2050);
		ledger.reserve(2050);
		ledger.settle(2100, { statusCode: 200, headers: limitHeaders(told(2, 2)) });
		ledger.settle(2100, { statusCode: 200, headers: limitHeaders(told(1, 2)) });
		// C's answer: it was counted in the window that ended, but its reset, reckoned from when it is read, is 3600.
		ledger.settle(2600, { statusCode: 200, headers: limitHeaders(told(0, 1)) });
		// At 3600 the service's window still has 1 request left, until 4050.
		expect(ledger.left(3600)).toBeLessThanOrEqual(1);
		expect(ledger.freesAt(3600)).toBeGreaterThanOrEqual(4050);
	});

	test('remaining 0 with a reset beyond the burst minute: the hour is spent', () => {
		const ledger = new BudgetLedger(limits);
		ledger.reserve(0);
		ledger.settle(0, { statusCode: 429, headers: { 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '12' } });
		expect(ledger.spentWindow(0)).toBe(true);
		expect(ledger.freesAt(0)).toBe(12_000);
	});
});

test('one ledger per key and service, its limits from the latest credential', () => {
	const a = ledgerFor('http://127.0.0.1:1/v1', 'key-a', limits);
	expect(ledgerFor('http://127.0.0.1:1/v1', 'key-a', { ...limits, perWindow: 60 })).toBe(a);
	expect(a.limits.perWindow).toBe(60);
	expect(ledgerFor('http://127.0.0.1:1/v1', 'key-b', limits)).not.toBe(a);
});

test('credits per platform page (docs/service.md#credits)', () => {
	expect(['Bluesky', 'Instagram', 'LinkedIn', 'TikTok', 'Facebook', 'Twitter'].map(platformCredits)).toEqual([1, 3, 3, 3, 6, 1]);
});
