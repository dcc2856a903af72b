import { checkEmail, checkLimit, eventList, locatorValue, textList, toList } from '../../../nodes/shared/input';
import { refusal, value } from '../support/checked';

describe('plain inputs', () => {
	test('a list from a multi-select or comma-separated text', () => {
		expect(toList(['a', ' b ', ''])).toEqual(['a', 'b']);
		expect(toList('a, b,,c ')).toEqual(['a', 'b', 'c']);
		expect(toList(undefined)).toEqual([]);
		expect(textList({ a: 1 })).toEqual([]);
		expect(textList(7)).toEqual([]);
		expect(eventList(['post.created'], 'post.created, feed.updated')).toEqual(['post.created', 'feed.updated']);
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
