import { pollFeeds, pollShare, type FeedPollState } from '../../../nodes/SocialAggregatorFeedTrigger/feedPoll';
import { FeedListStub, ORDERS } from '../support/feedListStub';

// The Feed Trigger at the volumes real feeds have: a source that syncs once a day, an event wall of 500 posts an hour,
// windows of tens of thousands of posts, walks held over polls while the list moves. The stub's clock moves between
// polls, so days pass in a second.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** One trigger over one feed: its state saved as n8n saves it, what it emitted (times each), each poll's requests. */
function triggerOn(api: FeedListStub, options: { maxPagesPerFeed?: number; lateMs?: number; budgetLeft?: number } = {}) {
	let state: FeedPollState = {};
	const emitted = new Map<number, number>();
	const polls: Array<{ requests: number; emitted: number }> = [];
	return {
		emitted,
		polls,
		state: () => state,
		async poll(status = '', override: { lateMs?: number; maxPagesPerFeed?: number } = {}) {
			api.status = status === '' ? undefined : status;
			const result = await pollFeeds(status, ['1'], state, (_feed, page, perPage) => api.fetch(page, perPage), {
				...options,
				...override,
				now: api.now,
			});
			state = JSON.parse(JSON.stringify(result.state)) as FeedPollState;
			for (const { post } of result.posts) emitted.set(post.id, (emitted.get(post.id) ?? 0) + 1);
			polls.push({ requests: result.requests, emitted: result.posts.length });
			return result;
		},
	};
}

/** Posts emitted more than once, and posts emitted that are not among `expected`. */
function misses(emitted: Map<number, number>, expected: number[]) {
	const wanted = new Set(expected);
	return {
		twice: [...emitted].filter(([, times]) => times > 1).length,
		unexpected: [...emitted.keys()].filter((id) => !wanted.has(id)).length,
		missing: expected.filter((id) => !emitted.has(id)).length,
	};
}

/** `perHour` posts an hour for `hours`, each stored `lagMs` after it was published; their ids. */
function wall(api: FeedListStub, perHour: number, hours: number, lagMs = 60_000): number[] {
	const ids: number[] = [];
	const step = HOUR / perHour;
	for (let i = 0; i < perHour * hours; i++) {
		api.now += step - 1000;
		ids.push(...api.add(1, lagMs));
	}
	return ids;
}

const newPostCost = (emitted: number) => Math.ceil(emitted / 100) + 2;

/** A trigger published on an event wall with 25 hours of 500 posts an hour there, after its first poll. */
async function publishedOnWall(order: (typeof ORDERS)[number]) {
	const api = new FeedListStub(order);
	wall(api, 500, 25);
	const trigger = triggerOn(api);
	await trigger.poll();
	return { api, trigger };
}

