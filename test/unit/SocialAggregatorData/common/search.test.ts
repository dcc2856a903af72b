import { checkResumeCursors, searchRounds, shapeSearchOutput } from '../../../../nodes/SocialAggregatorData/common/search';
import type { RoundPlan } from '../../../../nodes/shared/rounds';
import { recordKey } from '../../../../nodes/shared/utils';
import type { DataPost, PlatformStatus } from '../../../../nodes/shared/types';
import { refusal, value } from '../../support/checked';
import type { DataPostsResponse } from '../../support/dataPostsResponse';

type SearchRound = { platforms: string[]; cursor?: string };
type SearchPlan = Omit<RoundPlan<DataPost>, 'fetchRound' | 'maxRequests'> & { maxRequests?: number };

/** Posts → Search's rounds (the operation's own `searchRounds`) against an answer in the shape of docs/service.md#cursors. */
async function runSearch(plan: SearchPlan, fetch: (round: SearchRound) => Promise<DataPostsResponse>) {
	const outcome = await searchRounds({
		...plan,
		fetchRound: async (round) => {
			const response = await fetch(round);
			return { data: response.data, statuses: response.meta.platforms };
		},
	});
	return { ...outcome, posts: outcome.items };
}

interface FakePlatform {
	pages: number;
	size: number;
	/** Fails this many times in a row before answering (Infinity: always). */
	failTimes?: number;
	failCode?: string;
	/** Page numbers (1-based) that repeat the last post of the page before. */
	repeatOnPages?: number[];
}

/** A Data API in miniature: cursors `<platform>~<page>`, one page per platform per request. */
function fakeDataApi(platforms: Record<string, FakePlatform>) {
	const rounds: SearchRound[] = [];
	const failures: Record<string, number> = {};
	const post = (platform: string, page: number, index: number): DataPost => ({
		platform,
		platform_id: `${platform}-${page}-${index}`,
		url: `https://example.test/${platform}/${page}/${index}`,
		post_created_at: null,
		message: `post ${index} of page ${page}`,
	});
	const fetch = async (round: SearchRound): Promise<DataPostsResponse> => {
		rounds.push(round);
		const cursors = (round.cursor ?? '').split(',').filter(Boolean);
		const data: DataPost[] = [];
		const statuses: PlatformStatus[] = [];
		for (const name of round.platforms) {
			const config = platforms[name];
			const cursor = cursors.find((c) => c.startsWith(`${name}~`));
			if (cursor === `${name}~tampered`) {
				statuses.push({ platform: name, success: false, error_code: 'invalid_cursor', message: 'Malformed cursor' });
				continue;
			}
			if ((failures[name] ?? 0) < (config.failTimes ?? 0)) {
				failures[name] = (failures[name] ?? 0) + 1;
				statuses.push({
					platform: name,
					success: false,
					error_code: config.failCode ?? 'platform_error',
					message: 'Upstream failed',
				});
				continue;
			}
			const page = cursor ? Number(cursor.split('~')[1]) : 1;
			const posts = Array.from({ length: config.size }, (_, i) => post(name, page, i + 1));
			if (config.repeatOnPages?.includes(page)) posts[0] = post(name, page - 1, config.size);
			data.push(...posts);
			const more = page < config.pages;
			statuses.push({
				platform: name,
				success: true,
				count: posts.length,
				next_cursor: more ? `${name}~${page + 1}` : null,
				has_more: more,
			});
		}
		return { data, meta: { total_results: data.length, platforms: statuses } };
	};
	return { fetch, rounds };
}

const plan = (platforms: string[], extra: Partial<SearchPlan> = {}): SearchPlan => ({
	platforms,
	maxPlatformRetries: 2,
	stopOnFailure: false,
	...extra,
});

