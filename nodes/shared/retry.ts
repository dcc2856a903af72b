import { sleep } from 'n8n-workflow';
import type { IHttpRequestMethods } from 'n8n-workflow';

import { spentWindowReset } from './rateLimitHeaders';

export interface RetryPolicy {
	/** Attempts in all, the first one included. */
	maxAttempts: number;
	/** The most time spent waiting between attempts of one request. */
	maxTotalWaitMs: number;
	/** The first backoff wait when the service gives no Retry-After. */
	baseDelayMs: number;
	/** The longest single backoff wait. */
	maxDelayMs: number;
	/** The wait after a 429 without Retry-After or a told reset: the burst minute (docs/service.md#rate-limits), so the retry lands in a new one. */
	rateLimitWindowMs: number;
}

/** The longest a request waits in all for its retries unless the user sets another (Request Options). */
export const DEFAULT_MAX_WAIT_MS = 300_000;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxAttempts: 6,
	maxTotalWaitMs: DEFAULT_MAX_WAIT_MS,
	baseDelayMs: 1_000,
	maxDelayMs: 30_000,
	rateLimitWindowMs: 60_000,
};

/** The retries' clock: n8n-workflow's `sleep` (nodes may not use timers); tests replace it to observe the waits. */
export const retryTiming = {
	sleep: async (ms: number): Promise<void> => await sleep(ms),
	random: (): number => Math.random(),
	now: (): number => Date.now(),
};

/** What one attempt ended with; a status's headers as sent (Retry-After, X-RateLimit-Remaining and -Reset). */
export type AttemptOutcome =
	| { kind: 'status'; statusCode: number; retryAfter?: string; limitRemaining?: string; limitReset?: string }
	| { kind: 'network'; code?: string }
	/** An answer came but could not be read: `reason` says why, `statusCode` when known. */
	| { kind: 'malformed'; reason: string; statusCode?: number };

type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: 'final' | 'attempts' | 'budget' };

const IDEMPOTENT: IHttpRequestMethods[] = ['GET', 'HEAD', 'PUT', 'DELETE'];

const TRANSIENT_STATUSES = [500, 502, 503, 504];

export function isIdempotent(method: IHttpRequestMethods): boolean {
	return IDEMPOTENT.includes(method);
}

/** A 429 means the service did not act, so every method retries it; anything else only requests safe to repeat. */
function isRetryable(method: IHttpRequestMethods, outcome: AttemptOutcome): boolean {
	if (outcome.kind === 'status' && outcome.statusCode === 429) return true;
	return (outcome.kind !== 'status' || TRANSIENT_STATUSES.includes(outcome.statusCode)) && isIdempotent(method);
}

/** `Retry-After` in milliseconds: whole seconds or an HTTP date. */
function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
	const trimmed = value?.trim();
	if (!trimmed) return undefined;
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - nowMs);
}

/**
 * Added to a wait until a told reset: the service's clock and this one may differ a little, and a retry a moment
 * early would spend another 429.
 */
export const RESET_MARGIN_MS = 500;

/** A 429's wait until the reset of the window it spent (`X-RateLimit-*`), and a little more; undefined when none is told. */
function untilReset(remaining: string | undefined, reset: string | undefined, nowMs: number): number | undefined {
	const at = spentWindowReset(remaining, reset, nowMs);
	return at === undefined ? undefined : Math.max(0, at - nowMs) + RESET_MARGIN_MS;
}

/** Exponential backoff for retry number `retry` (1-based), half fixed and half random so concurrent clients spread. */
function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
	const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
	return Math.round(step / 2 + (step / 2) * random());
}

/** The decision after attempt `attempt` (1-based) ended with `outcome`, given the time this request already waited. */
export function decideRetry(
	method: IHttpRequestMethods,
	outcome: AttemptOutcome,
	attempt: number,
	waitedMs: number,
	policy: RetryPolicy,
	timing: Pick<typeof retryTiming, 'random' | 'now'> = retryTiming,
): RetryDecision {
	if (!isRetryable(method, outcome)) return { retry: false, reason: 'final' };
	if (attempt >= policy.maxAttempts) return { retry: false, reason: 'attempts' };
	const rateLimited = outcome.kind === 'status' && outcome.statusCode === 429;
	const asked =
		outcome.kind === 'status'
			? (parseRetryAfter(outcome.retryAfter, timing.now()) ??
				(rateLimited ? untilReset(outcome.limitRemaining, outcome.limitReset, timing.now()) : undefined))
			: undefined;
	const delayMs = asked ?? (rateLimited ? policy.rateLimitWindowMs : backoffDelay(attempt, policy, timing.random));
	if (waitedMs + delayMs > policy.maxTotalWaitMs) return { retry: false, reason: 'budget' };
	return { retry: true, delayMs };
}