describe('pollFeeds at the volumes real feeds have', () => {
	it.each(ORDERS)(
		'a source that syncs once a day, 600 posts a day for 3 days, hourly polls (%s): each post once, none from before, quiet polls 2 requests',
		async (order) => {
			const api = new FeedListStub(order);
			api.history(30);
			api.now += 6 * HOUR;
			api.sync(600, DAY);
			const trigger = triggerOn(api);
			api.now += HOUR;
			await trigger.poll();
			const synced: number[] = [];
			const syncPolls: number[] = [];
			for (let hour = 2; hour <= 73; hour++) {
				api.now += HOUR;
				if (hour % 24 === 0) {
					synced.push(...api.sync(600, DAY));
					syncPolls.push(trigger.polls.length);
				}
				await trigger.poll();
			}
			expect(misses(trigger.emitted, synced)).toEqual({ twice: 0, unexpected: 0, missing: 0 });
			const quiet = trigger.polls.slice(1).filter((_poll, index) => !syncPolls.includes(index + 1));
			expect(Math.max(...quiet.map((poll) => poll.requests))).toBeLessThanOrEqual(2);
			for (const index of syncPolls) expect(trigger.polls[index].requests).toBeLessThanOrEqual(newPostCost(600));
		},
	);

	it.each(ORDERS)(
		'an event wall of 500 posts an hour, 25 hours of it there when published, then 2 hours polled every 10 minutes (%s): each new post once, each poll at most ceil(new/100) + 2 requests',
		async (order) => {
			const { api, trigger } = await publishedOnWall(order);
			expect(trigger.polls[0].requests).toBe(1);
			const fresh: number[] = [];
			for (let poll = 0; poll < 12; poll++) {
				const added = wall(api, 500, 1 / 6);
				fresh.push(...added);
				await trigger.poll();
				const last = trigger.polls[trigger.polls.length - 1];
				expect(last.emitted).toBe(added.length);
				expect(last.requests).toBeLessThanOrEqual(newPostCost(added.length));
			}
			expect(misses(trigger.emitted, fresh)).toEqual({ twice: 0, unexpected: 0, missing: 0 });
		},
	);

	it('moderators approving in their own order, an hour late at most, on a wall of 500 an hour under Status Public: each approved post once', async () => {
		const api = new FeedListStub('platformPinnedFirst');
		wall(api, 500, 25);
		const trigger = triggerOn(api);
		await trigger.poll('public');
		const waiting: number[] = [];
		const approved: number[] = [];
		for (let poll = 0; poll < 18; poll++) {
			const added = wall(api, 500, 1 / 6);
			api.setStatus(added, 'moderated');
			waiting.push(...added);
			// Approve a scattered third of what waits, the oldest waiting longest.
			const now = waiting.filter((_id, index) => index % 3 === poll % 3 || index < 50);
			api.setStatus(now, 'public');
			approved.push(...now);
			waiting.splice(0, waiting.length, ...waiting.filter((id) => !now.includes(id)));
			await trigger.poll('public');
		}
		expect(misses(trigger.emitted, approved)).toEqual({ twice: 0, unexpected: 0, missing: 0 });
	});

	it.each(ORDERS)(
		'posts stored while a poll reads (after its page 1, before its sweep page), at every poll of an event wall (%s): each once, each poll at most ceil(new/100) + 2 requests',
		async (order) => {
			const { api, trigger } = await publishedOnWall(order);
			const fresh: number[] = [];
			for (let poll = 0; poll < 6; poll++) {
				const pageOne = api.asked.length;
				let added: number[] = [];
				api.beforeAnswer = (asked) => {
					if (asked === pageOne + 1 && added.length === 0) added = wall(api, 500, 1 / 3);
				};
				await trigger.poll();
				api.beforeAnswer = undefined;
				fresh.push(...added);
				expect(trigger.polls[trigger.polls.length - 1].requests).toBeLessThanOrEqual(newPostCost(fresh.length));
			}
			await trigger.poll();
			expect(misses(trigger.emitted, fresh)).toEqual({ twice: 0, unexpected: 0, missing: 0 });
			expect(Math.max(...trigger.polls.slice(1).map((p) => p.requests))).toBeLessThanOrEqual(newPostCost(167));
		},
	);

	it('a window of 20,000 posts of mixed statuses keeps its memory under 100 KB', async () => {
		const api = new FeedListStub('stored');
		const trigger = triggerOn(api);
		wall(api, 100, 1);
		await trigger.poll('public');
		for (let hour = 0; hour < 25; hour++) {
			const added = wall(api, 1200, 1);
			api.setStatus(added.filter((id) => id % 3 === 0), 'moderated');
			await trigger.poll('public');
		}
		const size = JSON.stringify(trigger.state()).length;
		expect(trigger.emitted.size).toBeGreaterThan(19_000);
		expect(size).toBeLessThan(100_000);
		expect(misses(trigger.emitted, [...trigger.emitted.keys()]).twice).toBe(0);
	});

	it.each(ORDERS)(
		'walks held over polls (Max Pages 2) whose last page lists only posts past the window keep the memory (%s): 4 days of daily syncs, each post once',
		async (order) => {
			const api = new FeedListStub(order);
			api.history(30);
			const trigger = triggerOn(api, { maxPagesPerFeed: 2 });
			await trigger.poll();
			const synced: number[] = [];
			for (let hour = 0; hour < 96; hour++) {
				api.now += HOUR;
				if (hour % 24 === 5) synced.push(...api.sync(600, DAY));
				await trigger.poll();
			}
			expect(misses(trigger.emitted, synced)).toEqual({ twice: 0, unexpected: 0, missing: 0 });
		},
	);

	it('a walk held over polls while posts stored late land among the pages it read (by platform time) completes and emits each once', async () => {
		const api = new FeedListStub('platformPinnedFirst');
		wall(api, 50, 30);
		const trigger = triggerOn(api, { maxPagesPerFeed: 3 });
		await trigger.poll();
		const fresh = wall(api, 600, 1);
		for (let poll = 0; poll < 8; poll++) {
			// Each poll, posts of a source that syncs late: published 10 hours ago, listed 10 pages deep.
			fresh.push(...api.add(30, 10 * HOUR));
			api.now += 10 * 60_000;
			await trigger.poll();
		}
		// Each poll reads two pages on (and the last again): the window's 24 pages within a dozen polls.
		for (let poll = 0; poll < 12 && trigger.state().feeds?.['1'].held !== undefined; poll++) await trigger.poll();
		expect(trigger.state().feeds?.['1'].held).toBeUndefined();
		for (let poll = 0; poll < 14 && trigger.emitted.size < fresh.length; poll++) await trigger.poll();
		expect(misses(trigger.emitted, fresh)).toEqual({ twice: 0, unexpected: 0, missing: 0 });
		expect(trigger.polls.length).toBeLessThan(30);
	});

	it('a wider Late Posts Window emits nothing again; a post deleted and restored is not emitted again', async () => {
		const api = new FeedListStub('platform');
		wall(api, 100, 30);
		const trigger = triggerOn(api, { lateMs: 2 * HOUR });
		await trigger.poll();
		const fresh: number[] = [];
		for (let poll = 0; poll < 6; poll++) {
			fresh.push(...wall(api, 100, 1));
			await trigger.poll();
		}
		await trigger.poll('', { lateMs: 48 * HOUR });
		const lowest = api.listed()[api.listed().length - 1];
		const oldest = fresh[0];
		const restored = api.posts.filter((post) => post.id === oldest || post.id === lowest.id);
		api.remove(restored.map((post) => post.id));
		await trigger.poll('', { lateMs: 48 * HOUR });
		api.posts.push(...restored);
		api.pin(oldest, false);
		await trigger.poll('', { lateMs: 48 * HOUR });
		expect(misses(trigger.emitted, fresh)).toEqual({ twice: 0, unexpected: 0, missing: 0 });
	});

	it('a changed Status repeats nothing and emits the posts stored since in the new one', async () => {
		const api = new FeedListStub('stored');
		wall(api, 100, 5);
		const trigger = triggerOn(api);
		await trigger.poll('');
		const first = wall(api, 100, 1);
		api.setStatus(first.filter((id) => id % 2 === 0), 'moderated');
		await trigger.poll('');
		const second = wall(api, 100, 1);
		api.setStatus(second.filter((id) => id % 2 === 0), 'moderated');
		await trigger.poll('public');
		const third = wall(api, 100, 1);
		await trigger.poll('');
		const expected = [...first, ...second.filter((id) => id % 2 !== 0), ...third, ...second.filter((id) => id % 2 === 0)];
		expect(misses(trigger.emitted, expected)).toEqual({ twice: 0, unexpected: 0, missing: 0 });
	});

	it('the sweep finds a post stored late deep in the list while another left it (the count unchanged), within as many polls as the window has pages', async () => {
		const api = new FeedListStub('platform');
		wall(api, 100, 26);
		const trigger = triggerOn(api);
		await trigger.poll();
		const [late] = api.add(1, 20 * HOUR);
		api.remove([api.listed()[3].id]);
		for (let poll = 0; poll < 26; poll++) await trigger.poll();
		expect(trigger.emitted.get(late)).toBe(1);
		expect(trigger.emitted.size).toBe(1);
		expect(Math.max(...trigger.polls.slice(1).map((poll) => poll.requests))).toBe(2);
	});
});

describe('pollShare', () => {
	it('half of what the key has left, never less than a quiet poll of every feed, never more than is left', () => {
		expect(pollShare(undefined, 3)).toBeUndefined();
		expect(pollShare(300, 1)).toBe(150);
		expect(pollShare(9, 2)).toBe(4);
		expect(pollShare(5, 3)).toBe(5);
		expect(pollShare(0, 1)).toBe(0);
	});
});
