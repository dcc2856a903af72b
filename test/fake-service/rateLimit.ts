/** Per-key rate limits: a requests-per-hour window and a burst-per-minute window, on the fake clock. */
import { HOUR, MINUTE } from './util';

export interface KeyLimits {
	requestsPerHour: number | null;
	burstPerMinute: number | null;
}

export interface LimitsOptions {
	/** false: no rate limiting at all. Default true. */
	enabled?: boolean;
	/** Multiplies the window lengths (hour and minute); 0.01 makes the hour 36 s and the minute 0.6 s. */
	windowScale?: number;
	/**
	 * true: a 429 of the rate limit carries Retry-After; false: it does not (SPEC.md does not promise one,
	 * the live service sends none). Default: as the shapes say (spec: true, live: false).
	 */
	retryAfter?: boolean;
	/**
	 * true: every answer to a key carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`
	 * (whole seconds until the hour's window starts again); false: none. SPEC.md shows no such headers. Default: sent
	 * only while the hour is shortened (`windowScale` below 1), so that a node learns the short hour from the service,
	 * as it would any window a service tells.
	 */
	headers?: boolean;
	/** Explicit limits per key (key string or key id), overriding the tier. */
	perKey?: Record<string, Partial<KeyLimits>>;
}

interface Window {
	start: number;
	count: number;
}

export class RateLimiter {
	private windows = new Map<string, { hour: Window; minute: Window }>();

	/** Overrides by key id. */
	readonly overrides = new Map<string, Partial<KeyLimits>>();

	constructor(
		public enabled: boolean,
		public windowScale: number,
		/** Whether a 429 says when to retry (Retry-After); undefined: as the shapes say. */
		public retryAfterHeader: boolean | undefined = undefined,
		/** Whether answers carry `X-RateLimit-*` headers; undefined: while the hour is shortened. */
		public limitHeaders: boolean | undefined = undefined,
	) {}

	/** Whether answers carry `X-RateLimit-*` headers now. */
	get sendsHeaders(): boolean {
		return this.limitHeaders ?? this.windowScale < 1;
	}

	get hourMs(): number {
		return HOUR * this.windowScale;
	}

	get minuteMs(): number {
		return MINUTE * this.windowScale;
	}

	effective(keyId: string, tier: KeyLimits): KeyLimits {
		const o = this.overrides.get(keyId);
		return {
			requestsPerHour: o && o.requestsPerHour !== undefined ? o.requestsPerHour : tier.requestsPerHour,
			burstPerMinute: o && o.burstPerMinute !== undefined ? o.burstPerMinute : tier.burstPerMinute,
		};
	}

	/** Counts the request; returns seconds to wait when over a limit (the request is then not counted). */
	hit(keyId: string, tier: KeyLimits, now: number): { retryAfter: number; limit: 'hour' | 'minute' } | null {
		if (!this.enabled) return null;
		const limits = this.effective(keyId, tier);
		let w = this.windows.get(keyId);
		if (!w) {
			w = { hour: { start: now, count: 0 }, minute: { start: now, count: 0 } };
			this.windows.set(keyId, w);
		}
		if (now >= w.hour.start + this.hourMs || now < w.hour.start) w.hour = { start: now, count: 0 };
		if (now >= w.minute.start + this.minuteMs || now < w.minute.start) w.minute = { start: now, count: 0 };
		if (limits.requestsPerHour !== null && w.hour.count >= limits.requestsPerHour) {
			return { retryAfter: Math.max(1, Math.ceil((w.hour.start + this.hourMs - now) / 1000)), limit: 'hour' };
		}
		if (limits.burstPerMinute !== null && w.minute.count >= limits.burstPerMinute) {
			return { retryAfter: Math.max(1, Math.ceil((w.minute.start + this.minuteMs - now) / 1000)), limit: 'minute' };
		}
		w.hour.count++;
		w.minute.count++;
		return null;
	}

	/** The `X-RateLimit-*` headers of the hour's window for a key, after this request was counted (or refused). */
	headersFor(keyId: string, tier: KeyLimits, now: number): Record<string, string> {
		if (!this.enabled || !this.sendsHeaders) return {};
		const { requestsPerHour } = this.effective(keyId, tier);
		if (requestsPerHour === null) return {};
		const hour = this.windows.get(keyId)?.hour ?? { start: now, count: 0 };
		const resetMs = Math.max(0, hour.start + this.hourMs - now);
		return {
			'X-RateLimit-Limit': String(requestsPerHour),
			'X-RateLimit-Remaining': String(Math.max(0, requestsPerHour - hour.count)),
			'X-RateLimit-Reset': String(Math.ceil(resetMs / 1000)),
		};
	}

	usage(keyId: string): { hour: number; minute: number } {
		const w = this.windows.get(keyId);
		return { hour: w?.hour.count ?? 0, minute: w?.minute.count ?? 0 };
	}

	resetWindows(): void {
		this.windows.clear();
	}
}
