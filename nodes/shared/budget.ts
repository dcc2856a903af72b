import { createHash } from 'crypto';

import { toldLimits, type Told } from './rateLimitHeaders';
import { plural } from './utils';

/**
 * A key's request budget (docs/service.md#rate-limits: 300 requests an hour with a burst of 60 a minute by default) and what this
 * process has spent of it. The service documents no rate-limit headers; where it sends `X-RateLimit-*`, they win.
 * Planning reads it so that a Return All too big for what is left is refused before it spends more.
 */

export interface KeyLimits {
	/** Requests a key may send per window; 0: unknown, so nothing is planned. */
	perWindow: number;
	/** The window: the documented hour (docs/service.md#rate-limits), unless the service tells another in its headers. */
	windowMs: number;
	/** Requests per burst window (a sixtieth of the window: a minute of the hour); 0: none. */
	burst: number;
}

export const DEFAULT_LIMITS: KeyLimits = { perWindow: 300, windowMs: 3_600_000, burst: 60 };

/** How a run of `needed` more requests fits: at once, after a wait, or not at all. */
export interface BudgetPlan {
	needed: number;
	/** Requests the budget allows now. */
	left: number;
	/** When the budget next frees up: the service's reset, else when the oldest request counted is a window old. */
	freesAt: number;
	/** How long the run must wait in all for its last request to be allowed. */
	waitMs: number;
	/** The limits counted with: the service's, once its headers told them, else the credential's. */
	limits: KeyLimits;
	/** Whether the numbers come from the service's headers. */
	told: boolean;
}

export class BudgetLedger {
	/** When each request this process sent in the current window was answered (not 429), oldest first. */
	private readonly sent: number[] = [];
	/** The window the service's headers last told of; kept once it has ended, so that its late answers are known. */
	private told?: Told;
	/** The window's length as the service tells it: the longest time to a reset told (a window's first answer tells all of it). */
	private toldWindowMs?: number;
	/** The window is surely longer than this: a second less than the longest time to a reset told. */
	private shortestWindowMs = 0;
	/** Requests sent and not yet answered: they will spend the budget. */
	private inFlight = 0;
	/**
	 * When the requests in flight were sent, oldest first. An answer does not say which one it answers: it is taken as
	 * sent at the oldest (the widest its window can be), and the latest is let go, so that every request still in
	 * flight keeps a time no later than its own.
	 */
	private readonly sentTimes: number[] = [];

	constructor(public limits: KeyLimits) {}

	/** The window counted: the one the service tells, else the credential's hour. */
	windowMs(): number {
		return this.toldWindowMs ?? this.limits.windowMs;
	}

	/** The burst window: the minute of the hour, a sixtieth of the window counted. */
	burstWindowMs(): number {
		return this.windowMs() / 60;
	}

	/** The limits counted with: the service's (its limit, its window), once told, else the credential's. */
	private counted(): KeyLimits {
		return this.told ? { ...this.limits, perWindow: this.told.limit, windowMs: this.windowMs() } : this.limits;
	}

	/** The window told, while it lasts (its reset is still to come). */
	private live(now: number): Told | undefined {
		return this.told && now < this.told.resetAt ? this.told : undefined;
	}

	private prune(now: number): void {
		const { windowMs } = this.counted();
		while (this.sent.length > 0 && this.sent[0] + windowMs <= now) this.sent.shift();
		// The service's window ended: what it counted in it no longer counts.
		const ended = this.told && now >= this.told.resetAt ? this.told.resetAt : undefined;
		while (ended !== undefined && this.sent.length > 0 && this.sent[0] < ended) this.sent.shift();
	}

	/**
	 * What an answer's headers say. Answers are read in the order they come, not the order the service counted them,
	 * and an answer read late may be of a window that has ended; each tells a span its window's reset lies in. A span
	 * wholly before the window told is an ended window's (it says nothing), one wholly after it a later window's (it
	 * starts afresh). Spans closer together than the shortest the window can be are the same window: what is left only
	 * goes down (an older answer never raises it) and the reset lies in both. Any other answer may be of either window:
	 * the least left of the two, until the later of their resets, so that no request is allowed that one of them does
	 * not cover.
	 */
	private tell(now: number, headers: Record<string, unknown>, sentAt: number): void {
		const told = toldLimits(headers, now, sentAt);
		if (!told) return;
		this.toldWindowMs = Math.max(this.toldWindowMs ?? 0, told.resetAt - now);
		this.shortestWindowMs = Math.max(this.shortestWindowMs, told.resetAt - now - 1000);
		const current = this.told;
		if (!current || told.resetAfter >= current.resetAt) {
			this.told = told;
			return;
		}
		if (told.resetAt <= current.resetAfter) return;
		current.limit = told.limit;
		current.remaining = Math.min(current.remaining, told.remaining);
		const span = Math.max(current.resetAt, told.resetAt) - Math.min(current.resetAfter, told.resetAfter);
		if (span < this.shortestWindowMs) {
			current.resetAt = Math.min(current.resetAt, told.resetAt);
			current.resetAfter = Math.max(current.resetAfter, told.resetAfter);
		} else {
			current.resetAt = Math.max(current.resetAt, told.resetAt);
			current.resetAfter = Math.min(current.resetAfter, told.resetAfter);
		}
	}

