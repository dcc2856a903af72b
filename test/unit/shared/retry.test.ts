import { decideRetry, DEFAULT_RETRY_POLICY, RESET_MARGIN_MS, type AttemptOutcome, type RetryPolicy } from '../../../nodes/shared/retry';

/** A policy that allows every wait the tests ask about. */
const WIDE: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 10, maxTotalWaitMs: Number.POSITIVE_INFINITY };

/** The wait before retry `attempt` of a GET that ended with `outcome`, at `now`, with `random` for the backoff. */
function waitAfter(outcome: AttemptOutcome, now: number, options: { attempt?: number; policy?: RetryPolicy; random?: () => number } = {}) {
	const decision = decideRetry('GET', outcome, options.attempt ?? 1, 0, options.policy ?? WIDE, { now: () => now, random: options.random ?? (() => 0.5) });
	return decision.retry ? decision.delayMs : undefined;
}

/** Whether a first attempt of `method` that ended with `outcome` is retried. */
const retried = (method: Parameters<typeof decideRetry>[0], outcome: AttemptOutcome) => decideRetry(method, outcome, 1, 0, WIDE).retry;

describe('Retry-After', () => {
	const now = Date.parse('2026-11-22T10:00:00Z');
	const after = (retryAfter: string | undefined) => waitAfter({ kind: 'status', statusCode: 429, retryAfter }, now);
	it('reads whole seconds', () => expect(after('3')).toBe(3000));
	it('reads an HTTP date', () => expect(after('Sun, 22 Nov 2026 10:00:07 GMT')).toBe(7000));
	it('never goes below zero for a date in the past', () => expect(after('Sun, 22 Nov 2026 09:00:00 GMT')).toBe(0));
	it('ignores garbage: the rate-limit window instead', () => expect(after('soon')).toBe(WIDE.rateLimitWindowMs));
	it('ignores a missing header: the rate-limit window instead', () => expect(after(undefined)).toBe(WIDE.rateLimitWindowMs));
});

describe('X-RateLimit-Reset (a 429 without Retry-After)', () => {
	const now = 1_800_000_000_000;
	const until = (limitRemaining: string | undefined, limitReset: string | undefined) =>
		waitAfter({ kind: 'status', statusCode: 429, limitRemaining, limitReset }, now);
	it('waits until X-RateLimit-Reset, seconds to go or a Unix time, and a little more', () => {
		expect(until('0', '5')).toBe(5000 + RESET_MARGIN_MS);
		expect(until(undefined, '5')).toBe(5000 + RESET_MARGIN_MS);
		expect(until('0', String(now / 1000 + 12))).toBe(12_000 + RESET_MARGIN_MS);
		expect(until('0', String(now / 1000 - 30))).toBe(RESET_MARGIN_MS);
		expect(RESET_MARGIN_MS).toBeLessThanOrEqual(1000);
	});
	it('says nothing when the window has requests left (another limit answered: the burst) or the reset is unreadable', () => {
		expect(until('3', '5')).toBe(WIDE.rateLimitWindowMs);
		expect(until('0', 'soon')).toBe(WIDE.rateLimitWindowMs);
		expect(until('0', undefined)).toBe(WIDE.rateLimitWindowMs);
	});
});

describe('what is retried', () => {
	it('a 429 for every method', () => {
		for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const) {
			expect(retried(method, { kind: 'status', statusCode: 429 })).toBe(true);
		}
	});
	it('5xx and network failures only for idempotent methods', () => {
		expect(retried('GET', { kind: 'status', statusCode: 503 })).toBe(true);
		expect(retried('PUT', { kind: 'network', code: 'ECONNRESET' })).toBe(true);
		expect(retried('DELETE', { kind: 'status', statusCode: 500 })).toBe(true);
		expect(retried('POST', { kind: 'status', statusCode: 500 })).toBe(false);
		expect(retried('PATCH', { kind: 'network', code: 'ETIMEDOUT' })).toBe(false);
	});
	it('never a client error', () => {
		expect(retried('GET', { kind: 'status', statusCode: 422 })).toBe(false);
		expect(retried('GET', { kind: 'status', statusCode: 401 })).toBe(false);
	});
});

describe('backoff', () => {
	const policy = { ...WIDE, baseDelayMs: 1000, maxDelayMs: 8000 };
	it('grows exponentially and stays within the cap', () => {
		const backoff = (attempt: number, random: () => number) => waitAfter({ kind: 'status', statusCode: 503 }, 0, { attempt, policy, random });
		const low = [1, 2, 3, 4, 5, 6].map((n) => backoff(n, () => 0));
		const high = [1, 2, 3, 4, 5, 6].map((n) => backoff(n, () => 1));
		expect(low).toEqual([500, 1000, 2000, 4000, 4000, 4000]);
		expect(high).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
	});
});

describe('decideRetry', () => {
	const timing = { random: () => 0.5, now: () => 0 };
	it('waits what Retry-After asks', () => {
		expect(decideRetry('GET', { kind: 'status', statusCode: 429, retryAfter: '3' }, 1, 0, DEFAULT_RETRY_POLICY, timing)).toEqual({
			retry: true,
			delayMs: 3000,
		});
	});
	it('waits until X-RateLimit-Reset for a 429 without Retry-After, not the rate-limit window; Retry-After wins', () => {
		const limited = { kind: 'status' as const, statusCode: 429, limitRemaining: '0', limitReset: '5' };
		expect(decideRetry('GET', limited, 1, 0, DEFAULT_RETRY_POLICY, timing)).toEqual({ retry: true, delayMs: 5000 + RESET_MARGIN_MS });
		expect(decideRetry('GET', { ...limited, retryAfter: '2' }, 1, 0, DEFAULT_RETRY_POLICY, timing)).toEqual({ retry: true, delayMs: 2000 });
		expect(decideRetry('GET', { ...limited, limitRemaining: '4' }, 1, 0, DEFAULT_RETRY_POLICY, timing)).toEqual({
			retry: true,
			delayMs: DEFAULT_RETRY_POLICY.rateLimitWindowMs,
		});
		// A reset on another status is no reason to wait for it.
		expect(decideRetry('GET', { kind: 'status', statusCode: 503, limitRemaining: '0', limitReset: '50' }, 1, 0, DEFAULT_RETRY_POLICY, timing)).toEqual({
			retry: true,
			delayMs: 750,
		});
	});
	it('stops after the last attempt', () => {
		const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 };
		expect(decideRetry('GET', { kind: 'status', statusCode: 429 }, 3, 0, policy, timing)).toEqual({
			retry: false,
			reason: 'attempts',
		});
	});
	it('stops when the wait would exceed the budget', () => {
		const policy = { ...DEFAULT_RETRY_POLICY, maxTotalWaitMs: 10_000 };
		expect(
			decideRetry('GET', { kind: 'status', statusCode: 429, retryAfter: '4' }, 2, 7_000, policy, timing),
		).toEqual({ retry: false, reason: 'budget' });
	});
	it('does not retry what may have been acted on', () => {
		expect(decideRetry('POST', { kind: 'status', statusCode: 500 }, 1, 0, DEFAULT_RETRY_POLICY, timing)).toEqual({
			retry: false,
			reason: 'final',
		});
	});
});
