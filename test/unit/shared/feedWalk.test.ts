import { UnusableAnswer } from '../../../nodes/shared/answerShapes';
import { feedPageAnswer, walkFeedPosts, type WalkBound } from '../../../nodes/shared/feedWalk';
import { FeedListStub, ORDERS } from '../support/feedListStub';

const HOUR = 3_600_000;
const LATE = 25 * HOUR;

/** The bound of a walk for posts above `mark`, the newest post at or below it stored at `since`. */
const aboveMark = (mark: number, since?: number): WalkBound => ({ isOld: (post) => post.id <= mark, since, lateMs: LATE });

/** A feed with 300 posts of history (an hour apart), one of them pinned, and where it stands. */
function feedWithHistory(order: (typeof ORDERS)[number]) {
	const api = new FeedListStub(order);
	const history = api.history(300);
	api.pin(history[10]);
	const mark = history[history.length - 1];
	return { api, mark, since: api.now };
}

describe('walkFeedPosts, in every legal order', () => {
	it.each(ORDERS)('%s: 150 posts and 5 stored 3 hours after they were published, all found once, oldest first', async (order) => {
		const { api, mark, since } = feedWithHistory(order);
		const added = api.add(150);
		const late = api.add(5, 3 * HOUR);
		const walk = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10 });
		expect(walk.done).toBe(true);
		expect(walk.posts.map((post) => post.id)).toEqual([...added, ...late]);
	});

	it.each(ORDERS)('%s: nothing new and fewer than 100 posts in the window: at most 2 requests', async (order) => {
		const { api, mark, since } = feedWithHistory(order);
		const walk = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10 });
		expect(walk).toMatchObject({ done: true, posts: [] });
		expect(walk.requests).toBeLessThanOrEqual(2);
	});

	it.each(ORDERS)('%s: a page cap holds what was read; reading on finds the rest, none twice', async (order) => {
		const { api, mark, since } = feedWithHistory(order);
		const added = api.add(250);
		const late = api.add(3, 20 * HOUR);
		const first = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 2 });
		expect(first.done).toBe(false);
		expect(first.held?.nextPage).toBe(3);
		// Posts stored meanwhile: the fresh ones at the top (read by the next walk), one stored late further down.
		const more = api.add(40);
		const [moreLate] = api.add(1, 10 * HOUR);
		const second = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10, held: first.held });
		expect(second.done).toBe(true);
		const found = second.posts.map((post) => post.id);
		expect(found.filter((id) => !more.includes(id) && id !== moreLate)).toEqual([...added, ...late]);
		// The first page showed, when the walk began, a post no higher than those stored since.
		expect(second.start?.id).toBeLessThan(more[0]);
	});

	it('a post published longer before its storing than the window is past where the walk stops (by platform time)', async () => {
		const { api, mark, since } = feedWithHistory('platformPinnedFirst');
		api.add(1);
		const [tooLate] = api.add(1, 48 * HOUR);
		const walk = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10, perPage: 10 });
		expect(walk.posts.map((post) => post.id)).not.toContain(tooLate);
		expect(walk.requests).toBe(3);
		// By the order it was stored it comes first, and is found.
		api.order = 'stored';
		const stored = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10, perPage: 10 });
		expect(stored.posts.map((post) => post.id)).toContain(tooLate);
	});

	it('a pinned post ends no walk: the old behaviour (stop at the first page holding an old post) would miss page 2', async () => {
		const { api, mark, since } = feedWithHistory('platformPinnedFirst');
		const added = api.add(150);
		const walk = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10 });
		expect(api.asked.length).toBeGreaterThanOrEqual(2);
		expect(walk.posts).toHaveLength(150);
		expect(walk.posts.map((post) => post.id)).toEqual(added);
	});

	it('without a known `since`, the old posts read tell it; without any time, the first old post ends the walk', async () => {
		const { api } = feedWithHistory('platform');
		const all = { isOld: () => true, lateMs: LATE };
		const walk = await walkFeedPosts(api.fetch, all, { maxPages: 10 });
		// The 25 hours of history an hour apart fit on page 1.
		expect(walk).toMatchObject({ done: true, posts: [], requests: 1, highestId: api.posts[api.posts.length - 1].id });
		expect(walk.start).toEqual({ id: walk.highestId, stored: Date.parse(String(api.posts[api.posts.length - 1].created_at)) });
		const untimed = async (page: number, perPage: number) => {
			const answer = await api.fetch(page, perPage);
			return { ...answer, posts: answer.posts.map(({ id }) => ({ id })) };
		};
		const bare = await walkFeedPosts(untimed, all, { maxPages: 10, perPage: 10 });
		expect(bare.requests).toBe(1);
	});

	it('a held walk whose last page no longer overlaps what it read starts over from page 1', async () => {
		const { api, mark, since } = feedWithHistory('stored');
		const added = api.add(40);
		const first = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 3, perPage: 10 });
		api.remove(added.slice(18, 30));
		api.asked = [];
		const second = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10, perPage: 10, held: first.held });
		expect(api.asked.slice(0, 2)).toEqual([3, 1]);
		expect(second.posts.map((post) => post.id)).toEqual(added);
	});
});

describe('feedPageAnswer', () => {
	it('reads posts and total pages; refuses a post without an integer id', () => {
		expect(feedPageAnswer({ data: [{ id: '12' }], meta: { total_pages: 3 } }, { page: 1 })).toEqual({ posts: [{ id: 12 }], totalPages: 3 });
		expect(() => feedPageAnswer({ data: [{ id: 'x' }] }, { page: 2 })).toThrow(UnusableAnswer);
		expect(() => feedPageAnswer({ data: [{}] }, { page: 2 })).toThrow('post 1 has no integer `id`');
	});
});
