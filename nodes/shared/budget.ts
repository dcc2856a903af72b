import { createHash } from 'crypto';

import { plural } from './utils';

/**
 * A key's request budget (SPEC.md Limits: 300 requests an hour with a burst of 60 a minute by default) and what this
 * process has spent of it. The service documents no rate-limit headers; where it sends `X-RateLimit-*`, they win.
 * Planning reads it so that a Return All too big for what is left is refused before it spends more.
 */

export interface KeyLimits {
	/** Requests a key may send per window; 0: unknown, so nothing is planned. */
	perWindow: number;
	/** The window: an hour, unless a service counts a shorter one. */
	windowMs: number;
	/** Requests per burst window (a sixtieth of the window: a minute of the hour); 0: none. */
	burst: number;
}

export const DEFAULT_LIMITS: KeyLimits = { perWindow: 300, windowMs: 3_600_000, burst: 60 };

/** The burst window: the minute of the hour, shrunk with it. */
export function burstWindowMs(limits: KeyLimits): number {
	return limits.windowMs / 60;
}

/** What the service said in its last `X-RateLimit-*` headers. */
interface Told {
	limit: number;
	remaining: number;
	resetAt: number;
}

/** A response header by name, whatever its case; the first value of a repeated one. */
export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
	if (Array.isArray(value)) return String(value[0]);
	return value === undefined || value === null ? undefined : String(value);
}

/**
 * `X-RateLimit-Limit`, `-Remaining` and `-Reset` (seconds to go, or a Unix time in seconds) when all three are there
 * and readable; undefined otherwise.
 */
export function toldLimits(headers: Record<string, unknown>, now: number): Told | undefined {
	const read = (name: string) => {
		const text = headerValue(headers, `x-ratelimit-${name}`)?.trim();
		return text && /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
	};
	const limit = read('limit');
	const remaining = read('remaining');
	const reset = read('reset');
	if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
	// A reset past a billion is a Unix time, else seconds from now.
	const resetAt = reset > 1e9 ? reset * 1000 : now + reset * 1000;
	return { limit, remaining: Math.min(remaining, limit), resetAt };
}

/** How a run of `needed` more requests fits: at once, after a wait, or not at all. */
export interface BudgetPlan {
	needed: number;
	/** Requests the budget allows now. */
	left: number;
	/** When the budget next frees up: the service's reset, else when the oldest request counted is a window old. */
	freesAt: number;
	/** How long the run must wait in all for its last request to be allowed. */
	waitMs: number;
	limits: KeyLimits;
	/** Whether the numbers come from the service's headers. */
	told: boolean;
}

export class BudgetLedger {
	/** When each request this process sent in the current window was answered (not 429), oldest first. */
	private readonly sent: number[] = [];
	private told?: Told;
	/** Requests sent and not yet answered: they will spend the budget. */
	private inFlight = 0;

	constructor(public limits: KeyLimits) {}

	private prune(now: number): void {
		while (this.sent.length > 0 && this.sent[0] + this.limits.windowMs <= now) this.sent.shift();
		if (this.told && now >= this.told.resetAt) {
			// The service's window ended: what it counted in it no longer counts.
			const { resetAt } = this.told;
			while (this.sent.length > 0 && this.sent[0] < resetAt) this.sent.shift();
			this.told = undefined;
		}
	}

	/** A request is about to be sent. */
	reserve(): void {
		this.inFlight++;
	}

