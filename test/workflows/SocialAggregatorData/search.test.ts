import { SHAPES } from '../../fake-service';
import { fastSleep, useFakeService } from '../support';
import { isStatus, pagesAsked, postsOf, q, runNode } from './helpers';

const fake = useFakeService();

const search = (parameters: Record<string, unknown>) => ({ resource: 'post', operation: 'search', ...parameters });

const keyOf = (json: Record<string, unknown>) => `${String(json.platform)}|${String(json.platform_id ?? json.url)}`;

// Every test in both legal shapes of the service's answers (test/fake-service/README.md, Shapes).
describe.each(SHAPES)('in the %s shape', (shapes) => {
	beforeEach(() => fake.control.setShapes(shapes));

	test('a platform that has no posts answers success (live: without a cursor): the others are searched to the end, nothing fails', async () => {
		fake.control.data.configure('Bluesky', { totalPosts: 0 });
		fake.control.data.configure('Twitter', { pages: 2 });
		const run = await runNode(fake, search({ term: '#quiet', platforms: ['Bluesky', 'Twitter'], returnAll: true }));
		expect(run.error).toBeUndefined();
		const posts = postsOf(run.items).map((item) => item.json);
		expect(posts).toHaveLength(40);
		expect(posts.every((p) => p.platform === 'Twitter')).toBe(true);
		// Bluesky is not asked again once it said it had nothing.
		expect(run.searches.map((r) => q(r, 'platforms'))).toEqual(['Bluesky,Twitter', 'Twitter']);
	});

	describe('Return All across platforms of 1, 3 and 5 pages and one that always fails', () => {
		beforeEach(() => {
			fake.control.data.configure('Bluesky', { pages: 1 }); // 25 a page
			fake.control.data.configure('Twitter', { pages: 3 }); // 20 a page
			fake.control.data.configure('YouTube', { pages: 5 }); // 20 a page
			fake.control.data.fail('Tumblr', { errorCode: 'platform_error' });
		});

		const parameters = search({
			term: '#space',
			platforms: ['Bluesky', 'Twitter', 'YouTube', 'Tumblr'],
			returnAll: true,
			options: { onPlatformFailure: 'continue' },
		});

		test('exactly 5 search requests, every post once, one status item for the failed platform', async () => {
			const run = await runNode(fake, parameters);
			expect(run.error).toBeUndefined();

			// As many requests as the deepest platform has pages; Tumblr's retries ride along.
			expect(run.searches).toHaveLength(5);
			expect(run.requests).toHaveLength(5);
			expect(run.searches.map((r) => q(r, 'platforms'))).toEqual([
				'Bluesky,Twitter,YouTube,Tumblr',
				'Twitter,YouTube,Tumblr',
				'Twitter,YouTube,Tumblr',
				'YouTube',
				'YouTube',
			]);
			expect(q(run.searches[0], 'cursor')).toBeUndefined();
			// Each later request carries the cursor of every platform continuing, comma-joined.
			expect((q(run.searches[1], 'cursor') ?? '').split(',')).toHaveLength(2);
			expect((q(run.searches[2], 'cursor') ?? '').split(',')).toHaveLength(2);
			expect((q(run.searches[3], 'cursor') ?? '').split(',')).toHaveLength(1);
			expect(run.searches.every((r) => q(r, 'term') === '#space' && q(r, 'term_type') === undefined)).toBe(true);

			const posts = postsOf(run.items);
			expect(posts).toHaveLength(25 + 3 * 20 + 5 * 20);
			expect(new Set(posts.map((p) => keyOf(p.json))).size).toBe(posts.length);
			const byPlatform = (name: string) => posts.filter((p) => p.json.platform === name).length;
			expect([byPlatform('Bluesky'), byPlatform('Twitter'), byPlatform('YouTube'), byPlatform('Tumblr')]).toEqual([
				25, 60, 100, 0,
			]);

			const statuses = run.items.filter(isStatus);
			expect(statuses).toHaveLength(1);
			expect(statuses[0].json).toMatchObject({
				type: 'platform_status',
				platform: 'Tumblr',
				success: false,
				error_code: 'platform_error',
				message: 'Tumblr returned an error',
				failed_attempts: 3,
			});
			// The status item comes after the posts.
			expect(run.items[run.items.length - 1]).toBe(statuses[0]);
			expect(run.items.every((i) => JSON.stringify(i.pairedItem) === JSON.stringify({ item: 0 }))).toBe(true);
		});

		test('the same search choosing "fail the item" stops at the failure with an error naming the platform', async () => {
			const run = await runNode(fake, { ...parameters, options: { onPlatformFailure: 'fail' } });
			expect(run.error?.message).toMatch(/Tumblr failed: Tumblr returned an error \(platform_error\)/);
			expect(run.error?.description).toMatch(/3 times in a row/);
			// Stopped as soon as Tumblr's retries ran out: no page is bought for posts that would be thrown away.
			expect(run.searches).toHaveLength(3);
		});

		test('one item per platform page, with its status and cursors', async () => {
			const run = await runNode(fake, { ...parameters, output: 'pages' });
			expect(run.searches).toHaveLength(5);
			const pages = run.items.map((i) => i.json);
			expect(pages.map((p) => `${String(p.platform)}:${String(p.page)}:${String(p.success)}`)).toEqual([
				'Bluesky:1:true',
				'Twitter:1:true',
				'YouTube:1:true',
				'Twitter:2:true',
				'YouTube:2:true',
				'Twitter:3:true',
				'YouTube:3:true',
				'Tumblr:null:false',
				'YouTube:4:true',
				'YouTube:5:true',
			]);
			const youtube = pages.filter((p) => p.platform === 'YouTube');
			for (let i = 1; i < youtube.length; i++) expect(youtube[i].cursor).toBe(youtube[i - 1].next_cursor);
			expect(youtube[4]).toMatchObject({ has_more: false, next_cursor: null, count: 20 });
			expect(pages.reduce((sum, p) => sum + (p.posts as unknown[]).length, 0)).toBe(185);
		});

		test('posts, then a status item for every platform', async () => {
			const run = await runNode(fake, { ...parameters, output: 'postsAndStatus' });
			const statuses = run.items.filter(isStatus).map((i) => i.json);
			expect(statuses).toEqual([
				expect.objectContaining({ platform: 'Bluesky', success: true, posts: 25, pages: 1, has_more: false }),
				expect.objectContaining({ platform: 'Twitter', success: true, posts: 60, pages: 3, has_more: false }),
				expect.objectContaining({ platform: 'YouTube', success: true, posts: 100, pages: 5, has_more: false }),
				expect.objectContaining({ platform: 'Tumblr', success: false, error_code: 'platform_error' }),
			]);
		});
	});

	test('a platform that fails once is retried within the same rounds and loses nothing', async () => {
		fake.control.data.configure('Bluesky', { pages: 2 });
		fake.control.data.configure('Twitter', { pages: 2 });
		fake.control.data.fail('Twitter', { errorCode: 'fetch_timeout', times: 1 });
		const run = await runNode(fake, search({ term: 'nasa', platforms: ['Bluesky', 'Twitter'], returnAll: true }));
		expect(run.searches.map((r) => q(r, 'platforms'))).toEqual(['Bluesky,Twitter', 'Bluesky,Twitter', 'Twitter']);
		expect(postsOf(run.items)).toHaveLength(2 * 25 + 2 * 20);
		expect(run.items.filter(isStatus)).toHaveLength(0);
	});

	test('Limit 30 per platform fetches no page beyond what 30 posts need on each platform', async () => {
		fake.control.data.configure('Bluesky', { pages: 5 }); // 25 a page: 2 pages
		fake.control.data.configure('Twitter', { pages: 5, pageSize: 40 }); // 40 a page: 1 page
		fake.control.data.configure('YouTube', { pages: 5 }); // 20 a page: 2 pages
		// Pinterest has no pagination: its one page of 25 is all there is.
		const run = await runNode(
			fake,
			search({
				term: 'nasa',
				platforms: ['Bluesky', 'Twitter', 'YouTube', 'Pinterest'],
				returnAll: false,
				limit: 30,
				output: 'postsAndStatus',
			}),
		);
		expect(run.error).toBeUndefined();
		expect(pagesAsked(run.searches)).toEqual({ Bluesky: 2, Twitter: 1, YouTube: 2, Pinterest: 1 });
		expect(run.searches).toHaveLength(2);
		const posts = postsOf(run.items);
		const count = (name: string) => posts.filter((p) => p.json.platform === name).length;
		expect([count('Bluesky'), count('Twitter'), count('YouTube'), count('Pinterest')]).toEqual([30, 30, 30, 25]);
		// Credits were spent on those 6 pages only.
		expect(fake.control.data.credits().byPlatform).toEqual({ Bluesky: 2, Twitter: 1, YouTube: 2, Pinterest: 1 });
		const statuses = run.items.filter(isStatus).map((i) => i.json);
		expect(statuses.find((s) => s.platform === 'Twitter')).toMatchObject({ has_more: true, posts: 30, pages: 1 });
		expect(statuses.find((s) => s.platform === 'Pinterest')).toMatchObject({ has_more: false, posts: 25 });
	});

	describe('cursors', () => {
		async function firstPageCursors() {
			const run = await runNode(
				fake,
				search({
					term: 'nasa',
					platforms: ['Bluesky', 'Twitter', 'YouTube'],
					limit: 20,
					output: 'postsAndStatus',
				}),
			);
			const cursors: Record<string, string> = {};
			for (const s of run.items.filter(isStatus)) cursors[String(s.json.platform)] = String(s.json.next_cursor);
			return cursors;
		}

		const resume = (cursors: Record<string, string>) =>
			search({
				term: 'nasa',
				platforms: ['Bluesky', 'Twitter', 'YouTube'],
				limit: 20,
				output: 'postsAndStatus',
				options: { resumeCursors: { cursor: Object.entries(cursors).map(([platform, cursor]) => ({ platform, cursor })) } },
			});

		test('resuming from the cursors of an earlier search continues each platform', async () => {
			const cursors = await firstPageCursors();
			const run = await runNode(fake, resume(cursors));
			expect(run.searches).toHaveLength(1);
			expect((q(run.searches[0], 'cursor') ?? '').split(',').sort()).toEqual(Object.values(cursors).sort());
			expect(postsOf(run.items)).toHaveLength(60);
		});

		test('a tampered cursor: invalid_cursor for that platform, the others’ posts intact', async () => {
			const cursors = await firstPageCursors();
			const reference = await runNode(fake, resume(cursors));
			const tamperedCursor = cursors.Twitter.slice(0, -2) + (cursors.Twitter.endsWith('AA') ? 'BB' : 'AA');
			const run = await runNode(fake, resume({ ...cursors, Twitter: tamperedCursor }));

			expect(run.error).toBeUndefined();
			expect(run.searches).toHaveLength(1); // invalid_cursor is not retried
			const keys = (items: typeof run.items, platform: string) =>
				postsOf(items)
					.filter((i) => i.json.platform === platform)
					.map((i) => String(i.json.platform_id));
			for (const platform of ['Bluesky', 'YouTube']) {
				expect(keys(run.items, platform)).toEqual(keys(reference.items, platform));
				expect(keys(run.items, platform)).toHaveLength(20);
			}
			expect(keys(run.items, 'Twitter')).toEqual([]);
			const twitter = run.items.filter(isStatus).find((s) => s.json.platform === 'Twitter');
			expect(twitter?.json).toMatchObject({ success: false, error_code: 'invalid_cursor', resume_cursor: tamperedCursor });
		});
	});

	describe('input docs/service.md#term-types rules out is refused before any request', () => {
		test.each([
			['an empty term', { term: '  ', platforms: ['Bluesky'] }, /Invalid Term \(item 0\): the term is empty/],
			[
				'Reddit with an auto-detected username',
				{ term: 'nasa', platforms: ['Bluesky', 'Reddit'] },
				/Invalid Term Type \(item 0, platform Reddit\): Reddit does not take username terms/,
			],
			[
				'Google without reviews',
				{ term: 'ChIJabcdefgh12', platforms: ['Google'], termType: 'username' },
				/platform Google\): Google Reviews does not take username terms/,
			],
			[
				'Google reviews without a place id',
				{ term: '@cafe', platforms: ['Google'], termType: 'reviews' },
				/Invalid Term \(item 0, platform Google\): Google reviews take a place ID/,
			],
			[
				'an unknown platform',
				{ term: 'nasa', platforms: '={{ ["Bluesky", "Myspace"] }}' },
				/Invalid Platforms \(item 0, platform Myspace\)/,
			],
			[
				'a term type a platform does not take',
				{ term: 'nasa', platforms: ['Bluesky', 'Vimeo'], termType: 'hashtag' },
				/platform Vimeo\): Vimeo does not take hashtag terms/,
			],
		])('%s: zero requests', async (_name, parameters, message) => {
			const run = await runNode(fake, search({ returnAll: true, ...parameters }));
			expect(run.error?.message).toMatch(message);
			expect(run.error?.description).toMatch(/no credits were spent/);
			expect(run.requests).toHaveLength(0);
			expect(fake.control.data.credits().total).toBe(0);
		});

		test('with Continue On Fail: an error item for the refused input item, the others searched', async () => {
			fake.control.data.configure('Bluesky', { pages: 1 });
			const run = await runNode(
				fake,
				search({ term: '={{ $json.term }}', platforms: '={{ $json.platforms }}', returnAll: true }),
				{
					items: [
						{ term: 'nasa', platforms: ['Reddit'] },
						{ term: 'nasa', platforms: ['Bluesky'] },
					],
					onError: 'continueRegularOutput',
				},
			);
			expect(run.error).toBeUndefined();
			expect(run.searches).toHaveLength(1);
			expect(q(run.searches[0], 'platforms')).toBe('Bluesky');
			expect(run.items[0]).toEqual({
				json: expect.objectContaining({ error: expect.stringMatching(/platform Reddit/) }),
				pairedItem: { item: 0 },
			});
			expect(run.items.slice(1)).toHaveLength(25);
			expect(run.items.slice(1).every((i) => JSON.stringify(i.pairedItem) === '{"item":1}')).toBe(true);
		});
	});

	test('parameters are read per input item, and each item’s output is paired with it', async () => {
		fake.control.data.configure('Bluesky', { pages: 1 });
		fake.control.data.configure('Twitter', { pages: 1 });
		const run = await runNode(fake, search({ term: '={{ $json.term }}', platforms: '={{ $json.platform }}', returnAll: true }), {
			items: [
				{ term: '#space', platform: 'Bluesky' },
				{ term: '@nasa', platform: 'twitter' },
			],
		});
		expect(run.searches.map((r) => [q(r, 'term'), q(r, 'platforms')])).toEqual([
			['#space', 'Bluesky'],
			['@nasa', 'Twitter'],
		]);
		expect(run.items.filter((i) => JSON.stringify(i.pairedItem) === '{"item":0}').every((i) => i.json.platform === 'Bluesky')).toBe(true);
		expect(run.items.filter((i) => JSON.stringify(i.pairedItem) === '{"item":1}')).toHaveLength(20);
	});

	test('an explicit term type is sent and applied to every platform (Reddit channel)', async () => {
		const run = await runNode(fake, search({ term: 'space', platforms: ['Reddit', 'YouTube'], termType: 'channel', limit: 5 }));
		expect(run.error).toBeUndefined();
		expect(q(run.searches[0], 'term_type')).toBe('channel');
		expect(postsOf(run.items)).toHaveLength(10);
	});

	test('a 429 follows the transport’s retry rules and the search resumes where it was', async () => {
		fake.control.data.configure('Bluesky', { pages: 2 });
		fake.control.injectFault({ path: '/data/posts', kind: 'error', status: 429, retryAfter: 3, skip: 1 });
		const sleep = fastSleep();
		try {
			const run = await runNode(fake, search({ term: 'nasa', platforms: ['Bluesky'], returnAll: true }));
			expect(run.error).toBeUndefined();
			expect(run.searches.map((r) => r.status)).toEqual([200, 429, 200]);
			// The retry repeats the second page's request, cursor and all.
			expect(q(run.searches[2], 'cursor')).toBe(q(run.searches[1], 'cursor'));
			expect(q(run.searches[1], 'cursor')).toBeDefined();
			expect(sleep.waits).toEqual([3000]);
			expect(postsOf(run.items)).toHaveLength(50);
		} finally {
			sleep.restore();
		}
	});

	test('a service error that outlasts the retries fails the item; Continue On Fail turns it into an error item', async () => {
		fake.control.injectFault({ path: '/data/posts', kind: 'error', status: 503, count: 'always' });
		const sleep = fastSleep();
		try {
			const failed = await runNode(fake, search({ term: 'nasa', platforms: ['Bluesky'], returnAll: true }));
			expect(failed.error?.httpCode).toBe('503');
			const continued = await runNode(fake, search({ term: 'nasa', platforms: ['Bluesky'], returnAll: true }), {
				onError: 'continueRegularOutput',
			});
			expect(continued.items).toEqual([
				{ json: expect.objectContaining({ error: expect.any(String) }), pairedItem: { item: 0 } },
			]);
		} finally {
			sleep.restore();
		}
	});
});
