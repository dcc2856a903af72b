import { BudgetLedger, DEFAULT_LIMITS, ledgerFor, platformCredits, toldLimits } from '../../../nodes/shared/budget';

const limits = { perWindow: 30, windowMs: 20_000, burst: 10 };

/** A ledger with `count` answers at `at`. */
function spent(count: number, at = 0): BudgetLedger {
	const ledger = new BudgetLedger(limits);
	for (let i = 0; i < count; i++) {
		ledger.reserve();
		ledger.settle(at, { statusCode: 200 });
	}
	return ledger;
}

describe('BudgetLedger without headers (what this process counted)', () => {
	test('SPEC.md defaults: 300 an hour, 60 a minute', () => {
		expect(DEFAULT_LIMITS).toEqual({ perWindow: 300, windowMs: 3_600_000, burst: 60 });
	});

	test('counts answers in a sliding window; a 429 and a failed attempt spend nothing', () => {
		const ledger = spent(1);
		ledger.reserve();
		ledger.settle(5, { statusCode: 429 });
		ledger.reserve();
		ledger.settle(6);
		expect(ledger.left(10)).toBe(29);
		expect(ledger.left(20_000)).toBe(30);
	});

	test('requests in flight count against what is left', () => {
		const ledger = spent(28);
		ledger.reserve();
		expect(ledger.left(1)).toBe(1);
		ledger.reserve();
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
	test('the headers win over the count, and a plan waits for their reset', () => {
		const ledger = spent(1);
		ledger.reserve();
		ledger.settle(1000, { statusCode: 200, headers: { 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '10', 'X-RateLimit-Reset': '15' } });
		expect(ledger.left(1000)).toBe(10);
		const plan = ledger.plan(50, 1000);
		expect(plan).toMatchObject({ left: 10, freesAt: 16_000, told: true });
		// 10 now, 30 at the reset, 10 a window later.
		expect(plan.waitMs).toBe(15_000 + 20_000);
		expect(ledger.left(16_000)).toBe(30);
	});

	test('headers read in any case, the reset as seconds or as a Unix time; incomplete or unreadable ones are ignored', () => {
		expect(toldLimits({ 'x-ratelimit-limit': '300', 'X-RATELIMIT-REMAINING': '7', 'x-ratelimit-reset': '60' }, 0)).toEqual({ limit: 300, remaining: 7, resetAt: 60_000 });
		expect(toldLimits({ 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '1800000000' }, 0)?.resetAt).toBe(1_800_000_000_000);
		expect(toldLimits({ 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '7' }, 0)).toBeUndefined();
		expect(toldLimits({ 'x-ratelimit-limit': 'many', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '1' }, 0)).toBeUndefined();
	});

	test('remaining 0 with a reset beyond the burst minute: the hour is spent', () => {
		const ledger = new BudgetLedger(limits);
		ledger.reserve();
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

test('credits per platform page (SERVICE-NOTES.md)', () => {
	expect(['Bluesky', 'Instagram', 'LinkedIn', 'TikTok', 'Facebook', 'Twitter'].map(platformCredits)).toEqual([1, 3, 3, 3, 6, 1]);
});
