/**
 * The prepare steps of the Social Aggregator node: each check names the field and the item before any request, and
 * the body or query changes routing expressions cannot make (numbers, lists without repeats, JSON, date ranges in
 * the workflow's time zone).
 */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import {
	bodyEvents,
	bodyIdList,
	bodyJsonObject,
	bodyOptionalId,
	parameterText,
	queryDateRange,
	queryDateTimeRange,
	requireEmail,
	requireId,
	requireOneOf,
	requireText,
	requireUpdateFields,
	requireUrl,
	type Prepare,
	type RequestOptions,
} from '../../../../nodes/SocialAggregator/common/checks';
import { allowHttpOption } from '../../../../nodes/shared/webhookUrl';
import { singleContext } from '../../support/nodeContext';

/** Runs one step on a request and answers the request as the step left it. */
function run(step: Prepare, parameters: IDataObject, request: RequestOptions = { url: '/x' }, itemIndex = 0, timeZone?: string) {
	void step.call(singleContext(parameters, { timeZone }), request, itemIndex);
	return request;
}

/** The error a step must throw; fails the test when it passes. */
function refusal(step: Prepare, parameters: IDataObject, itemIndex = 0, request: RequestOptions = { url: '/x' }, timeZone?: string) {
	try {
		void step.call(singleContext(parameters, { timeZone }), request, itemIndex);
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		return error as NodeOperationError;
	}
	throw new Error(`expected a refusal for ${JSON.stringify(parameters)}`);
}

const locator = (value: string) => ({ __rl: true, mode: 'id', value });

describe('parameterText', () => {
	test('the plain value, trimmed, of a text or a resource locator', () => {
		expect(parameterText.call(singleContext({ feedId: '  12 ' }), 'feedId')).toBe('12');
		expect(parameterText.call(singleContext({ feedId: locator(' 7 ') }), 'feedId')).toBe('7');
		expect(parameterText.call(singleContext({ feedId: 42 }), 'feedId')).toBe('42');
		expect(parameterText.call(singleContext({}), 'feedId')).toBe('');
	});
});

describe('requireId: a numeric ID before any request', () => {
	test('digits pass, from a text, a number or a resource locator', () => {
		for (const feedId of ['42', ' 42 ', 42, locator('42')]) {
			expect(() => run(requireId('feedId'), { feedId })).not.toThrow();
		}
	});

	test('an empty ID names the field and the item and says what to enter', () => {
		const error = refusal(requireId('feedId'), { feedId: '   ' }, 3);
		expect(error.message).toBe('The Feed ID is empty [item 3]');
		expect(error.description).toBe('Enter the Feed ID, a number such as 42.');
		expect(error.context.itemIndex).toBe(3);
	});

	test.each(['abc', '12a', '-1', '4.2', '1e3', '0x1f', '１２'])('"%s" is not a numeric ID', (feedId) => {
		const error = refusal(requireId('feedId'), { feedId: locator(feedId) }, 1);
		expect(error.message).toBe(`The Feed ID must be a number, not "${feedId}" [item 1]`);
		expect(error.description).toMatch(/numeric Feed ID/);
	});

	test('the label is the parameter in words: camel case split, "Id" read as ID', () => {
		expect(refusal(requireId('socialAccountId'), {}).message).toMatch(/^The Social Account ID is empty/);
		expect(refusal(requireId('userId'), { userId: 'me' }).message).toMatch(/^The User ID must be a number/);
	});
});

describe('requireText, requireOneOf, requireEmail', () => {
	test('blank text is refused with a hint naming the field; any other text passes', () => {
		const error = refusal(requireText('query', 'Search Text'), { query: ' \t ' }, 2);
		expect(error.message).toBe('The Search Text is empty [item 2]');
		expect(error.description).toBe('Enter a value in the "Search Text" field.');
		expect(() => run(requireText('query', 'Search Text'), { query: ' n8n ' })).not.toThrow();
	});

	test('one of the known values (an expression can give any text); the others named with the one given', () => {
		const role = requireOneOf('role', 'Role', ['manager', 'collaborator']);
		expect(() => run(role, { role: ' manager ' })).not.toThrow();
		expect(refusal(role, { role: 'Manager' }, 4).message).toBe('The Role must be "manager" or "collaborator", not "Manager" [item 4]');
		expect(refusal(role, {}).message).toBe('The Role must be "manager" or "collaborator", not "" [item 0]');
	});

	test('an email: empty and malformed are told apart', () => {
		const email = requireEmail('email', 'Email');
		expect(() => run(email, { email: 'ann@example.com' })).not.toThrow();
		expect(refusal(email, { email: '' }, 1).message).toBe('The Email is empty [item 1]');
		expect(refusal(email, { email: 'ann@example' }, 1).message).toBe('The Email "ann@example" is not an email address [item 1]');
		expect(refusal(email, { email: 'ann @example.com' }).message).toMatch(/is not an email address/);
	});
});