describe('runSearch rounds', () => {
	const config = {
		A: { pages: 1, size: 20 },
		B: { pages: 3, size: 20 },
		C: { pages: 5, size: 20 },
		D: { pages: 1, size: 20, failTimes: Infinity },
	};

	test('Return All costs as many requests as the deepest platform has pages; retries ride along', async () => {
		const api = fakeDataApi(config);
		const outcome = await runSearch(plan(['A', 'B', 'C', 'D']), api.fetch);
		expect(outcome.requests).toBe(5);
		expect(api.rounds.map((r) => r.platforms)).toEqual([
			['A', 'B', 'C', 'D'],
			['B', 'C', 'D'],
			['B', 'C', 'D'],
			['C'],
			['C'],
		]);
		// Every round carries the cursors of every platform continuing, comma-joined.
		expect(api.rounds[1].cursor).toBe('B~2,C~2');
		expect(api.rounds[3].cursor).toBe('C~4');
		expect(outcome.posts).toHaveLength(20 + 60 + 100);
		expect(new Set(outcome.posts.map((p) => recordKey(p))).size).toBe(180);
		const failed = outcome.progress.find((p) => p.platform === 'D')!;
		expect(failed.state).toBe('failed');
		expect(failed.failures).toBe(3);
	});

	test('continue mode: posts, then one status item for the failed platform', async () => {
		const outcome = await runSearch(plan(['A', 'B', 'C', 'D']), fakeDataApi(config).fetch);
		const items = shapeSearchOutput(outcome, 'posts', true);
		const statuses = items.filter((i) => i.type === 'platform_status');
		expect(items).toHaveLength(181);
		expect(statuses).toEqual([
			expect.objectContaining({
				platform: 'D',
				success: false,
				error_code: 'platform_error',
				message: 'Upstream failed',
				failed_attempts: 3,
			}),
		]);
		expect(shapeSearchOutput(outcome, 'posts', false)).toHaveLength(180);
	});

	test('fail mode stops at the first platform that fails for good', async () => {
		const api = fakeDataApi(config);
		const outcome = await runSearch(plan(['A', 'B', 'C', 'D'], { stopOnFailure: true }), api.fetch);
		expect(outcome.stoppedBy?.platform).toBe('D');
		expect(outcome.requests).toBe(3);
	});

	test('retries are bounded by maxPlatformRetries', async () => {
		const api = fakeDataApi({ D: { pages: 1, size: 1, failTimes: Infinity, failCode: 'fetch_timeout' } });
		const outcome = await runSearch(plan(['D'], { maxPlatformRetries: 0 }), api.fetch);
		expect(outcome.requests).toBe(1);
		const again = await runSearch(plan(['D'], { maxPlatformRetries: 4 }), fakeDataApi({ D: { pages: 1, size: 1, failTimes: Infinity } }).fetch);
		expect(again.requests).toBe(5);
	});

	test('a platform that recovers within its retries keeps its place and loses nothing', async () => {
		const api = fakeDataApi({ A: { pages: 2, size: 10 }, B: { pages: 2, size: 10, failTimes: 1 } });
		const outcome = await runSearch(plan(['A', 'B']), api.fetch);
		expect(api.rounds).toEqual([
			{ platforms: ['A', 'B'] },
			{ platforms: ['A', 'B'], cursor: 'A~2' },
			{ platforms: ['B'], cursor: 'B~2' },
		]);
		expect(outcome.posts).toHaveLength(40);
		expect(outcome.progress.every((p) => p.state === 'done')).toBe(true);
	});

	test('non-retryable failures are not asked again', async () => {
		const api = fakeDataApi({ A: { pages: 2, size: 5, failTimes: Infinity, failCode: 'invalid_term' } });
		const outcome = await runSearch(plan(['A']), api.fetch);
		expect(outcome.requests).toBe(1);
	});
});

