import type { IDataObject } from 'n8n-workflow';

import { collectRounds, settlePage, sortRound, type PageRules, type PlatformProgress, type RoundPlan } from '../../../nodes/shared/rounds';
import type { PlatformStatus } from '../../../nodes/shared/types';

describe('Data API cursor rounds', () => {
	const ok = (platform: string, next: string | null, count = 20): PlatformStatus => ({
		platform,
		success: true,
		count,
		next_cursor: next,
		has_more: next !== null,
	});
	const failed = (platform: string, code: string): PlatformStatus => ({
		platform,
		success: false,
		error_code: code,
		message: `${platform} failed`,
	});

	type Answer = { statuses: PlatformStatus[]; posts?: Record<string, number> };

	/** The rounds over scripted answers (`posts`: how many each platform brings), and the rounds asked. */
	async function rounds(platforms: string[], answers: Answer[], plan: Partial<RoundPlan<IDataObject>> = {}) {
		const asked: Array<{ platforms: string[]; cursor?: string }> = [];
		const outcome = await collectRounds<IDataObject>({
			platforms,
			maxRequests: answers.length,
			...plan,
			fetchRound: async (round) => {
				const { statuses, posts = {} } = answers[asked.length];
				asked.push(round);
				const data = Object.entries(posts).flatMap(([platform, count]) =>
					Array.from({ length: count }, (_, i) => ({ platform, platform_id: `${platform}-${asked.length}-${i}` })),
				);
				return { data, statuses };
			},
		});
		return { asked, outcome };
	}

	it('asks every platform on the first round without a cursor', async () => {
		const { asked } = await rounds(['Bluesky', 'Reddit', 'Flickr'], [{ statuses: [] }]);
		expect(asked[0]).toEqual({
			platforms: ['Bluesky', 'Reddit', 'Flickr'],
		});
	});

	it('names only the platform with more, and its cursor, after one is exhausted and one failed', async () => {
		const { asked, outcome } = await rounds(
			['Bluesky', 'Reddit', 'Flickr'],
			[
				{
					statuses: [ok('Bluesky', null), failed('Reddit', 'invalid_term'), ok('Flickr', 'cur-flickr-2')],
					posts: { Bluesky: 20, Flickr: 20 },
				},
				{ statuses: [ok('Flickr', null)], posts: { Flickr: 20 } },
			],
		);
		expect(asked[1]).toEqual({ platforms: ['Flickr'], cursor: 'cur-flickr-2' });
		expect(outcome.progress.find((p) => p.platform === 'Reddit')).toMatchObject({
			state: 'failed',
			error: { code: 'invalid_term', message: 'Reddit failed' },
		});
	});

	it('stops a platform once its limit is met, across pages', async () => {
		const { asked, outcome } = await rounds(
			['Bluesky', 'Flickr'],
			[
				{ statuses: [ok('Bluesky', 'b2', 25), ok('Flickr', 'f2', 20)], posts: { Bluesky: 25, Flickr: 20 } },
				{ statuses: [ok('Bluesky', 'b3', 25), ok('Flickr', 'f3', 20)], posts: { Bluesky: 25, Flickr: 20 } },
			],
			{ limit: 30, maxRequests: 10 },
		);
		expect(asked[1]).toEqual({ platforms: ['Bluesky', 'Flickr'], cursor: 'b2,f2' });
		expect(asked).toHaveLength(2);
		expect(outcome.requestCapReached).toBeUndefined();
	});

	it('asks a platform again after a retryable failure, with its last cursor, then gives up', async () => {
		const { asked, outcome } = await rounds(
			['TikTok', 'Vimeo'],
			[
				{ statuses: [ok('TikTok', 't2'), ok('Vimeo', 'v2')], posts: { TikTok: 20, Vimeo: 20 } },
				{ statuses: [failed('TikTok', 'fetch_timeout'), ok('Vimeo', 'v3')], posts: { Vimeo: 20 } },
				{ statuses: [failed('TikTok', 'fetch_timeout'), ok('Vimeo', null)], posts: { Vimeo: 20 } },
			],
			{ maxPlatformRetries: 1, maxRequests: 10 },
		);
		expect(asked[2]).toEqual({ platforms: ['TikTok', 'Vimeo'], cursor: 't2,v3' });
		expect(asked).toHaveLength(3);
		expect(outcome.requestCapReached).toBeUndefined();
		expect(outcome.progress[0]).toMatchObject({ state: 'failed', error: { code: 'fetch_timeout' } });
	});

	it('resumes from given cursors', async () => {
		const { asked } = await rounds(['Bluesky', 'Flickr'], [{ statuses: [] }], { cursors: { Flickr: 'f9' } });
		expect(asked[0]).toEqual({
			platforms: ['Bluesky', 'Flickr'],
			cursor: 'f9',
		});
	});
});