describe('requireUrl', () => {
	const url = requireUrl('url', 'URL', 'options.allowHttp');

	test('an https address passes', () => {
		expect(() => run(url, { url: 'https://example.com/hooks/social' })).not.toThrow();
	});

	test.each(['example.com/hooks', 'ftp://example.com/x', 'not a url'])('"%s" is not a web address', (value) => {
		const error = refusal(url, { url: value }, 2);
		expect(error.message).toBe(`The URL "${value}" is not a web address [item 2]`);
		expect(error.description).toMatch(/https:\/\/example\.com/);
	});

	test('plain http is refused unless the option is on, and the refusal names the option', () => {
		const error = refusal(url, { url: 'http://example.com/hook' });
		expect(error.message).toMatch(/is not an HTTPS address/);
		expect(error.description).toContain(allowHttpOption.displayName);
		expect(() => run(url, { url: 'http://example.com/hook', options: { allowHttp: true } })).not.toThrow();
		// Only `true` turns it on: an expression's "true" text does not.
		expect(() => run(url, { url: 'http://example.com/hook', options: { allowHttp: 'true' } })).toThrow(/HTTPS/);
	});

	test('without an option to name, plain http is allowed', () => {
		expect(() => run(requireUrl('url', 'URL'), { url: 'http://example.com/hook' })).not.toThrow();
	});
});

describe('requireUpdateFields', () => {
	const labels = { name: 'Name', syncInterval: 'Sync Interval' };
	const update = requireUpdateFields('updateFields', labels);

	test('no field chosen: nothing to update, listing the fields there are', () => {
		for (const updateFields of [{}, undefined, 'name', ['name']]) {
			const error = refusal(update, { updateFields } as IDataObject, 5, { url: '/x', body: { name: 'x' } });
			expect(error.message).toBe('Nothing to update [item 5]');
			expect(error.description).toBe('Add at least one field under "Update Fields": Name, Sync Interval.');
		}
	});

	test('a chosen name left blank is refused by its label', () => {
		expect(refusal(update, { updateFields: { name: '  ' } }, 1, { url: '/x', body: { name: '  ' } }).message).toBe('The Name is empty [item 1]');
		expect(refusal(update, { updateFields: { name: null } }).message).toBe('The Name is empty [item 0]');
	});

	test('a chosen URL is checked as the URL field is', () => {
		const webhook = requireUpdateFields('updateFields', { url: 'URL', events: 'Events' }, 'options.allowHttp');
		const body = { url: 'http://example.com/h' };
		expect(refusal(webhook, { updateFields: body }, 0, { url: '/x', body }).message).toMatch(/^The URL "http:\/\/example\.com\/h" is not an HTTPS address/);
		expect(refusal(webhook, { updateFields: { url: 'nope' } }, 0, { url: '/x', body: { url: 'nope' } }).message).toMatch(/is not a web address/);
		expect(() => run(webhook, { updateFields: body, options: { allowHttp: true } }, { url: '/x', body })).not.toThrow();
	});

	test('fields chosen that put nothing in the body (an empty event list) are nothing to update either', () => {
		const error = refusal(update, { updateFields: { syncInterval: '' } }, 0, { url: '/x', body: {} });
		expect(error.message).toBe('Nothing to update [item 0]');
		expect(error.description).toMatch(/Give a value to at least one field/);
		expect(refusal(update, { updateFields: { syncInterval: 5 } }, 0, { url: '/x' }).message).toMatch(/^Nothing to update/);
	});

	test('a field with a value in the body passes', () => {
		expect(() => run(update, { updateFields: { syncInterval: 5 } }, { url: '/x', body: { sync_interval: 5 } })).not.toThrow();
	});
});