describe('platform names the service may write otherwise', () => {
	test('posts and reports named X count for Twitter, within its limit', async () => {
		const api = fakeDataApi({ Twitter: { pages: 3, size: 20 }, Bluesky: { pages: 1, size: 20 } });
		const outcome = await runSearch(plan(['Twitter', 'Bluesky'], { limit: 30 }), async (round) => {
			const response = await api.fetch(round);
			const alias = <T extends { platform: string }>(entry: T) => (entry.platform === 'Twitter' ? { ...entry, platform: 'X' } : entry);
			return { data: response.data.map(alias), meta: { ...response.meta, platforms: response.meta.platforms.map(alias) } };
		});
		expect(outcome.progress.every((p) => p.state === 'done')).toBe(true);
		expect(outcome.posts.filter((p) => p.platform === 'X')).toHaveLength(30);
		expect(outcome.requests).toBe(2);
	});
});

describe('limits per platform', () => {
	test('Limit 30 with 20-post pages: two pages each, none beyond', async () => {
		const api = fakeDataApi({ A: { pages: 1, size: 20 }, B: { pages: 3, size: 20 }, C: { pages: 5, size: 20 } });
		const outcome = await runSearch(plan(['A', 'B', 'C'], { limit: 30 }), api.fetch);
		expect(api.rounds.map((r) => r.platforms)).toEqual([['A', 'B', 'C'], ['B', 'C']]);
		const count = (name: string) => outcome.posts.filter((p) => p.platform === name).length;
		expect([count('A'), count('B'), count('C')]).toEqual([20, 30, 30]);
	});

	test('a limit met by the first page fetches nothing more', async () => {
		const api = fakeDataApi({ A: { pages: 5, size: 25 } });
		const outcome = await runSearch(plan(['A'], { limit: 25 }), api.fetch);
		expect(api.rounds).toHaveLength(1);
		expect(outcome.posts).toHaveLength(25);
		// The status tells where to resume.
		const status = shapeSearchOutput(outcome, 'postsAndStatus', true).at(-1);
		expect(status).toMatchObject({ success: true, has_more: true, next_cursor: 'A~2', posts: 25, pages: 1 });
	});

	test('duplicates do not count toward the limit', async () => {
		const api = fakeDataApi({ A: { pages: 3, size: 10, repeatOnPages: [2] } });
		const outcome = await runSearch(plan(['A'], { limit: 20 }), api.fetch);
		expect(api.rounds).toHaveLength(3);
		expect(outcome.posts).toHaveLength(20);
		expect(new Set(outcome.posts.map((p) => recordKey(p))).size).toBe(20);
	});
});

describe('cursors', () => {
	test('a tampered cursor fails its platform only', async () => {
		const api = fakeDataApi({ A: { pages: 2, size: 10 }, B: { pages: 2, size: 10 } });
		const outcome = await runSearch(plan(['A', 'B'], { cursors: { A: 'A~tampered' } }), api.fetch);
		expect(api.rounds[0]).toEqual({ platforms: ['A', 'B'], cursor: 'A~tampered' });
		expect(outcome.posts.filter((p) => p.platform === 'B')).toHaveLength(20);
		const a = outcome.progress.find((p) => p.platform === 'A')!;
		expect(a.state).toBe('failed');
		expect(a.error?.code).toBe('invalid_cursor');
		expect(outcome.requests).toBe(2);
	});

	test('resuming from a cursor starts at that page', async () => {
		const api = fakeDataApi({ A: { pages: 3, size: 10 } });
		const outcome = await runSearch(plan(['A'], { cursors: { A: 'A~3' } }), api.fetch);
		expect(outcome.posts.map((p) => p.platform_id)).toContain('A-3-1');
		expect(outcome.requests).toBe(1);
	});

	test('a cursor that does not move ends that platform instead of looping', async () => {
		let calls = 0;
		const outcome = await runSearch(plan(['A']), async () => {
			calls++;
			return {
				data: [{ platform: 'A', platform_id: `p${calls}`, url: null, post_created_at: null, message: null }],
				meta: { total_results: 1, platforms: [{ platform: 'A', success: true, next_cursor: 'same', has_more: true }] },
			};
		});
		expect(outcome.requests).toBe(2);
	});

	test('the request cap ends a service that never stops', async () => {
		let n = 0;
		const outcome = await runSearch(plan(['A'], { maxRequests: 7 }), async () => {
			n++;
			return {
				data: [],
				meta: { total_results: 0, platforms: [{ platform: 'A', success: true, next_cursor: `c${n}`, has_more: true }] },
			};
		});
		expect(outcome.requests).toBe(7);
		expect(outcome.requestCapReached).toBe(true);
	});
});

