import {
	newestFeedPages,
	pollFeeds,
	type FeedPollState,
} from '../../../nodes/SocialAggregatorFeedTrigger/feedPoll';
import { decodeIds } from '../../../nodes/SocialAggregatorFeedTrigger/idSet';
import type { FetchFeedPage } from '../../../nodes/shared/feedWalk';
import { newestPosts } from '../../../nodes/shared/pollRun';
import { FeedListStub, ORDERS, type ListOrder } from '../support/feedListStub';

/** Where feed 1's held walk reads on, as saved. */
const heldOf = (state: FeedPollState) => state.feeds?.['1'].held as { nextPage?: number } | undefined;

/** Feeds as the service lists them: newest (highest id) first, pages by offset. */
class FeedStub {
	posts: Record<string, number[]> = {};
	asked: Array<[string, number, number]> = [];
	private nextId = 1000;

	add(feedId: string, count: number): number[] {
		const added = Array.from({ length: count }, () => ++this.nextId);
		this.posts[feedId] = [...added.reverse(), ...(this.posts[feedId] ?? [])];
		return [...added].reverse();
	}

	remove(feedId: string, ids: number[]): void {
		this.posts[feedId] = this.posts[feedId].filter((id) => !ids.includes(id));
	}

	fetch: FetchFeedPage = async (feedId, page, perPage) => {
		this.asked.push([feedId, page, perPage]);
		const all = this.posts[feedId] ?? [];
		const slice = all.slice((page - 1) * perPage, page * perPage);
		return { posts: slice.map((id) => ({ id })), totalPages: Math.ceil(all.length / perPage) };
	};
}

const ids = (posts: Array<{ post: { id: number } }>) => posts.map((p) => p.post.id);