describe('bodyIdList: IDs chosen in a multi-select or typed, sent as numbers', () => {
	const feeds = bodyIdList('feedIds', 'feed_ids', 'Feed IDs');

	test('a multi-select or comma-separated text becomes a list of numbers, blanks dropped', () => {
		expect(run(feeds, { feedIds: ['3', 4] }).body).toEqual({ feed_ids: [3, 4] });
		expect(run(feeds, { feedIds: ' 1, 2,,3 ' }).body).toEqual({ feed_ids: [1, 2, 3] });
	});

	test('an ID too long for a number is sent as its digits, not rounded', () => {
		expect(run(feeds, { feedIds: '9007199254740993, 7' }).body).toEqual({ feed_ids: ['9007199254740993', 7] });
	});

	test('the other body properties stay; a body that is not an object is replaced', () => {
		expect(run(feeds, { feedIds: '1' }, { url: '/x', body: { email: 'a@b.co' } }).body).toEqual({ email: 'a@b.co', feed_ids: [1] });
		expect(run(feeds, { feedIds: '1' }, { url: '/x', body: ['junk'] }).body).toEqual({ feed_ids: [1] });
	});

	test('none chosen: the property is left out, even when routing put one there', () => {
		expect(run(feeds, { feedIds: [] }, { url: '/x', body: { feed_ids: '' } }).body).toEqual({});
		expect(run(feeds, {}).body).toEqual({});
	});

	test('the first value that is not a number is named, with the item', () => {
		const request: RequestOptions = { url: '/x', body: {} };
		expect(refusal(feeds, { feedIds: '1, two, 3x' }, 6, request).message).toBe('The Feed IDs must be numbers, not "two" [item 6]');
		expect(request.body).toEqual({});
	});

	test('a required list with none given is refused, naming the item', () => {
		const posts = bodyIdList('postIds', 'ids', 'Post IDs', { required: true });
		for (const postIds of ['', ' , ', []]) expect(refusal(posts, { postIds }, 2).message).toBe('No Post IDs given [item 2]');
		expect(run(posts, { postIds: '5' }).body).toEqual({ ids: [5] });
	});
});

describe('bodyOptionalId', () => {
	const feed = bodyOptionalId('options.feedId', 'feed_id', 'Feed ID');

	test('a number, a trimmed text of digits, or nothing', () => {
		expect(run(feed, { options: { feedId: ' 12 ' } }).body).toEqual({ feed_id: 12 });
		expect(run(feed, { options: { feedId: 9 } }).body).toEqual({ feed_id: 9 });
		expect(run(feed, { options: { feedId: '' } }, { url: '/x', body: { feed_id: '' } }).body).toEqual({});
		expect(run(feed, { options: {} }).body).toEqual({});
	});

	test('an ID too long for a number is sent as its digits, not rounded', () => {
		expect(run(feed, { options: { feedId: '12345678901234567890' } }).body).toEqual({ feed_id: '12345678901234567890' });
	});

	test('anything else is refused, naming the value and the item', () => {
		expect(refusal(feed, { options: { feedId: 'feed-1' } }, 2).message).toBe('The Feed ID must be a number, not "feed-1" [item 2]');
		expect(refusal(feed, { options: { feedId: -4 } }).message).toMatch(/not "-4"/);
	});
});

describe('bodyEvents', () => {
	test('chosen and typed events together, once each, in order', () => {
		const events = bodyEvents('events', 'options.otherEvents', { required: true });
		const request = run(events, { events: ['post.created', 'social_account.expired'], options: { otherEvents: 'feed.synced, post.created ,' } });
		expect(request.body).toEqual({ subscribed_events: ['post.created', 'social_account.expired', 'feed.synced'] });
	});

	test('none: refused where events are required, left out of the body where not', () => {
		const error = refusal(bodyEvents('events', 'options.otherEvents', { required: true }), { events: [], options: { otherEvents: ' , ' } }, 1);
		expect(error.message).toBe('No events chosen [item 1]');
		expect(error.description).toMatch(/Other Events/);
		const update = bodyEvents('updateFields.events', 'updateFields.otherEvents', { required: false });
		expect(run(update, { updateFields: {} }, { url: '/x', body: { url: 'https://a.example', subscribed_events: [] } }).body).toEqual({ url: 'https://a.example' });
	});
});

describe('bodyJsonObject', () => {
	const options = bodyJsonObject('options.sourceOptions', 'options', 'Source Options');

	test('JSON text or an object is sent as an object; empty is left out', () => {
		expect(run(options, { options: { sourceOptions: '{"include_replies": false}' } }).body).toEqual({ options: { include_replies: false } });
		expect(run(options, { options: { sourceOptions: { limit: 5 } } }).body).toEqual({ options: { limit: 5 } });
		expect(run(options, { options: { sourceOptions: '' } }, { url: '/x', body: { term: 'n8n', options: 'x' } }).body).toEqual({ term: 'n8n' });
		expect(run(options, { options: {} }).body).toEqual({});
	});

	test('text that is not JSON is refused as such', () => {
		const error = refusal(options, { options: { sourceOptions: '{include_replies: false}' } }, 3);
		expect(error.message).toBe('The Source Options is not valid JSON [item 3]');
		expect(error.description).toMatch(/JSON object/);
	});

	test.each([['[1, 2]'], ['"text"'], ['42'], ['null'], [[1]], [7], [true]])('%j is JSON but not an object', (sourceOptions) => {
		expect(refusal(options, { options: { sourceOptions } }).message).toBe('The Source Options must be a JSON object [item 0]');
	});
});

