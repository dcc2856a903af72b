import { checkEmail } from '../../../nodes/shared/input';
import { checkRequestId } from '../../../nodes/SocialAggregatorData/v1/actions/apiKey/getStatus.operation';
import { checkResumeCursors } from '../../../nodes/SocialAggregatorData/v1/actions/post/search.operation';
import { checkProfileInput } from '../../../nodes/SocialAggregatorData/v1/actions/profile/lookUp.operation';
import { refusal, value } from '../shared/checked';

describe('resume cursors', () => {
	test('are kept per platform, opaque', () => {
		expect(
			value(
				checkResumeCursors(
					[
						{ platform: 'Bluesky', cursor: ' abc.def== ' },
						{ platform: '', cursor: '' },
					],
					['Bluesky', 'Twitter'],
				),
			),
		).toEqual({ Bluesky: 'abc.def==' });
	});

	test('a cursor for a platform not searched is refused', () => {
		const r = refusal(checkResumeCursors([{ platform: 'TikTok', cursor: 'x' }], ['Bluesky']));
		expect(r.platform).toBe('TikTok');
	});

	test('a comma-joined cursor list in one field is refused', () => {
		expect(refusal(checkResumeCursors([{ platform: 'Bluesky', cursor: 'a,b' }], ['Bluesky'])).field).toBe(
			'Resume From Cursors',
		);
	});

	test('two cursors for one platform are refused', () => {
		const entries = [
			{ platform: 'Bluesky', cursor: 'a' },
			{ platform: 'bluesky', cursor: 'b' },
		];
		expect(refusal(checkResumeCursors(entries, ['Bluesky'])).reason).toMatch(/two cursors/);
	});
});

describe('profiles', () => {
	test('up to five handles', () => {
		expect(value(checkProfileInput({ term: 'a, b,c', platforms: ['Bluesky'] }))).toEqual({
			handles: ['a', 'b', 'c'],
			platforms: ['Bluesky'],
		});
		expect(refusal(checkProfileInput({ term: 'a,b,c,d,e,f', platforms: ['Bluesky'] })).reason).toMatch(/at most 5/);
		expect(refusal(checkProfileInput({ term: ' , ', platforms: ['Bluesky'] })).field).toBe('Handles');
	});
});

describe('key issuance inputs', () => {
	test('email', () => {
		expect(value(checkEmail(' a@b.example '))).toBe('a@b.example');
		expect(refusal(checkEmail('nope')).field).toBe('Email');
	});

	test('request ID or poll URL', () => {
		expect(value(checkRequestId('req_1'))).toEqual({ path: '/authorize/req_1', requestId: 'req_1', absolute: false });
		expect(value(checkRequestId('https://api.example.test/v1/authorize/req_2'))).toEqual({
			path: 'https://api.example.test/v1/authorize/req_2',
			requestId: 'req_2',
			absolute: true,
		});
		expect(refusal(checkRequestId('')).field).toBe('Request ID');
		expect(refusal(checkRequestId('a/b')).field).toBe('Request ID');
	});
});