	/** A request is about to be sent, now. */
	reserve(now: number): void {
		this.inFlight++;
		this.sentTimes.push(now);
	}

	/** The request reserved was answered (a 429 spends nothing), or failed without an answer. */
	settle(now: number, response?: { statusCode: number; headers?: Record<string, unknown> }): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		const sentAt = this.sentTimes[0] ?? now;
		this.sentTimes.pop();
		if (!response) return;
		if (response.statusCode === 429) this.limited(now, response.headers, sentAt);
		else this.record(now, response.headers, sentAt);
	}

	/** An answer other than 429 came to a request sent at `sentAt`: one request spent; headers, where sent, say what is left. */
	record(now: number, headers: Record<string, unknown> = {}, sentAt = now): void {
		this.prune(now);
		this.sent.push(now);
		this.tell(now, headers, sentAt);
	}

	/** A 429: headers say what they say; whether it is the window's budget (not the burst) is for `spentWindow`. */
	limited(now: number, headers: Record<string, unknown> = {}, sentAt = now): void {
		this.tell(now, headers, sentAt);
	}

	/** Whether a 429 now means the window's budget is spent (rather than the burst), as far as this process knows. */
	spentWindow(now: number): boolean {
		this.prune(now);
		const told = this.live(now);
		if (told) return told.remaining <= 0 && told.resetAt - now > this.burstWindowMs();
		// A 429 this process cannot explain (another user of the key, the burst) is left to the retry policy.
		const { perWindow } = this.counted();
		return perWindow > 0 && this.sent.length >= perWindow;
	}

	/** Requests the budget allows now: what the service told of this window, else the count since its last reset. */
	left(now: number): number {
		this.prune(now);
		const told = this.live(now);
		if (told) return Math.max(0, told.remaining - this.inFlight);
		const { perWindow } = this.counted();
		if (perWindow <= 0) return Number.POSITIVE_INFINITY;
		return Math.max(0, perWindow - this.sent.length - this.inFlight);
	}

	/** The next request, when none is left now, is allowed at this time; now when one is left. */
	freesAt(now: number): number {
		if (this.left(now) > 0) return now;
		const told = this.live(now);
		if (told) return told.resetAt;
		const { perWindow, windowMs } = this.counted();
		const oldest = this.sent[Math.max(0, this.sent.length + this.inFlight - perWindow)];
		return (oldest ?? now) + windowMs;
	}

	/** How `needed` more requests fit into the budget from now. */
	plan(needed: number, now: number): BudgetPlan {
		const left = this.left(now);
		const limits = this.counted();
		const told = this.live(now);
		const renews = told ? told.resetAt : (this.sent[0] ?? now) + limits.windowMs;
		const base = { needed, left, freesAt: Math.max(renews, this.freesAt(now)), limits, told: this.told !== undefined };
		if (needed <= left) return { ...base, waitMs: 0 };
		if (told) {
			// A fixed window: what remains now, then the whole limit at each reset.
			const windows = Math.ceil((needed - left) / Math.max(1, told.limit));
			return { ...base, waitMs: told.resetAt - now + (windows - 1) * limits.windowMs };
		}
		// A sliding window: request k may go once the request `perWindow` before it is a window old.
		const times = [...this.sent];
		let last = now;
		for (let k = 0; k < needed; k++) {
			const earlier = times[times.length - limits.perWindow];
			last = Math.max(now, earlier === undefined ? now : earlier + limits.windowMs);
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

/** A number of milliseconds as the user reads it: "45 s", "12 min". */
export function duration(ms: number): string {
	const seconds = Math.max(0, Math.ceil(ms / 1000));
	if (seconds < 120) return `${seconds} s`;
	return `${Math.ceil(seconds / 60)} min`;
}

/** The credits of a Data API page per platform (docs/service.md#credits): 1, 3 for Instagram, LinkedIn and TikTok, 6 for Facebook. */
export const PLATFORM_CREDITS: Readonly<Record<string, number>> = { Instagram: 3, LinkedIn: 3, TikTok: 3, Facebook: 6 };

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