describe('pollFeeds', () => {
	it('records the highest id of the newest page on the first poll, one request, nothing emitted', async () => {
		const api = new FeedStub();
		api.add('1', 30);
		const result = await pollFeeds('', ['1'], {}, api.fetch);
		expect(result.posts).toEqual([]);
		expect(result.state).toEqual({ feeds: { '1': { floor: 1030, ids: '', anchors: [] } } });
		expect(api.asked).toEqual([['1', 1, 100]]);
	});

	it('nothing new: one request per feed; new posts over pages: each once, oldest first, mark moved', async () => {
		const api = new FeedStub();
		api.add('1', 30);
		api.add('2', 3);
		let state: FeedPollState = (await pollFeeds('', ['1', '2'], {}, api.fetch)).state;
		api.asked = [];
		const quiet = await pollFeeds('', ['1', '2'], state, api.fetch);
		expect(quiet.posts).toEqual([]);
		expect(api.asked).toEqual([['1', 1, 100], ['2', 1, 100]]);

		const added = api.add('1', 250);
		api.asked = [];
		const burst = await pollFeeds('', ['1', '2'], quiet.state, api.fetch);
		expect(ids(burst.posts)).toEqual(added);
		expect(api.asked.filter(([feed]) => feed === '1').map(([, page]) => page)).toEqual([1, 2, 3]);
		state = burst.state;
		// The posts emitted, one run above the floor (the IDs between went to feed 2): a few characters.
		expect(state.feeds?.['1']).toEqual({ floor: 1030, ids: expect.any(String), anchors: [] });
		expect(decodeIds(String(state.feeds?.['1'].ids))).toEqual(added);
		expect(String(state.feeds?.['1'].ids).length).toBeLessThan(10);
	});

	it('never emits a post at or below the mark again (a deleted post restored keeps its id)', async () => {
		const api = new FeedStub();
		api.add('1', 5);
		const first = await pollFeeds('', ['1'], {}, api.fetch);
		const [a, b] = api.add('1', 2);
		const second = await pollFeeds('', ['1'], first.state, api.fetch);
		expect(ids(second.posts)).toEqual([a, b]);
		api.remove('1', [b]);
		const third = await pollFeeds('', ['1'], second.state, api.fetch);
		api.posts['1'] = [b, ...api.posts['1']];
		const fourth = await pollFeeds('', ['1'], third.state, api.fetch);
		expect(third.posts).toEqual([]);
		expect(fourth.posts).toEqual([]);
	});

	it('a budget spent part way emits what it read; the next polls read on and emit the rest, each once', async () => {
		const api = new FeedStub();
		api.add('1', 10);
		const start = await pollFeeds('', ['1'], {}, api.fetch, { perPage: 10 });
		const burst = api.add('1', 35);
		const held = await pollFeeds('', ['1'], start.state, api.fetch, { perPage: 10, budgetLeft: 2 });
		expect(ids(held.posts)).toEqual(burst.slice(15));
		expect(held.outcomes['1']).toEqual({ kind: 'held', posts: held.posts.map((p) => p.post) });
		expect(heldOf(held.state)?.nextPage).toBe(3);
		expect(held.state.feeds?.['1'].floor).toBe(start.state.feeds?.['1'].floor);
		// What a held walk keeps is IDs and where it reads on, never whole posts.
		expect(held.state.feeds?.['1'].held).toEqual({ nextPage: 3, seen: burst.slice(15, 25).reverse(), start: { id: burst[34] } });

		const none = await pollFeeds('', ['1'], held.state, api.fetch, { perPage: 10, budgetLeft: 0 });
		expect(none.outcomes['1']).toEqual({ kind: 'notAsked' });
		expect(none.state.feeds?.['1']).toEqual({ ...held.state.feeds?.['1'], skipped: true });
		// One request left is not enough to read on (the last page again, then the next): it waits for two.
		api.asked = [];
		const one = await pollFeeds('', ['1'], none.state, api.fetch, { perPage: 10, budgetLeft: 1 });
		expect(one.outcomes['1']).toEqual({ kind: 'notAsked' });
		expect(api.asked).toEqual([]);

		// Posts added meanwhile push the held pages down; the walk reads the last page again and goes on.
		const later = api.add('1', 4);
		api.asked = [];
		const done = await pollFeeds('', ['1'], one.state, api.fetch, { perPage: 10 });
		expect(ids(done.posts)).toEqual(burst.slice(0, 15));
		expect(api.asked.map(([, page]) => page)).toEqual([2, 3, 4]);
		const after = await pollFeeds('', ['1'], done.state, api.fetch, { perPage: 10 });
		expect(ids(after.posts)).toEqual(later);
	});

	it('starts over from page 1 when posts deleted since moved the held pages up past the last one read', async () => {
		const api = new FeedStub();
		api.add('1', 10);
		const start = await pollFeeds('', ['1'], {}, api.fetch, { perPage: 10 });
		const burst = api.add('1', 40);
		const held = await pollFeeds('', ['1'], start.state, api.fetch, { perPage: 10, budgetLeft: 3 });
		expect(heldOf(held.state)?.nextPage).toBe(4);
		// 12 of the posts emitted are deleted: page 3 now holds only posts older than all it read.
		const gone = burst.slice(18, 30);
		api.remove('1', gone);
		api.asked = [];
		const done = await pollFeeds('', ['1'], held.state, api.fetch, { perPage: 10 });
		expect([...ids(held.posts), ...ids(done.posts)].sort((a, b) => a - b)).toEqual(burst);
		expect(api.asked.map(([, page]) => page)).toEqual([3, 1, 2, 3]);
	});

	it('a burst with one page per poll moves on by a page each poll and emits it all once', async () => {
		const api = new FeedStub();
		api.add('1', 10);
		let state = (await pollFeeds('', ['1'], {}, api.fetch, { perPage: 10 })).state;
		const burst = api.add('1', 45);
		const emitted: number[] = [];
		for (let poll = 0; poll < 10 && emitted.length < 45; poll++) {
			const result = await pollFeeds('', ['1'], state, api.fetch, { perPage: 10, maxPagesPerFeed: 1 });
			emitted.push(...ids(result.posts));
			state = result.state;
		}
		expect(emitted.sort((a, b) => a - b)).toEqual(burst);
	});

	it('a budget too small for every feed reaches the feeds it left out first on the next poll', async () => {
		const api = new FeedStub();
		for (const feed of ['1', '2', '3']) api.add(feed, 3);
		let state = (await pollFeeds('', ['1', '2', '3'], {}, api.fetch)).state;
		const added = { '1': api.add('1', 1), '2': api.add('2', 1), '3': api.add('3', 1) };
		const first = await pollFeeds('', ['1', '2', '3'], state, api.fetch, { budgetLeft: 2 });
		expect(first.posts.map((p) => p.feedId)).toEqual(['1', '2']);
		expect(first.outcomes['3']).toEqual({ kind: 'notAsked' });
		state = first.state;
		const second = await pollFeeds('', ['1', '2', '3'], state, api.fetch, { budgetLeft: 1 });
		expect(second.posts).toEqual([{ feedId: '3', post: { id: added['3'][0] } }]);
	});

	it('another Status keeps each feed memory; a feed no longer chosen keeps its own for when it is chosen again', async () => {
		const api = new FeedStub();
		api.add('1', 3);
		const newer = api.add('2', 3);
		const state: FeedPollState = { feeds: { '1': { floor: 0, ids: '', anchors: [] }, '2': { floor: newer[0], ids: '', anchors: [] } } };
		const same = await pollFeeds('public', ['2'], state, api.fetch);
		expect(same.posts.map((p) => p.post.id)).toEqual(newer.slice(1));
		expect(Object.keys(same.state.feeds ?? {}).sort()).toEqual(['1', '2']);
		// Another Status: what each memory holds stays old; what is above it is new.
		const other = await pollFeeds('', ['1', '2'], same.state, api.fetch);
		expect(other.posts.map((p) => p.post.id)).toEqual(api.posts['1'].slice().reverse());
		expect(other.outcomes['2']).toEqual({ kind: 'emitted', posts: [] });
	});

	it('stops at the end of the list when the mark is below every post', async () => {
		const api = new FeedStub();
		const posts = api.add('1', 15);
		const poll = await pollFeeds('', ['1'], { feeds: { '1': { floor: 0, ids: '', anchors: [] } } }, api.fetch, { perPage: 10 });
		expect(poll.posts.map((p) => p.post.id)).toEqual(posts);
		expect(poll.requests).toBe(2);
	});
});