describe('queryDateTimeRange: instants in the workflow time zone', () => {
	const range = queryDateTimeRange(
		{ path: 'filters.after', label: 'After date', property: 'starting_at' },
		{ path: 'filters.before', label: 'Before date', property: 'ending_at' },
	);

	test('picker values are read in the time zone and sent as ISO instants, keeping the other query fields', () => {
		const request = run(
			range,
			{ filters: { after: '2025-01-15T00:00:00', before: '2025-01-16T12:00:00+00:00' } },
			{ url: '/x', qs: { status: 'approved' } },
			0,
			'Europe/Berlin',
		);
		expect(request.qs).toEqual({ status: 'approved', starting_at: '2025-01-14T23:00:00.000Z', ending_at: '2025-01-16T12:00:00.000Z' });
	});

	test('an empty one is left undefined, which the sender leaves out', () => {
		const request = run(range, { filters: { after: '2025-01-15T00:00:00Z' } });
		expect(request.qs).toEqual({ starting_at: '2025-01-15T00:00:00.000Z', ending_at: undefined });
	});

	test('a value that is no date is named, with a hint of the form', () => {
		const error = refusal(range, { filters: { before: 'last week' } }, 2);
		expect(error.message).toBe('The Before date is not a date [item 2]');
		expect(error.description).toMatch(/ISO 8601/);
	});

	test('the end before the start names both, with the instants compared', () => {
		const error = refusal(range, { filters: { after: '2025-02-01T00:00:00Z', before: '2025-01-31T23:59:59Z' } }, 1);
		expect(error.message).toBe(
			'The Before date (2025-01-31T23:59:59.000Z) is before the After date (2025-02-01T00:00:00.000Z) [item 1]',
		);
	});

	test('the same instant is a valid range', () => {
		expect(() => run(range, { filters: { after: '2025-02-01T00:00:00Z', before: '2025-02-01T01:00:00+01:00' } })).not.toThrow();
	});
});

describe('queryDateRange: calendar dates, each defaulting when empty', () => {
	const range = queryDateRange(
		{ path: 'startDate', label: 'Start Date', property: 'start' },
		{ path: 'endDate', label: 'End Date', property: 'end' },
		30,
	);

	beforeEach(() => {
		// 23:30 on 10 March in UTC is already 11 March in Tokyo.
		jest.useFakeTimers({ now: new Date('2025-03-10T23:30:00Z') });
	});
	afterEach(() => {
		jest.useRealTimers();
	});

	test('both empty: today in the workflow time zone, and the days before it', () => {
		expect(run(range, {}, { url: '/x' }, 0, 'Asia/Tokyo').qs).toEqual({ start: '2025-02-09', end: '2025-03-11' });
		expect(run(range, {}, { url: '/x' }, 0, 'UTC').qs).toEqual({ start: '2025-02-08', end: '2025-03-10' });
	});

	test('an empty start counts back from the end given; an empty end is today', () => {
		expect(run(range, { endDate: '2024-03-01' }).qs).toEqual({ start: '2024-01-31', end: '2024-03-01' });
		expect(run(range, { startDate: '2025-03-01T22:00:00' }, { url: '/x' }, 0, 'Asia/Tokyo').qs).toEqual({ start: '2025-03-01', end: '2025-03-11' });
	});

	test('the end before the start is refused with both dates', () => {
		expect(refusal(range, { startDate: '2025-03-05', endDate: '2025-03-04' }, 7).message).toBe(
			'The End Date (2025-03-04) is before the Start Date (2025-03-05) [item 7]',
		);
		// A start after today with no end is refused too: the end defaults to today.
		expect(refusal(range, { startDate: '2025-04-01' }).message).toMatch(/^The End Date \(2025-03-10\) is before the Start Date \(2025-04-01\)/);
	});

	test('a day that does not exist is not a date', () => {
		const error = refusal(range, { startDate: '2025-02-30' }, 1);
		expect(error.message).toBe('The Start Date is not a date [item 1]');
		expect(error.description).toMatch(/YYYY-MM-DD/);
	});
});
