/** The time-zone reading of date pickers and expressions, without a date library (Intl's zones). */
import { DateTime } from 'luxon';

import { addDays, toCalendarDate, toInstant } from '../../../../nodes/SocialAggregator/common/dates';

describe('toInstant', () => {
	test('a picker value without a zone is read in the workflow time zone', () => {
		expect(toInstant('2025-01-15T00:00:00', 'Europe/Berlin')?.toISOString()).toBe('2025-01-14T23:00:00.000Z');
		expect(toInstant('2025-07-15T09:30', 'America/New_York')?.toISOString()).toBe('2025-07-15T13:30:00.000Z');
		expect(toInstant('2025-07-15', 'Asia/Kolkata')?.toISOString()).toBe('2025-07-14T18:30:00.000Z');
	});

	test('around clock changes', () => {
		// 02:30 does not exist in New York on 9 March 2025; it is read one hour on, as Luxon does.
		expect(toInstant('2025-03-09T02:30:00', 'America/New_York')?.toISOString()).toBe('2025-03-09T07:30:00.000Z');
		// 01:30 happens twice on 2 November 2025: the first one, still summer time.
		expect(toInstant('2025-11-02T01:30:00', 'America/New_York')?.toISOString()).toBe('2025-11-02T05:30:00.000Z');
	});

	test('values with a zone, Dates and Luxon DateTimes are absolute', () => {
		expect(toInstant('2025-01-15T00:00:00+02:00', 'UTC')?.toISOString()).toBe('2025-01-14T22:00:00.000Z');
		expect(toInstant('2025-01-15T00:00:00Z', 'Asia/Tokyo')?.toISOString()).toBe('2025-01-15T00:00:00.000Z');
		expect(toInstant(new Date('2025-01-15T00:00:00Z'), 'Asia/Tokyo')?.toISOString()).toBe('2025-01-15T00:00:00.000Z');
		const luxon = DateTime.fromISO('2025-01-15T08:00:00', { zone: 'Asia/Tokyo' });
		expect(toInstant(luxon, 'UTC')?.toISOString()).toBe('2025-01-14T23:00:00.000Z');
	});

	test('empty is undefined, nonsense is null', () => {
		expect(toInstant('', 'UTC')).toBeUndefined();
		expect(toInstant(undefined, 'UTC')).toBeUndefined();
		expect(toInstant('yesterday', 'UTC')).toBeNull();
		expect(toInstant('2025-02-30', 'UTC')).toBeNull();
		expect(toInstant(42, 'UTC')).toBeNull();
	});
});

describe('toCalendarDate', () => {
	test('the date as written, or the day of the instant in the zone', () => {
		expect(toCalendarDate('2025-05-31T23:30:00', 'Pacific/Auckland')).toBe('2025-05-31');
		expect(toCalendarDate('2025-05-31T23:30:00Z', 'Pacific/Auckland')).toBe('2025-05-31');
		expect(toCalendarDate(new Date('2025-05-31T23:30:00Z'), 'Pacific/Auckland')).toBe('2025-06-01');
		expect(toCalendarDate(DateTime.fromISO('2025-05-31T23:30:00', { zone: 'Pacific/Auckland' }), 'UTC')).toBe('2025-05-31');
		expect(toCalendarDate('', 'UTC')).toBeUndefined();
		expect(toCalendarDate('31/05/2025', 'UTC')).toBeNull();
	});

	test('addDays crosses months and leap days', () => {
		expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
		expect(addDays('2025-03-01', -30)).toBe('2025-01-30');
	});
});
