import { DATA_API_TERM_TYPES, DATA_TERM_TYPES } from '../../../nodes/shared/constants';
import { checkDataSearch, checkPlatforms } from '../../../nodes/shared/dataSearch';
import { canonicalPlatform } from '../../../nodes/shared/platforms';
import { refusalError } from '../../../nodes/shared/refusal';
import { faults, refusal, value } from '../support/checked';
import { NODE } from '../support/context';

describe('auto-detection (docs/service.md#data-posts)', () => {
	test.each([
		['#nasa', 'hashtag'],
		['@nasa', 'username'],
		['nasa', 'username'],
		['  #space', 'hashtag'],
	])('%s → %s', (term, type) => {
		expect(value(checkDataSearch({ term, platforms: ['Bluesky'], termType: 'auto' })).resolved).toEqual({ Bluesky: type });
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

	test('match platform labels', () => {
		expect(canonicalPlatform('X (Twitter)')).toBe('Twitter');
		expect(canonicalPlatform('google reviews')).toBe('Google');
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

describe('checkDataSearch against the table of docs/service.md#term-types', () => {
	test('SPEC pairs are accepted and platform names canonicalised', () => {
		const search = value(
			checkDataSearch({ term: ' #n8n ', platforms: ['bluesky', 'X', 'Instagram', 'Bluesky'], termType: 'auto' }),
		);
		expect(search).toEqual({
			term: '#n8n',
			platforms: ['Bluesky', 'Twitter', 'Instagram'],
			termType: undefined,
			resolved: { Bluesky: 'hashtag', Twitter: 'hashtag', Instagram: 'hashtag' },
		});
		expect(checkDataSearch({ term: 'r/n8n', platforms: 'Reddit', termType: 'channel' }).ok).toBe(true);
		expect(value(checkDataSearch({ term: 'ChIJ123', platforms: ['Google'], termType: 'reviews' })).termType).toBe('reviews');
	});

	test('an empty term is refused', () => {
		const r = refusal(checkDataSearch({ term: '   ', platforms: ['Bluesky'], termType: 'auto' }));
		expect(r.field).toBe('Term');
		expect(r.reason).toMatch(/empty/);
		expect(faults(checkDataSearch({ term: '  ', platforms: ['Bluesky'], termType: undefined }))).toEqual([
			expect.objectContaining({ field: 'Term' }),
		]);
		expect(refusalError(NODE, r).message).toMatch(/^Invalid Term: /);
	});

	test('a term that is not text is refused', () => {
		for (const term of [true, { a: 1 }, ['nasa']]) {
			const r = refusal(checkDataSearch({ term, platforms: ['Bluesky'], termType: 'auto' }));
			expect(r.field).toBe('Term');
			expect(r.reason).toMatch(/not text/);
		}
		expect(value(checkDataSearch({ term: 42, platforms: ['Bluesky'], termType: 'auto' })).term).toBe('42');
	});

	test('a bare prefix is refused', () => {
		expect(refusal(checkDataSearch({ term: '#', platforms: ['Bluesky'], termType: 'auto' })).field).toBe('Term');
	});

	test('auto-detect leaves term_type out and resolves per platform', () => {
		const input = value(checkDataSearch({ term: '#nasa', platforms: ['Bluesky', 'Instagram'], termType: 'auto' }));
		expect(input.termType).toBeUndefined();
		expect(input.resolved).toEqual({ Bluesky: 'hashtag', Instagram: 'hashtag' });
	});

	test('an unknown platform and an empty choice are named', () => {
		expect(faults(checkDataSearch({ term: 'a', platforms: ['Bluesky', 'Myspace'], termType: 'auto' }))).toEqual([
			expect.objectContaining({ field: 'Platforms', platform: 'Myspace', reason: expect.stringContaining('"Myspace"') }),
		]);
		expect(faults(checkDataSearch({ term: 'a', platforms: [], termType: 'auto' }))).toEqual([
			expect.objectContaining({ field: 'Platforms' }),
		]);
	});

	test('Reddit with auto-detect is refused: it needs channel or mentions', () => {
		const r = refusal(checkDataSearch({ term: 'nasa', platforms: ['Bluesky', 'Reddit'], termType: 'auto' }));
		expect(r.field).toBe('Term Type');
		expect(r.platform).toBe('Reddit');
		expect(r.reason).toContain('username');
		expect(r.reason).toMatch(/channel or mentions/);
		expect(r.hint).toMatch(/subreddit/);
	});

	test('Reddit with channel is accepted and term_type is sent', () => {
		const input = value(checkDataSearch({ term: 'space', platforms: ['Reddit'], termType: 'channel' }));
		expect(input.termType).toBe('channel');
	});

	test('Google needs reviews', () => {
		const r = refusal(checkDataSearch({ term: 'ChIJ123', platforms: ['Google'], termType: 'auto' }));
		expect(r.platform).toBe('Google');
		expect(r.reason).toMatch(/reviews/);
	});

	test('Google reviews need a place ID, not a handle', () => {
		const r = refusal(checkDataSearch({ term: '@cafe', platforms: ['Google'], termType: 'reviews' }));
		expect(r.field).toBe('Term');
		expect(r.reason).toMatch(/place ID/);
		expect(value(checkDataSearch({ term: 'ChIJN1t_tDeuEmsRUsoyG83frY4', platforms: ['Google'], termType: 'reviews' })).termType).toBe(
			'reviews',
		);
	});

	test('reviews applied to Google and another platform names the other platform', () => {
		const r = refusal(checkDataSearch({ term: 'ChIJ1', platforms: ['Google', 'Bluesky'], termType: 'reviews' }));
		expect(r.platform).toBe('Bluesky');
	});

	test('a chosen term type is applied to every platform: Vimeo refuses hashtag', () => {
		const r = refusal(checkDataSearch({ term: 'nasa', platforms: ['Bluesky', 'Vimeo'], termType: 'hashtag' }));
		expect(r.platform).toBe('Vimeo');
		expect(r.reason).toMatch(/applied to every platform/);
	});

	test('each platform that does not take the term type is named, explicit or inferred', () => {
		const explicit = faults(checkDataSearch({ term: 'n8n', platforms: ['Bluesky', 'Vimeo', 'Twitter'], termType: 'mentions' }));
		expect(explicit.map((p) => [p.field, p.platform])).toEqual([
			['Term Type', 'Bluesky'],
			['Term Type', 'Vimeo'],
		]);
		expect(explicit[0].reason).toContain('Bluesky does not take mentions terms');
		const inferred = faults(checkDataSearch({ term: 'n8n', platforms: ['Reddit', 'Google'], termType: 'auto' }));
		expect(inferred.map((p) => p.platform)).toEqual(['Reddit', 'Google']);
		expect(inferred[0].reason).toContain('channel or mentions');
		expect(refusal(checkDataSearch({ term: '#n8n', platforms: ['Vimeo'], termType: undefined })).reason).toContain(
			'does not take hashtag terms',
		);
	});

	test('an unknown term type is refused', () => {
		expect(refusal(checkDataSearch({ term: 'nasa', platforms: ['Bluesky'], termType: 'keyword' })).field).toBe('Term Type');
		expect(faults(checkDataSearch({ term: 'a', platforms: ['Bluesky'], termType: 'hashtags' }))).toEqual([
			expect.objectContaining({ field: 'Term Type', reason: expect.stringContaining('"hashtags"') }),
		]);
	});

	test('every field at fault is listed, the first in the message, the others in the description', () => {
		const checked = checkDataSearch({ term: '', platforms: ['Nope'], termType: 'x' });
		expect(faults(checked).map((p) => p.field)).toEqual(['Term', 'Platforms', 'Term Type']);
		if (checked.ok) throw new Error('expected a refusal');
		const error = refusalError(NODE, checked.refusal, undefined, checked.also);
		expect(error.message).toBe('Invalid Term: the term is empty');
		expect(error.description).toContain('Also: Invalid Platforms (platform Nope): "Nope" is not a platform');
		expect(error.description).toContain('; Invalid Term Type: "x" is not a term type.');
	});

	test('every pair of the table is accepted, every other pair refused', () => {
		for (const [platform, allowed] of Object.entries(DATA_API_TERM_TYPES)) {
			for (const type of DATA_TERM_TYPES) {
				const term = type === 'reviews' ? 'ChIJplace' : 'nasa';
				const checked = checkDataSearch({ term, platforms: [platform], termType: type });
				expect({ platform, type, ok: checked.ok }).toEqual({ platform, type, ok: allowed.includes(type) });
			}
		}
	});
});
