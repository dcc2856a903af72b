import { checkProfileInput, runProfileLookup, shapeProfiles } from '../../../../nodes/SocialAggregatorData/common/profiles';
import { platformFailureItem } from '../../../../nodes/shared/rounds';
import { RAW } from '../../../../nodes/shared/simplify';
import { refusal, value } from '../../support/checked';

const simplified = { mode: 'simplified' } as const;
/** The live shape gives neither the platform's ID of a profile nor, off Google, a place ID. */
const noIds = { platform_id: null, place_id: null };

describe('shapeProfiles', () => {
	const live = [
		{ platform: 'Twitter', term: 'nasa', exact_match: true, profiles: [{ platform: 'Twitter', handle: 'nasa', url: null, metrics: null }] },
		{ platform: 'Twitter', term: 'esa', exact_match: null, profiles: [{ platform: 'Twitter', handle: '@ESA', url: 'u', metrics: { follower_count: null, post_count: 3 } }] },
		{ platform: null, term: null, exact_match: null, profiles: null },
	];

	test('every field of the live shape may be null: one item per profile, nulls kept, exact_match decided where the answer is silent', () => {
		expect(shapeProfiles(live, { layout: 'profiles', exactOnly: false, choice: simplified })).toEqual([
			{ platform: 'Twitter', handle: 'nasa', ...noIds, url: null, follower_count: null, post_count: null, term: 'nasa', exact_match: true },
			{ platform: 'Twitter', handle: '@ESA', ...noIds, url: 'u', follower_count: null, post_count: 3, term: 'esa', exact_match: true },
		]);
		expect(shapeProfiles(live, { layout: 'groups', exactOnly: false, choice: simplified }).map((g) => [g.term, g.exact_match, g.profiles])).toEqual([
			['nasa', true, [{ handle: 'nasa', ...noIds, url: null, follower_count: null, post_count: null }]],
			['esa', true, [{ handle: '@ESA', ...noIds, url: 'u', follower_count: null, post_count: 3 }]],
			[null, false, []],
		]);
	});

	test('Simplify off: the groups as answered, exact_match decided where the answer is silent; Exact Matches Only filters them', () => {
		const answered = [live[0], { ...live[1], exact_match: true }, { ...live[2], profiles: [], exact_match: false }];
		expect(shapeProfiles(live, { layout: 'groups', exactOnly: false, choice: RAW })).toEqual(answered);
		expect(shapeProfiles(live, { layout: 'groups', exactOnly: true, choice: RAW })).toEqual(answered.slice(0, 2));
	});

	test('the flat shape: records of one platform and handle become one group, whatever their order', () => {
		const flat = [
			{ platform: 'Bluesky', term: 'nasa', name: 'nasa.bsky.social' },
			{ platform: 'Bluesky', term: 'esa', name: 'esa' },
			{ platform: 'Bluesky', term: 'NASA', name: 'nasa' },
		];
		const groups = shapeProfiles(flat, { layout: 'groups', exactOnly: false, choice: RAW });
		expect(groups.map((g) => [g.term, g.exact_match, (g.profiles as unknown[]).length])).toEqual([
			['nasa', true, 2],
			['esa', true, 1],
		]);
		expect(shapeProfiles(flat, { layout: 'profiles', exactOnly: false, choice: RAW })).toEqual([
			{ ...flat[0], exact_match: true },
			{ ...flat[2], term: 'nasa', exact_match: true },
			{ ...flat[1], exact_match: true },
		]);
	});
});

describe('profile lookup', () => {
	test('failed platforms are asked again alone, bounded, and reported', async () => {
		const asked: string[][] = [];
		const outcome = await runProfileLookup({ platforms: ['Bluesky', 'TikTok', 'Vimeo'], maxPlatformRetries: 2 }, async (platforms) => {
			asked.push(platforms);
			return {
				data: platforms.includes('Bluesky') ? [{ platform: 'Bluesky', platform_id: '1', name: 'nasa' }] : [],
				statuses: platforms.map((p) =>
					p === 'TikTok'
						? { platform: p, success: false, error_code: 'fetch_timeout', message: 'slow' }
						: p === 'Vimeo'
							? { platform: p, success: false, error_code: 'invalid_term', message: 'bad' }
							: { platform: p, success: true },
				),
			};
		});
		expect(asked).toEqual([['Bluesky', 'TikTok', 'Vimeo'], ['TikTok'], ['TikTok']]);
		expect(outcome.profiles).toHaveLength(1);
		expect(outcome.statuses.filter((s) => !s.success).map((s) => s.platform)).toEqual(['TikTok', 'Vimeo']);
		expect(outcome.failures).toEqual({ TikTok: 3, Vimeo: 1 });
		const tiktok = outcome.statuses[1];
		expect(platformFailureItem(tiktok.platform, { code: tiktok.error_code, message: tiktok.message }, 3)).toMatchObject({
			type: 'platform_status',
			platform: 'TikTok',
			error_code: 'fetch_timeout',
			failed_attempts: 3,
		});
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
