import { spentWindowReset, toldLimits } from '../../../nodes/shared/rateLimitHeaders';

describe('toldLimits', () => {
	test('headers read in any case, the reset as seconds or as a Unix time; incomplete or unreadable ones are ignored', () => {
		expect(toldLimits({ 'x-ratelimit-limit': '300', 'X-RATELIMIT-REMAINING': '7', 'x-ratelimit-reset': '60' }, 0)).toEqual({ limit: 300, remaining: 7, resetAt: 60_000, resetAfter: 59_000 });
		// Sent 2 s before it was read: counted then at the earliest, so its reset may lie 2 s (and the second rounded up) earlier.
		expect(toldLimits({ 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '60' }, 2000, 0)).toMatchObject({ resetAt: 62_000, resetAfter: 59_000 });
		expect(toldLimits({ 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '1800000000' }, 0)?.resetAt).toBe(1_800_000_000_000);
		expect(toldLimits({ 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '7' }, 0)).toBeUndefined();
		expect(toldLimits({ 'x-ratelimit-limit': 'many', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '1' }, 0)).toBeUndefined();
	});
});

describe('spentWindowReset (a 429)', () => {
	const now = 1_800_000_000_000;
	test('the reset, seconds to go or a Unix time, when nothing is left of the window or nothing is said of it', () => {
		expect(spentWindowReset('0', '5', now)).toBe(now + 5000);
		expect(spentWindowReset(undefined, '5', now)).toBe(now + 5000);
		expect(spentWindowReset(' 0 ', String(now / 1000 + 12), now)).toBe(now + 12_000);
		expect(spentWindowReset('none', '5', now)).toBe(now + 5000);
	});
	test('nothing when the window has requests left (the 429 is the burst) or the reset is unreadable', () => {
		expect(spentWindowReset('3', '5', now)).toBeUndefined();
		expect(spentWindowReset('0', 'soon', now)).toBeUndefined();
		expect(spentWindowReset('0', undefined, now)).toBeUndefined();
	});
});
