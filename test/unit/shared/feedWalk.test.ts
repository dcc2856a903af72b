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

	it.each(ORDERS)('%s: a page cap gives what was read and where to read on; reading on finds the rest', async (order) => {
		const { api, mark, since } = feedWithHistory(order);
		const added = api.add(250);
		const late = api.add(3, 20 * HOUR);
		const first = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 2 });
		expect(first.done).toBe(false);
		expect(first.held?.nextPage).toBe(3);
		// Posts stored meanwhile: the fresh ones at the top (read by the next walk), one stored late further down.
		const more = api.add(40);
		const [moreLate] = api.add(1, 10 * HOUR);
		expect(first.held).not.toHaveProperty('posts');
		const second = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10, held: first.held });
		expect(second.done).toBe(true);
		const found = new Set([...first.posts, ...second.posts].map((post) => post.id));
		expect([...found].filter((id) => !more.includes(id) && id !== moreLate).sort((a, b) => a - b)).toEqual([...added, ...late]);
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
		expect(walk.start).toEqual({ id: walk.highestId, stored: Date.parse(String(api.posts[api.posts.length - 1].created_at)), count: 300 });
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
		const found = new Set([...first.posts, ...second.posts].map((post) => post.id));
		expect([...found].sort((a, b) => a - b)).toEqual(added);
	});
});

describe('walkFeedPosts, pages as a service may cut them', () => {
	it('a page shorter than asked reads on where `total_pages` says more follow; without it, it ends the list', async () => {
		const { api, mark, since } = feedWithHistory('stored');
		const added = api.add(30);
		// A service that leaves a deleted post out of a page: page 1 holds 9 of 10.
		const short = async (page: number, perPage: number) => {
			const answer = await api.fetch(page, perPage);
			return page === 1 ? { ...answer, posts: answer.posts.slice(1) } : answer;
		};
		const walk = await walkFeedPosts(short, aboveMark(mark, since), { maxPages: 10, perPage: 10 });
		expect(walk.posts.map((post) => post.id)).toEqual(added.slice(0, -1));
		const untold = async (page: number, perPage: number) => ({ ...(await short(page, perPage)), totalPages: undefined });
		const cut = await walkFeedPosts(untold, aboveMark(mark, since), { maxPages: 10, perPage: 10 });
		expect(cut.requests).toBe(1);
	});

	it('a held walk whose last page now holds only posts stored since reads on down to it, not from the top', async () => {
		const { api, mark, since } = feedWithHistory('stored');
		const added = api.add(40);
		const first = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 2, perPage: 10 });
		const more = api.add(25);
		api.asked = [];
		const second = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10, perPage: 10, held: first.held });
		// Page 2 and 3 now hold posts stored since; page 4 the last read.
		expect(api.asked.slice(0, 3)).toEqual([2, 3, 4]);
		const found = new Set([...first.posts, ...second.posts].map((post) => post.id));
		expect([...found].filter((id) => !more.includes(id)).sort((a, b) => a - b)).toEqual(added);
	});
});

describe('walkFeedPosts, a list that shrinks while it is read', () => {
	it.each(ORDERS)('%s: posts deleted above the page read pull others up; `total_count` tells, and the pages read are read again', async (order) => {
		const { api, mark, since } = feedWithHistory(order);
		const added = api.add(250);
		const listed = api.listed().map((post) => post.id);
		// After page 2 is answered, 3 posts of page 1 and 2 of page 2 go: 5 posts move up across pages 1 to 3.
		const gone = [...listed.slice(5, 8), ...listed.slice(150, 152)].filter((id) => added.includes(id));
		api.beforeAnswer = (asked) => {
			if (asked === 2) api.remove(gone);
		};
		const walk = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10 });
		const found = walk.posts.map((post) => post.id);
		expect(found.filter((id) => !gone.includes(id))).toEqual(added.filter((id) => !gone.includes(id)));
		// Page 3 showed the list shrank: page 2 read again, then page 4.
		expect(api.asked).toEqual([1, 2, 3, 2, 4]);
	});

	it('without `total_count` the walk cannot tell: the posts pulled up onto a page read are not found by this walk', async () => {
		const { api, mark, since } = feedWithHistory('stored');
		api.tellsCount = false;
		const added = api.add(250);
		const gone = api.listed().slice(5, 8).map((post) => post.id);
		api.beforeAnswer = (asked) => {
			if (asked === 1) api.remove(gone);
		};
		const walk = await walkFeedPosts(api.fetch, aboveMark(mark, since), { maxPages: 10 });
		expect(walk.posts).toHaveLength(added.length - 3);
		expect(api.asked).toEqual([1, 2, 3]);
	});
});

describe('feedPageAnswer', () => {
	it('reads posts and total pages; refuses a post without an integer id', () => {
		expect(feedPageAnswer({ data: [{ id: '12' }], meta: { total_pages: 3, total_count: 21 } }, { page: 1 })).toEqual({ posts: [{ id: 12 }], totalPages: 3, totalCount: 21 });
		expect(() => feedPageAnswer({ data: [{ id: 'x' }] }, { page: 2 })).toThrow(UnusableAnswer);
		expect(() => feedPageAnswer({ data: [{}] }, { page: 2 })).toThrow('post 1 has no integer `id`');
	});
});
