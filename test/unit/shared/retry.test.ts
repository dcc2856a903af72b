import {
	backoffDelay,
	decideRetry,
	DEFAULT_RETRY_POLICY,
	isRetryable,
	parseRetryAfter,
	RESET_MARGIN_MS,
	untilReset,
} from '../../../nodes/shared/retry';

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-11-22T10:00:00Z');
	it('reads whole seconds', () => expect(parseRetryAfter('3', now)).toBe(3000));
	it('reads an HTTP date', () => expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:07 GMT', now)).toBe(7000));
	it('never goes below zero for a date in the past', () =>
		expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0));
	it('ignores garbage', () => expect(parseRetryAfter('soon', now)).toBeUndefined());
	it('ignores a missing header', () => expect(parseRetryAfter(undefined, now)).toBeUndefined());
});

describe('untilReset (a 429 without Retry-After)', () => {
	const now = 1_800_000_000_000;
	it('waits until X-RateLimit-Reset, seconds to go or a Unix time, and a little more', () => {
		expect(untilReset('0', '5', now)).toBe(5000 + RESET_MARGIN_MS);
		expect(untilReset(undefined, '5', now)).toBe(5000 + RESET_MARGIN_MS);
		expect(untilReset('0', String(now / 1000 + 12), now)).toBe(12_000 + RESET_MARGIN_MS);
		expect(untilReset('0', String(now / 1000 - 30), now)).toBe(RESET_MARGIN_MS);
		expect(RESET_MARGIN_MS).toBeLessThanOrEqual(1000);
	});
	it('says nothing when the window has requests left (another limit answered: the burst) or the reset is unreadable', () => {
		expect(untilReset('3', '5', now)).toBeUndefined();
		expect(untilReset('0', 'soon', now)).toBeUndefined();
		expect(untilReset('0', undefined, now)).toBeUndefined();
	});
});

describe('isRetryable', () => {
	it('retries a 429 for every method', () => {
		for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const) {
			expect(isRetryable(method, { kind: 'status', statusCode: 429 })).toBe(true);
		}
	});
	it('retries 5xx and network failures only for idempotent methods', () => {
		expect(isRetryable('GET', { kind: 'status', statusCode: 503 })).toBe(true);
		expect(isRetryable('PUT', { kind: 'network', code: 'ECONNRESET' })).toBe(true);
		expect(isRetryable('DELETE', { kind: 'status', statusCode: 500 })).toBe(true);
		expect(isRetryable('POST', { kind: 'status', statusCode: 500 })).toBe(false);
		expect(isRetryable('PATCH', { kind: 'network', code: 'ETIMEDOUT' })).toBe(false);
	});
	it('never retries a client error', () => {
		expect(isRetryable('GET', { kind: 'status', statusCode: 422 })).toBe(false);
		expect(isRetryable('GET', { kind: 'status', statusCode: 401 })).toBe(false);
	});
});

describe('backoffDelay', () => {
	const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1000, maxDelayMs: 8000 };
	it('grows exponentially and stays within the cap', () => {
		const low = [1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, () => 0));
		const high = [1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, () => 1));
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