describe('dedupe key', () => {
	test('platform + platform_id, else url, else none', () => {
		const base = { post_created_at: null, message: null };
		expect(recordKey({ ...base, platform: 'X', platform_id: '1', url: 'u' })).toBe(
			recordKey({ ...base, platform: 'x', platform_id: '1', url: 'other' }),
		);
		expect(recordKey({ ...base, platform: 'X', platform_id: '1', url: null })).not.toBe(
			recordKey({ ...base, platform: 'Y', platform_id: '1', url: null }),
		);
		expect(recordKey({ ...base, platform: 'X', platform_id: null, url: 'u' })).toBe(
			recordKey({ ...base, platform: 'X', platform_id: null, url: 'u' }),
		);
		expect(recordKey({ ...base, platform: 'X', platform_id: null, url: null })).toBeUndefined();
	});

	test('posts without identity are all kept', async () => {
		const outcome = await runSearch(plan(['A']), async () => ({
			data: [
				{ platform: 'A', platform_id: null, url: null, post_created_at: null, message: 'one' },
				{ platform: 'A', platform_id: null, url: null, post_created_at: null, message: 'two' },
			],
			meta: { total_results: 2, platforms: [{ platform: 'A', success: true, next_cursor: null, has_more: false }] },
		}));
		expect(outcome.posts).toHaveLength(2);
	});
});

describe('output modes', () => {
	test('pages: one item per platform page with status and cursors; the final failure once', async () => {
		const outcome = await runSearch(
			plan(['A', 'D']),
			fakeDataApi({ A: { pages: 2, size: 3 }, D: { pages: 1, size: 1, failTimes: Infinity } }).fetch,
		);
		const items = shapeSearchOutput(outcome, 'pages', true);
		expect(items.map((i) => [i.platform, i.page, i.success])).toEqual([
			['A', 1, true],
			['A', 2, true],
			['D', null, false],
		]);
		expect(items[0]).toMatchObject({ cursor: null, next_cursor: 'A~2', has_more: true, count: 3 });
		expect(items[1]).toMatchObject({ cursor: 'A~2', next_cursor: null, has_more: false });
		expect((items[0].posts as unknown[]).length).toBe(3);
		expect(items[2]).toMatchObject({ error_code: 'platform_error', message: 'Upstream failed' });
		expect(shapeSearchOutput(outcome, 'pages', false)).toHaveLength(2);
	});

	test('postsAndStatus: posts then a status item for every platform', async () => {
		const outcome = await runSearch(
			plan(['A', 'D']),
			fakeDataApi({ A: { pages: 1, size: 3 }, D: { pages: 1, size: 1, failTimes: Infinity } }).fetch,
		);
		const items = shapeSearchOutput(outcome, 'postsAndStatus', true);
		expect(items.slice(0, 3).every((i) => i.platform === 'A' && i.type === undefined)).toBe(true);
		expect(items.slice(3)).toEqual([
			expect.objectContaining({ type: 'platform_status', platform: 'A', success: true, posts: 3, pages: 1, has_more: false }),
			expect.objectContaining({ type: 'platform_status', platform: 'D', success: false, error_code: 'platform_error' }),
		]);
	});

	test('a failed page item keeps no error key, so n8n never mistakes it for an error item', async () => {
		const outcome = await runSearch(
			plan(['A', 'D']),
			fakeDataApi({ A: { pages: 1, size: 1 }, D: { pages: 1, size: 1, failTimes: Infinity } }).fetch,
		);
		const failed = shapeSearchOutput(outcome, 'pages', true).find((item) => item.platform === 'D');
		expect(failed).toMatchObject({ success: false, error_code: 'platform_error' });
		expect(failed).not.toHaveProperty('error');
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