describe('one round, step by step', () => {
	const progress = (platform: string, cursor: string | null = null): PlatformProgress => ({
		platform,
		state: cursor ? 'more' : 'first',
		cursor,
		collected: 0,
		failures: 0,
	});
	const everyOnce = () => {
		const seen = new Set<unknown>();
		return (item: IDataObject) => !seen.has(item.id) && Boolean(seen.add(item.id));
	};
	const rules = (extra: Partial<PageRules<IDataObject>> = {}): PageRules<IDataObject> => ({
		limit: Number.POSITIVE_INFINITY,
		maxPlatformRetries: 2,
		fresh: everyOnce(),
		pageCount: {},
		...extra,
	});

	test('sortRound: items by the platform asked that succeeded; the rest strays, each once', () => {
		const report = {
			Twitter: { platform: 'Twitter', success: true },
			Reddit: { platform: 'Reddit', success: false, error_code: 'platform_error' },
		};
		const data = [
			{ id: 1, platform: 'X' },
			{ id: 2, platform: 'Reddit' },
			{ id: 3, platform: 'Mastodon' },
			{ id: 3, platform: 'Mastodon' },
		];
		const sorted = sortRound(data, ['Twitter', 'Reddit'], report, everyOnce());
		// X is Twitter's other name.
		expect(sorted.groups).toEqual({ Twitter: [{ id: 1, platform: 'X' }], Reddit: [] });
		expect(sorted.stray.map((item) => item.id)).toEqual([2, 3]);
		// One platform asked: every item is its own, whatever it is called.
		expect(sortRound([{ id: 9, platform: 'twitter.com' }], ['Twitter'], report, everyOnce()).groups).toEqual({ Twitter: [{ id: 9, platform: 'twitter.com' }] });
	});

	test('settlePage: a page moves the cursor on and numbers the platform\'s pages; a cursor that does not move ends it', () => {
		const p = progress('Bluesky');
		const pageCount = {};
		const first = settlePage(p, { platform: 'Bluesky', success: true, next_cursor: 'c1', has_more: true }, [{ id: 1 }, { id: 2 }], rules({ pageCount }));
		expect(first).toMatchObject({ page: 1, cursorSent: null, items: [{ id: 1 }, { id: 2 }] });
		expect(p).toMatchObject({ state: 'more', cursor: 'c1', collected: 2 });
		const stuck = settlePage(p, { platform: 'Bluesky', success: true, next_cursor: 'c1', has_more: true }, [{ id: 3 }], rules({ pageCount }));
		expect(stuck).toMatchObject({ page: 2, cursorSent: 'c1' });
		expect(p.state).toBe('done');
	});

	test('settlePage: items held to the room the limit leaves, and to what `take` keeps', () => {
		const p = { ...progress('Reddit'), collected: 3 };
		const take = (_platform: string, items: IDataObject[]) => ({ items: items.filter((item) => item.id !== 5), finished: false });
		const record = settlePage(p, { platform: 'Reddit', success: true, next_cursor: 'n', has_more: true }, [{ id: 4 }, { id: 5 }, { id: 6 }, { id: 7 }], rules({ limit: 5, take }));
		expect(record.items).toEqual([{ id: 4 }, { id: 6 }]);
		expect(p).toMatchObject({ collected: 5, state: 'done' });
	});

	test('settlePage: a retryable failure is asked again until the retries run out; another fails at once', () => {
		const p = progress('Twitter', 'c4');
		const timeout = { platform: 'Twitter', success: false, error_code: 'fetch_timeout', message: 'slow' };
		expect(settlePage(p, timeout, [], rules({ maxPlatformRetries: 1 })).willRetry).toBe(true);
		expect(p).toMatchObject({ state: 'more', cursor: 'c4', failures: 1, error: { code: 'fetch_timeout', message: 'slow' } });
		expect(settlePage(p, timeout, [], rules({ maxPlatformRetries: 1 })).willRetry).toBe(false);
		expect(p.state).toBe('failed');

		const refused = progress('Facebook');
		settlePage(refused, { platform: 'Facebook', success: false, error_code: 'connection_required' }, [], rules());
		expect(refused).toMatchObject({ state: 'failed', failures: 1, error: { code: 'connection_required', message: 'connection_required' } });
	});
});