	/** The request reserved was answered (a 429 spends nothing), or failed without an answer. */
	settle(now: number, response?: { statusCode: number; headers?: Record<string, unknown> }): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		if (!response) return;
		if (response.statusCode === 429) this.limited(now, response.headers);
		else this.record(now, response.headers);
	}

	/** An answer other than 429 came: one request spent; headers, where sent, say what is left. */
	record(now: number, headers: Record<string, unknown> = {}): void {
		this.prune(now);
		this.sent.push(now);
		const told = toldLimits(headers, now);
		if (told) this.told = told;
	}

	/** A 429: headers say what they say; whether it is the window's budget (not the burst) is for `spentWindow`. */
	limited(now: number, headers: Record<string, unknown> = {}): void {
		const told = toldLimits(headers, now);
		if (told) this.told = told;
	}

	/** Whether a 429 now means the window's budget is spent (rather than the burst), as far as this process knows. */
	spentWindow(now: number): boolean {
		this.prune(now);
		if (this.told) return this.told.remaining <= 0 && this.told.resetAt - now > burstWindowMs(this.limits);
		// A 429 this process cannot explain (another user of the key, the burst) is left to the retry policy.
		return this.limits.perWindow > 0 && this.sent.length >= this.limits.perWindow;
	}

	/** Requests the budget allows now. */
	left(now: number): number {
		this.prune(now);
		if (this.told) return Math.max(0, this.told.remaining - this.inFlight);
		if (this.limits.perWindow <= 0) return Number.POSITIVE_INFINITY;
		return Math.max(0, this.limits.perWindow - this.sent.length - this.inFlight);
	}

	/** The next request, when none is left now, is allowed at this time; now when one is left. */
	freesAt(now: number): number {
		if (this.left(now) > 0) return now;
		if (this.told) return this.told.resetAt;
		const oldest = this.sent[Math.max(0, this.sent.length + this.inFlight - this.limits.perWindow)];
		return (oldest ?? now) + this.limits.windowMs;
	}

	/** How `needed` more requests fit into the budget from now. */
	plan(needed: number, now: number): BudgetPlan {
		const left = this.left(now);
		const renews = this.told ? this.told.resetAt : (this.sent[0] ?? now) + this.limits.windowMs;
		const base = { needed, left, freesAt: Math.max(renews, this.freesAt(now)), limits: this.limits, told: this.told !== undefined };
		if (needed <= left) return { ...base, waitMs: 0 };
		if (this.told) {
			// A fixed window: what remains now, then the whole limit at each reset.
			const windows = Math.ceil((needed - left) / Math.max(1, this.told.limit));
			return { ...base, waitMs: this.told.resetAt - now + (windows - 1) * this.limits.windowMs };
		}
		// A sliding window: request k may go once the request `perWindow` before it is a window old.
		const times = [...this.sent];
		let last = now;
		for (let k = 0; k < needed; k++) {
			const earlier = times[times.length - this.limits.perWindow];
			last = Math.max(now, earlier === undefined ? now : earlier + this.limits.windowMs);
			times.push(last);
		}
		return { ...base, waitMs: last - now };
	}
}

const ledgers = new Map<string, BudgetLedger>();

/** The ledger of one key at one service, shared by every run in this process; the key is held only as a hash. */
export function ledgerFor(baseUrl: string, apiKey: string, limits: KeyLimits): BudgetLedger {
	const id = createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex');
	let ledger = ledgers.get(id);
	if (!ledger) {
		ledger = new BudgetLedger(limits);
		ledgers.set(id, ledger);
	}
	ledger.limits = limits;
	return ledger;
}

/** Forgets every key's spending (tests that start a new "hour"). */
export function forgetBudgets(): void {
	ledgers.clear();
}

/** A number of milliseconds as the user reads it: "45 s", "12 min". */
export function duration(ms: number): string {
	const seconds = Math.max(0, Math.ceil(ms / 1000));
	if (seconds < 120) return `${seconds} s`;
	return `${Math.ceil(seconds / 60)} min`;
}

/** The credits of a Data API page per platform (SERVICE-NOTES.md): 1, 3 for Instagram, LinkedIn and TikTok, 6 for Facebook. */
const PLATFORM_CREDITS: Record<string, number> = { Instagram: 3, LinkedIn: 3, TikTok: 3, Facebook: 6 };

export function platformCredits(platform: string): number {
	return PLATFORM_CREDITS[platform] ?? 1;
}

/** The window as the user reads it: "hour", or the shorter one a service counts. */
function windowName(limits: KeyLimits): string {
	return limits.windowMs === DEFAULT_LIMITS.windowMs ? 'hour' : `${duration(limits.windowMs)} window`;
}

/** The numbers of a plan, for an error: requests needed and left, when the budget frees up. */
export function planText(plan: BudgetPlan, now: number): string {
	const source = plan.told ? 'as the service reports' : `of the key's ${plan.limits.perWindow} requests per ${windowName(plan.limits)}, as far as this n8n process has counted`;
	return `${plural(plan.needed, 'more request')} needed, ${plural(plan.left, 'request')} left (${source}); the budget frees up in ${duration(plan.freesAt - now)}, and the whole run would need about ${duration(plan.waitMs)} of waiting`;
}
