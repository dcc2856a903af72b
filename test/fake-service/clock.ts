/**
 * The fake service's clock. Every time-based rule (key lifetimes, rate-limit
 * windows, sign-in token and connection-link windows, device-request expiry,
 * analytics defaults, auto-sync) reads this clock, never Date.now().
 *
 * Modes:
 * - `running` (default): time flows with the real clock from `start`, plus any
 *   amount added by advance()/set().
 * - `frozen`: time only moves through advance()/set().
 */
export type ClockMode = 'running' | 'frozen';

export interface ClockOptions {
	/** Start time (ISO string, epoch ms or Date). Default 2025-06-01T12:00:00.000Z. */
	start?: string | number | Date;
	mode?: ClockMode;
}

export const DEFAULT_CLOCK_START = Date.parse('2025-06-01T12:00:00.000Z');

export function toMs(value: string | number | Date): number {
	if (value instanceof Date) return value.getTime();
	if (typeof value === 'number') return value;
	const ms = Date.parse(value);
	if (Number.isNaN(ms)) throw new Error(`invalid time: ${value}`);
	return ms;
}

export class Clock {
	readonly mode: ClockMode;

	readonly startMs: number;

	private base: number;

	private realBase: number;

	private listeners: Array<() => void> = [];

	constructor(options: ClockOptions = {}) {
		this.mode = options.mode ?? 'running';
		this.startMs = options.start === undefined ? DEFAULT_CLOCK_START : toMs(options.start);
		this.base = this.startMs;
		this.realBase = Date.now();
	}

	/** Current fake time in epoch milliseconds. */
	now(): number {
		return this.mode === 'running' ? this.base + (Date.now() - this.realBase) : this.base;
	}

	date(): Date {
		return new Date(this.now());
	}

	iso(): string {
		return new Date(this.now()).toISOString();
	}

	/** Move the clock forward (or back, with a negative value). Returns the new time. */
	advance(ms: number): Date {
		this.base += ms;
		// The time of the move itself: listeners may take a while, and a running clock goes on meanwhile.
		const moved = this.date();
		this.emit();
		return moved;
	}

	/** Jump to a given time. Returns the new time. */
	set(value: string | number | Date): Date {
		this.base = toMs(value);
		this.realBase = Date.now();
		const moved = new Date(this.base);
		this.emit();
		return moved;
	}

	/** Back to the start time (used by reset). */
	restart(): void {
		this.base = this.startMs;
		this.realBase = Date.now();
	}

	onChange(listener: () => void): void {
		this.listeners.push(listener);
	}

	private emit(): void {
		for (const listener of this.listeners) listener();
	}
}
