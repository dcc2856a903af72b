import {
	autoDetectTermType,
	canonicalPlatform,
	checkBaseUrl,
	checkEmail,
	checkPlatforms,
	checkProfileInput,
	checkRequestId,
	checkResumeCursors,
	checkSearchInput,
	describeRefusal,
	type Checked,
	type InputRefusal,
} from '../../../nodes/SocialAggregatorData/v1/helpers/input';
import { DATA_API_TERM_TYPES, DATA_TERM_TYPES } from '../../../nodes/shared/constants';

function refusal<T>(checked: Checked<T>): InputRefusal {
	if (checked.ok) throw new Error(`expected a refusal, got ${JSON.stringify(checked.value)}`);
	return checked.refusal;
}

function value<T>(checked: Checked<T>): T {
	if (!checked.ok) throw new Error(`expected success, got ${JSON.stringify(checked.refusal)}`);
	return checked.value;
}

describe('auto-detection (SPEC.md, GET /data/posts)', () => {
	test.each([
		['#nasa', 'hashtag'],
		['@nasa', 'username'],
		['nasa', 'username'],
		['  #space', 'hashtag'],
	])('%s → %s', (term, type) => {
		expect(autoDetectTermType(term)).toBe(type);
	});
});

describe('platform names', () => {
	test('are matched without regard to case, with X as an alias of Twitter', () => {
		expect(canonicalPlatform('twitter')).toBe('Twitter');
		expect(canonicalPlatform('X')).toBe('Twitter');
		expect(canonicalPlatform('youtube')).toBe('YouTube');
		expect(canonicalPlatform('Myspace')).toBeUndefined();
		expect(canonicalPlatform('')).toBeUndefined();
	});

	test('a list from an expression (comma-separated) is read and de-duplicated', () => {
		expect(value(checkPlatforms('Bluesky, twitter ,bluesky'))).toEqual(['Bluesky', 'Twitter']);
	});

	test('an unknown platform is refused by name', () => {
		const r = refusal(checkPlatforms(['Bluesky', 'Myspace']));
		expect(r.field).toBe('Platforms');
		expect(r.platform).toBe('Myspace');
	});

	test('no platform is refused', () => {
		expect(refusal(checkPlatforms([])).field).toBe('Platforms');
	});
});

describe('checkSearchInput against SPEC.md’s table', () => {
	test('an empty term is refused', () => {
		const r = refusal(checkSearchInput({ term: '   ', platforms: ['Bluesky'], termType: 'auto' }));
		expect(r.field).toBe('Term');
		expect(r.reason).toMatch(/empty/);
	});

	test('a bare prefix is refused', () => {
		expect(refusal(checkSearchInput({ term: '#', platforms: ['Bluesky'], termType: 'auto' })).field).toBe('Term');
	});

	test('auto-detect leaves term_type out and resolves per platform', () => {
		const input = value(checkSearchInput({ term: '#nasa', platforms: ['Bluesky', 'Instagram'], termType: 'auto' }));
		expect(input.termType).toBeUndefined();
		expect(input.resolved).toEqual({ Bluesky: 'hashtag', Instagram: 'hashtag' });
	});

	test('Reddit with auto-detect is refused: it needs channel or mentions', () => {
		const r = refusal(checkSearchInput({ term: 'nasa', platforms: ['Bluesky', 'Reddit'], termType: 'auto' }));
		expect(r.field).toBe('Term Type');
		expect(r.platform).toBe('Reddit');
		expect(r.reason).toContain('username');
		expect(r.reason).toMatch(/channel or mentions/);
		expect(r.hint).toMatch(/subreddit/);
	});

	test('Reddit with channel is accepted and term_type is sent', () => {
		const input = value(checkSearchInput({ term: 'space', platforms: ['Reddit'], termType: 'channel' }));
		expect(input.termType).toBe('channel');
	});

	test('Google needs reviews', () => {
		const r = refusal(checkSearchInput({ term: 'ChIJ123', platforms: ['Google'], termType: 'auto' }));
		expect(r.platform).toBe('Google');
		expect(r.reason).toMatch(/reviews/);
	});

	test('Google reviews need a place ID, not a handle', () => {
		const r = refusal(checkSearchInput({ term: '@cafe', platforms: ['Google'], termType: 'reviews' }));
		expect(r.field).toBe('Term');
		expect(r.reason).toMatch(/place ID/);
		expect(value(checkSearchInput({ term: 'ChIJN1t_tDeuEmsRUsoyG83frY4', platforms: ['Google'], termType: 'reviews' })).termType).toBe(
			'reviews',
		);
	});

	test('reviews applied to Google and another platform names the other platform', () => {
		const r = refusal(checkSearchInput({ term: 'ChIJ1', platforms: ['Google', 'Bluesky'], termType: 'reviews' }));
		expect(r.platform).toBe('Bluesky');
	});

	test('a chosen term type is applied to every platform: Vimeo refuses hashtag', () => {
		const r = refusal(checkSearchInput({ term: 'nasa', platforms: ['Bluesky', 'Vimeo'], termType: 'hashtag' }));
		expect(r.platform).toBe('Vimeo');
		expect(r.reason).toMatch(/applied to every platform/);
	});

	test('an unknown term type is refused', () => {
		expect(refusal(checkSearchInput({ term: 'nasa', platforms: ['Bluesky'], termType: 'keyword' })).field).toBe('Term Type');
	});

	test('every pair of the table is accepted, every other pair refused', () => {
		for (const [platform, allowed] of Object.entries(DATA_API_TERM_TYPES)) {
			for (const type of DATA_TERM_TYPES) {
				const term = type === 'reviews' ? 'ChIJplace' : 'nasa';
				const checked = checkSearchInput({ term, platforms: [platform], termType: type });
				expect({ platform, type, ok: checked.ok }).toEqual({ platform, type, ok: allowed.includes(type) });
			}
		}
	});
});

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

	test('base URL', () => {
		expect(value(checkBaseUrl('http://127.0.0.1:3000/v1/'))).toBe('http://127.0.0.1:3000/v1');
		expect(refusal(checkBaseUrl('')).field).toBe('Base URL');
		expect(refusal(checkBaseUrl('ftp://x')).field).toBe('Base URL');
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

test('a refusal reads as one sentence with the field, the item and the platform', () => {
	expect(describeRefusal({ field: 'Term Type', platform: 'Reddit', reason: 'why' }, 2)).toBe(
		'Invalid Term Type (item 2, platform Reddit): why',
	);
});
