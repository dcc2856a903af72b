import { headerValue, idValue, isDigits, isEmptyValue, isObject, keepRecent, nonBlankText, plural, recordKey } from '../../../nodes/shared/utils';

describe('general helpers', () => {
	test('isObject: a JSON object, not null, not an array', () => {
		expect(isObject({})).toBe(true);
		expect(isObject({ a: 1 })).toBe(true);
		expect(isObject([])).toBe(false);
		expect(isObject(null)).toBe(false);
		expect(isObject('{}')).toBe(false);
	});

	test('nonBlankText: trimmed text, nothing for blanks and non-text', () => {
		expect(nonBlankText('  hi ')).toBe('hi');
		expect(nonBlankText('   ')).toBeUndefined();
		expect(nonBlankText({ message: 'x' })).toBeUndefined();
		expect(nonBlankText(3)).toBeUndefined();
	});

	test('plural', () => {
		expect(plural(1, 'attempt')).toBe('1 attempt');
		expect(plural(0, 'attempt')).toBe('0 attempts');
		expect(plural(3, 'page')).toBe('3 pages');
	});

	test('isDigits and idValue: an ID of digits is a number only where a number holds it exactly', () => {
		expect(isDigits('123')).toBe(true);
		expect(isDigits('12a')).toBe(false);
		expect(isDigits('')).toBe(false);
		expect(isDigits('-1')).toBe(false);
		expect(idValue('42')).toBe(42);
		expect(idValue('9007199254740991')).toBe(9007199254740991);
		expect(idValue('9007199254740993')).toBe('9007199254740993');
		expect(idValue('dlv_1')).toBe('dlv_1');
	});

	test('recordKey: a feed post by feed and ID, a Data API post by platform and platform_id, else URL, else none', () => {
		expect(recordKey({ id: 5 })).toBe('5');
		expect(recordKey({ id: 5, feed_id: 2 })).toBe('2:5');
		expect(recordKey({ platform: 'Twitter', platform_id: '9', url: 'u' })).toBe('twitter:id:9');
		expect(recordKey({ platform: 'Twitter', platform_id: '', url: 'u' })).toBe('twitter:url:u');
		expect(recordKey({ platform: 'Twitter', platform_id: null, url: null })).toBeUndefined();
	});

	test('isEmptyValue: missing, null or the empty text; not 0, false, blanks or an empty list', () => {
		for (const empty of [undefined, null, '']) expect(isEmptyValue(empty)).toBe(true);
		for (const given of [0, false, ' ', [], {}, 'x']) expect(isEmptyValue(given)).toBe(false);
	});

	test('keepRecent: the key set newest, the oldest dropped past the limit', () => {
		const map = new Map<string, number>([
			['a', 1],
			['b', 2],
		]);
		keepRecent(map, 'a', 3, 2);
		expect([...map]).toEqual([
			['b', 2],
			['a', 3],
		]);
		expect(keepRecent(map, 'c', 4, 2)).toEqual(['b', 2]);
		expect([...map]).toEqual([
			['a', 3],
			['c', 4],
		]);
	});
});

test('headerValue: by name in any case, the first of a repeated header, nothing that is not text', () => {
	expect(headerValue({ 'Retry-After': '3' }, 'retry-after')).toBe('3');
	expect(headerValue({ 'x-ratelimit-reset': ['5', '9'] }, 'x-ratelimit-reset')).toBe('5');
	expect(headerValue({ 'content-length': 42 }, 'content-length')).toBe('42');
	expect(headerValue({ 'x-ratelimit-reset': null }, 'x-ratelimit-reset')).toBeUndefined();
	expect(headerValue({ location: { href: 'http://127.0.0.1/' } }, 'location')).toBeUndefined();
	expect(headerValue({}, 'location')).toBeUndefined();
});
