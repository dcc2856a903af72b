import type { IDataObject } from 'n8n-workflow';

import { collectRounds, type RoundPlan } from '../../../nodes/shared/rounds';
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
