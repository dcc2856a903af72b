import { checkEmail, checkLimit, eventList, feedIdList, locatorValue, toList } from '../../../nodes/shared/input';
import { refusal, value } from '../support/checked';

describe('plain inputs', () => {
	test('a list from a multi-select or comma-separated text', () => {
		expect(toList(['a', ' b ', ''])).toEqual(['a', 'b']);
		expect(toList('a, b,,c ')).toEqual(['a', 'b', 'c']);
		expect(toList(undefined)).toEqual([]);
		// textList, through its users: a value that is no list or text names nothing.
		expect(eventList({ a: 1 }, undefined)).toEqual([]);
		expect(eventList(7, undefined)).toEqual([]);
		expect(eventList(['post.created'], 'post.created, feed.updated')).toEqual(['post.created', 'feed.updated']);
	});

	test('feed IDs from a multi-select, comma-separated text or one number; any other value names no feed', () => {
		expect(feedIdList(['7', 8, ' 9 ', ''])).toEqual(['7', '8', '9']);
		expect(feedIdList(' 7, abc,,7 ')).toEqual(['7', 'abc']);
		expect(feedIdList(['8', '7', '8'])).toEqual(['8', '7']);
		expect(feedIdList(12)).toEqual(['12']);
		for (const none of [undefined, null, '', [], { id: 7 }, true]) expect(feedIdList(none)).toEqual([]);
	});

	test('a Limit is a whole number of 1 or more', () => {
		expect(value(checkLimit('25'))).toBe(25);
		for (const wrong of [0, -1, 2.5, '', null, true, 'ten']) expect(refusal(checkLimit(wrong)).field).toBe('Limit');
	});

	test('an email', () => {
		expect(value(checkEmail(' a@b.example '))).toBe('a@b.example');
		expect(refusal(checkEmail('')).reason).toBe('the email is empty');
		expect(refusal(checkEmail('nope')).reason).toBe('"nope" is not an email address');
	});

	test('a parameter plain or as a resource locator', () => {
		expect(locatorValue({ __rl: true, mode: 'id', value: 12 })).toBe('12');
		expect(locatorValue('7')).toBe('7');
		expect(locatorValue(undefined)).toBe('');
		expect(locatorValue([1])).toBe('1');
	});
});
