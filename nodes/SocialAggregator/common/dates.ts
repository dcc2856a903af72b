// Date pickers give a zone-less wall-clock time meant in the workflow's time zone; expressions may give an ISO
// string with a zone, a Luxon DateTime or a Date. Intl knows the zones, so the package needs no date library.

import { isEmptyValue } from '../../shared/utils';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;

interface DateTimeLike {
	toISO: () => string | null;
	toISODate?: () => string | null;
}

function isDateTimeLike(value: unknown): value is DateTimeLike {
	return typeof value === 'object' && value !== null && typeof (value as DateTimeLike).toISO === 'function';
}

/** The wall-clock parts of an instant in a time zone. */
function partsIn(timeZone: string, instant: Date) {
	const formatter = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	});
	const parts = formatter.formatToParts(instant).filter((part) => part.type !== 'literal');
	return Object.fromEntries(parts.map((part) => [part.type, Number(part.value)]));
}

/** How far a zone's clocks are ahead of UTC at an instant, in milliseconds. */
function zoneOffsetMs(timeZone: string, instant: Date): number {
	const p = partsIn(timeZone, instant);
	const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
	return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

/** A wall-clock time's instant in a zone: a skipped 02:30 is 03:30 after the change; a repeated time, its first. */
function fromWallTime(timeZone: string, wallAsUtcMs: number): Date {
	const first = zoneOffsetMs(timeZone, new Date(wallAsUtcMs));
	const second = zoneOffsetMs(timeZone, new Date(wallAsUtcMs - first));
	if (second === first) return new Date(wallAsUtcMs - first);
	const third = zoneOffsetMs(timeZone, new Date(wallAsUtcMs - second));
	return new Date(wallAsUtcMs - Math.min(second, third));
}

/** `YYYY-MM-DD` of an instant in a time zone. */
export function dateIn(timeZone: string, instant: Date): string {
	const p = partsIn(timeZone, instant);
	return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** A day as `YYYY-MM-DD`, a day past its month's end carried into the next month. */
function isoDay(year: number, month: number, day: number): string {
	return new Date(Date.UTC(year, month - 1, day)).toISOString().slice(0, 10);
}

/** A `YYYY-MM-DD` date moved by whole days. */
export function addDays(date: string, days: number): string {
	const match = DATE.exec(date);
	if (!match) throw new Error(`Not a date: ${date}`);
	return isoDay(Number(match[1]), Number(match[2]), Number(match[3]) + days);
}

/** The instant a picker's value names, zone-less values read in `timeZone`; undefined when empty, null when no date. */
export function toInstant(value: unknown, timeZone: string): Date | null | undefined {
	if (isEmptyValue(value)) return undefined;
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
	if (isDateTimeLike(value)) return toInstant(value.toISO() ?? '', timeZone) ?? null;
	if (typeof value !== 'string') return null;
	const text = value.trim();
	if (text === '') return undefined;
	const wall = WALL_TIME.exec(text);
	if (wall) {
		const [year, month, day, hour, minute, second] = wall.slice(1, 7).map((part) => Number(part ?? 0));
		// A day that does not exist (31 April) comes back as another.
		if (isoDay(year, month, day) !== text.slice(0, 10)) return null;
		const ms = Number((wall[7] ?? '0').padEnd(3, '0'));
		return fromWallTime(timeZone, Date.UTC(year, month - 1, day, hour, minute, second, ms));
	}
	// With a zone (`Z`, `+02:00`): an absolute time.
	if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return null;
	const parsed = Date.parse(text);
	return Number.isNaN(parsed) ? null : new Date(parsed);
}

/** The `YYYY-MM-DD` a picker's value names: as written when written as a date, else its day in `timeZone`. */
export function toCalendarDate(value: unknown, timeZone: string): string | null | undefined {
	if (isDateTimeLike(value) && typeof value.toISODate === 'function') return value.toISODate() ?? null;
	const instant = toInstant(value, timeZone);
	if (!instant) return instant;
	const written = typeof value === 'string' ? /^\d{4}-\d{2}-\d{2}/.exec(value.trim()) : null;
	return written ? written[0] : dateIn(timeZone, instant);
}
