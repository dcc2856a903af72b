/**
 * What a response's `X-RateLimit-*` headers say (docs/service.md#rate-limits: the service documents none; where it
 * sends them, they win): read once here for the key's budget and for the wait after a 429.
 */

import { headerValue } from './utils';

/** What the service said in its `X-RateLimit-*` headers about one window. */
export interface Told {
	limit: number;
	remaining: number;
	/** The latest the window can reset: never later than this. */
	resetAt: number;
	/**
	 * The earliest: the reset lies after this. `X-RateLimit-Reset` counts whole seconds to go from when the service
	 * counted the request, which lies between when it was sent and when its answer was read.
	 */
	resetAfter: number;
}

/** A number a rate-limit header holds, or undefined. */
function headerNumber(text: string | undefined): number | undefined {
	const trimmed = text?.trim();
	return trimmed && /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : undefined;
}

/** `X-RateLimit-Reset` as a time: seconds to go, or (past a billion) a Unix time in seconds. */
function resetTime(text: string | undefined, now: number): number | undefined {
	const reset = headerNumber(text);
	if (reset === undefined) return undefined;
	return reset > 1e9 ? reset * 1000 : now + reset * 1000;
}

/**
 * `X-RateLimit-Limit`, `-Remaining` and `-Reset` (seconds to go, or a Unix time in seconds) when all three are there
 * and readable, in an answer read `now` to a request sent at `sentAt`; undefined otherwise.
 */
export function toldLimits(headers: Record<string, unknown>, now: number, sentAt = now): Told | undefined {
	const limit = headerNumber(headerValue(headers, 'x-ratelimit-limit'));
	const remaining = headerNumber(headerValue(headers, 'x-ratelimit-remaining'));
	const reset = headerValue(headers, 'x-ratelimit-reset');
	const resetAt = resetTime(reset, now);
	if (limit === undefined || remaining === undefined || resetAt === undefined) return undefined;
	// Seconds to go from when the request was counted, at the earliest when it was sent, rounded up to a whole second.
	const resetAfter = resetTime(reset, Math.min(sentAt, now))! - 1000;
	return { limit, remaining: Math.min(remaining, limit), resetAt, resetAfter };
}

/**
 * When the window a 429 counts frees up: its `X-RateLimit-Reset`, when nothing is left of it (`X-RateLimit-Remaining`
 * 0 or not sent). Undefined when the reset is unreadable, or when the window has requests left: the 429 is then
 * another limit's (the burst), and the reset says nothing about it.
 */
export function spentWindowReset(remaining: string | undefined, reset: string | undefined, now: number): number | undefined {
	if ((headerNumber(remaining) ?? 0) > 0) return undefined;
	return resetTime(reset, now);
}