describe('newestFeedPages', () => {
	it('the newest posts over the feeds, oldest first, one page each', async () => {
		const api = new FeedStub();
		const a = api.add('1', 3);
		const b = api.add('2', 3);
		const latest = await newestPosts({ testPosts: 4 }, async (count) => await newestFeedPages(['1', '2'], api.fetch, count));
		expect(ids(latest.posts)).toEqual([a[2], ...b]);
		expect(api.asked).toEqual([['1', 1, 4], ['2', 1, 4]]);
	});
});

describe('pollFeeds, in every legal order of the list', () => {
	const HOUR = 3_600_000;
	/** A feed of 300 posts an hour apart, one pinned, polled by one feed ID. */
	function pinnedFeed(order: ListOrder) {
		const api = new FeedListStub(order);
		const history = api.history(300);
		api.pin(history[3]);
		const fetch: FetchFeedPage = (_feedId, page, perPage) => api.fetch(page, perPage);
		return { api, fetch };
	}

	/** Polls until a poll emits nothing and holds nothing; every id emitted, and the last poll's requests. */
	async function pollUntilQuiet(fetch: FetchFeedPage, state: FeedPollState, options: { maxPagesPerFeed?: number } = {}) {
		const emitted: number[] = [];
		let requests = 0;
		for (let poll = 0; poll < 20; poll++) {
			const result = await pollFeeds('', ['1'], state, fetch, options);
			state = result.state;
			emitted.push(...ids(result.posts));
			requests = result.requests;
			if (result.posts.length === 0 && result.outcomes['1'].kind !== 'held') break;
		}
		return { emitted, state, requests };
	}

	it.each(ORDERS)('%s: 150 posts and 5 stored 3 hours late between two polls: each emitted once, then a quiet poll of at most 2 requests', async (order) => {
		const { api, fetch } = pinnedFeed(order);
		const first = await pollFeeds('', ['1'], {}, fetch);
		expect(first.posts).toEqual([]);
		expect(first.requests).toBeLessThanOrEqual(2);
		const added = api.add(150);
		const late = api.add(5, 3 * HOUR);
		const { emitted, requests } = await pollUntilQuiet(fetch, first.state);
		expect(emitted.sort((a, b) => a - b)).toEqual([...added, ...late]);
		expect(requests).toBeLessThanOrEqual(2);
	});

	it.each(ORDERS)('%s: a walk held over polls while posts are stored, fresh and late: none lost, none twice', async (order) => {
		const { api, fetch } = pinnedFeed(order);
		let state = (await pollFeeds('', ['1'], {}, fetch)).state;
		const expected = [...api.add(250), ...api.add(4, 5 * HOUR)];
		const emitted: number[] = [];
		for (let poll = 0; poll < 12; poll++) {
			const result = await pollFeeds('', ['1'], state, fetch, { maxPagesPerFeed: 1 });
			emitted.push(...ids(result.posts));
			state = result.state;
			// Each poll, while the walk is held or not: a fresh post at the top and one stored late further down.
			if (poll < 6) expected.push(...api.add(1), ...api.add(1, 6 * HOUR));
		}
		expect(emitted.sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
	});
});

describe('pollFeeds: a post is new when it first shows in what the trigger watches', () => {
	/** Every post of `all` emitted once, but those removed while read (emitted or not, each at most once); nothing else. */
	function expectOnceEach(emitted: number[], all: number[], removed: number[]) {
		expect(new Set(emitted).size).toBe(emitted.length);
		expect(emitted.filter((id) => !removed.includes(id)).sort((a, b) => a - b)).toEqual(all.filter((id) => !removed.includes(id)));
		expect(emitted.every((id) => all.includes(id))).toBe(true);
	}
	const fetchOf = (api: FeedListStub): FetchFeedPage => (_feedId, page, perPage) => api.fetch(page, perPage);
	/** A feed of 300 posts an hour apart, one pinned, listed with the trigger's Status, and a first poll's memory. */
	async function watchedFeed(order: ListOrder, status?: string) {
		const api = new FeedListStub(order);
		api.status = status;
		const history = api.history(300);
		api.pin(history[5]);
		const first = await pollFeeds(status ?? '', ['1'], {}, fetchOf(api));
		expect(first.posts).toEqual([]);
		return { api, state: first.state };
	}

	it.each(ORDERS)('%s, Status Public: posts approved over polls in a moderator’s order are each emitted once, at the poll after their approval; rejected ones never', async (order) => {
		const { api, state: start } = await watchedFeed(order, 'public');
		let state = start;
		const waiting = api.add(8, 0, 'moderated');
		const poll = async () => {
			const result = await pollFeeds('public', ['1'], state, fetchOf(api));
			state = result.state;
			return ids(result.posts);
		};
		expect(await poll()).toEqual([]);
		const rounds = [waiting.slice(5), waiting.slice(0, 3), [waiting[4]]];
		api.setStatus([waiting[3]], 'rejected');
		for (const approved of rounds) {
			api.setStatus(approved, 'public');
			expect(await poll()).toEqual(approved);
			expect(await poll()).toEqual([]);
		}
		// A quiet poll stays cheap: the window's 25 posts and the new ones fit on one page.
		api.asked = [];
		expect(await poll()).toEqual([]);
		expect(api.asked.length).toBeLessThanOrEqual(2);
	});

	it.each(ORDERS.flatMap((order) => [[order, true] as const, [order, false] as const]))('%s, total_count given: %s: posts deleted while a poll reads pull others up onto a page already read; each of the others is emitted once', async (order, tellsCount) => {
		const { api, state } = await watchedFeed(order);
		api.tellsCount = tellsCount;
		const burst = api.add(250);
		const listedBefore = api.listed().map((post) => post.id);
		// Right after page 1 is answered, three of its posts are deleted (spam removed as the sync lands).
		const gone = listedBefore.slice(10, 13);
		api.asked = [];
		api.beforeAnswer = (asked) => {
			if (asked === 1) api.remove(gone);
		};
		const first = await pollFeeds('', ['1'], state, fetchOf(api));
		api.beforeAnswer = undefined;
		const second = await pollFeeds('', ['1'], first.state, fetchOf(api));
		const third = await pollFeeds('', ['1'], second.state, fetchOf(api));
		expect(third.posts).toEqual([]);
		expectOnceEach([...ids(first.posts), ...ids(second.posts), ...ids(third.posts)], burst, gone);
		// The count tells the poll to read page 1 again; without it, the next poll finds the posts it missed.
		expect(second.posts.length > 0).toBe(!tellsCount);
	});

	it.each(ORDERS)('%s, Status Public: posts rejected and unpinned while a poll reads; each other post emitted once', async (order) => {
		const { api, state } = await watchedFeed(order, 'public');
		const burst = api.add(250);
		api.pin(burst[100]);
		const listedBefore = api.listed().map((post) => post.id);
		const rejected = listedBefore.slice(20, 24).filter((id) => id !== burst[100]);
		api.asked = [];
		api.beforeAnswer = (asked) => {
			if (asked === 1) api.setStatus(rejected, 'rejected');
			if (asked === 2) api.posts.forEach((post) => post.id === burst[100] && (post.pinned = false));
		};
		const emitted: number[] = [];
		let next = state;
		for (let poll = 0; poll < 3; poll++) {
			const result = await pollFeeds('public', ['1'], next, fetchOf(api));
			api.beforeAnswer = undefined;
			emitted.push(...ids(result.posts));
			next = result.state;
		}
		expectOnceEach(emitted, burst, rejected);
	});

	it('a backlog of 5,000 posts held over polls keeps IDs, not posts: the memory stays under 100 KB, and every post is emitted once', async () => {
		const { api, state: start } = await watchedFeed('stored');
		// Posts as the service gives them: a message and a poster each, so that a memory of whole posts would show.
		const burst = api.add(5000);
		for (const post of api.posts) Object.assign(post, { message: 'x'.repeat(200), poster: { name: 'someone', picture: 'https://example.com/p.jpg' } });
		let state = start;
		const emitted: number[] = [];
		let largest = 0;
		for (let poll = 0; poll < 12; poll++) {
			const result = await pollFeeds('', ['1'], state, fetchOf(api));
			emitted.push(...ids(result.posts));
			state = result.state;
			largest = Math.max(largest, JSON.stringify(state).length);
		}
		expect(emitted.sort((a, b) => a - b)).toEqual(burst);
		expect(largest).toBeLessThan(100_000);
	});

	it('a walk held by one page a poll, with more than a page of new posts at every poll, emits at every poll', async () => {
		const { api, state: start } = await watchedFeed('stored');
		let state = start;
		const added: number[] = [];
		const emitted: number[] = [];
		for (let poll = 0; poll < 6; poll++) {
			added.push(...api.add(150));
			const result = await pollFeeds('', ['1'], state, fetchOf(api), { maxPagesPerFeed: 1 });
			expect(result.posts.length).toBeGreaterThan(0);
			emitted.push(...ids(result.posts));
			state = result.state;
		}
		// Once the posts stop coming, the next polls read on until every one of them is emitted, none twice.
		for (let poll = 0; poll < 20; poll++) {
			const result = await pollFeeds('', ['1'], state, fetchOf(api), { maxPagesPerFeed: 1 });
			emitted.push(...ids(result.posts));
			state = result.state;
		}
		expect(emitted.sort((a, b) => a - b)).toEqual(added);
	});

	it('one feed, one memory, however its ID is written', async () => {
		const api = new FeedListStub('stored');
		api.history(50);
		const first = await pollFeeds('', ['012', '12'], {}, fetchOf(api));
		expect(Object.keys(first.state.feeds ?? {})).toEqual(['12']);
		const added = api.add(2);
		const second = await pollFeeds('', ['12'], first.state, fetchOf(api));
		expect(ids(second.posts)).toEqual(added);
		const third = await pollFeeds('', ['012'], second.state, fetchOf(api));
		expect(third.posts).toEqual([]);
	});

	it('memory saved before the trigger remembered each post (a mark) emits nothing again at or below it, then remembers each post', async () => {
		const api = new FeedListStub('stored');
		const history = api.history(50);
		const since = Date.parse(String(api.posts[api.posts.length - 1].created_at));
		const added = api.add(3);
		const saved: FeedPollState = { filter: '', feeds: { '1': { mark: history[history.length - 1], since, recent: [added[1]] } as never } };
		const first = await pollFeeds('', ['1'], saved, fetchOf(api));
		expect(ids(first.posts)).toEqual([added[0], added[2]]);
		expect(first.state.feeds?.['1'].upToMark).toBeUndefined();
		expect((await pollFeeds('', ['1'], first.state, fetchOf(api))).posts).toEqual([]);
	});
});
