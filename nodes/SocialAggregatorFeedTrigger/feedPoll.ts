import type { IDataObject } from 'n8n-workflow';

import {
	DEFAULT_LATE_HOURS,
	FEED_PAGE_SIZE,
	publishedAt,
	storedAt,
	walkFeedPosts,
	type FeedPost,
	type FetchFeedPage,
	type WalkResult,
} from '../shared/feedWalk';
import type { PollOutcome } from '../shared/pollRun';
import {
	firstMemory,
	isNewTo,
	recallFeedMemory,
	remember,
	saveFeedMemory,
	type FeedMemory,
	type SavedFeedMemory,
} from './feedMemory';

// One poll over the feeds (docs/exactly-once.md#feed-trigger-memory). What a poll costs follows what is new: page 1
// gives the list's `meta.total_count`, and a walk that finds as many new posts as the count grew by ends there. Where
// the service gives no count, or the Status changed, the walk reads down the Late Posts Window. One page deep in a
// window a poll (the sweep) finds what a count cannot show: a post stored late below older ones while another left.

export const DEFAULT_MAX_PAGES_PER_FEED = 10;

/** Posts of one sync stored within this of each other: a first poll reads on while a page's last is one of them. */
const ONE_SYNC_MS = 10 * 60_000;

/** Memories of feeds no longer chosen kept at most (the most recently polled): a feed chosen again emits nothing twice. */
const MAX_UNCHOSEN_FEEDS = 20;

/** What the trigger keeps between polls (the node's static data). */
export interface FeedPollState extends IDataObject {
	feeds?: Record<string, SavedFeedMemory>;
	/** The feed the next sweep reads, one of those whose walk ended by its count. */
	sweepFeed?: string;
}

/**
 * What one poll did with a feed: where it stands recorded, the posts it emitted, or those it emitted of a walk it
 * holds. A feed that fails fails the poll.
 */
type FeedOutcome = Exclude<PollOutcome<FeedPost, { mark: number }, { posts: FeedPost[] }>, { kind: 'failed' }>;

export interface FeedPollResult {
	/** New posts of every feed, each oldest first, feed after feed in the order read (those left out last time first). */
	posts: Array<{ feedId: string; post: FeedPost }>;
	outcomes: Record<string, FeedOutcome>;
	requests: number;
	state: FeedPollState;
}

interface PollOptions {
	/** Pages one feed may read in one poll. */
	maxPagesPerFeed?: number;
	/** Requests the key's rate limit allows now, shared by every feed (undefined: not known, no bound). */
	budgetLeft?: number;
	perPage?: number;
	/** How long before its storing a post may have been published, and after it still come into the list (ms). */
	lateMs?: number;
	/** The time of the poll (ms), kept with each feed's memory. */
	now?: number;
}

/**
 * The requests one poll may send of those the key's hour has left (undefined: not known, no bound): at most half of
 * them, so that the user's other workflows on the key keep the other half, but always a quiet poll's two a feed.
 */
export function pollShare(left: number | undefined, feeds: number): number | undefined {
	if (left === undefined) return undefined;
	return Math.min(left, Math.max(2 * feeds, Math.floor(left / 2)));
}

/** One key per feed however its ID is written. */
function feedKey(feedId: string): string {
	return String(Number(feedId));
}

/** A poll's page limits, from its options. */
function pollLimits(options: PollOptions) {
	const maxPages = Math.max(1, Math.floor(options.maxPagesPerFeed ?? DEFAULT_MAX_PAGES_PER_FEED));
	return {
		perPage: Math.max(1, Math.min(FEED_PAGE_SIZE, Math.floor(options.perPage ?? FEED_PAGE_SIZE))),
		maxPages,
		// Reading on from a held walk reads its last page again first: without a second page it would never move on.
		resumePages: Math.max(2, maxPages),
		lateMs: Math.max(0, options.lateMs ?? DEFAULT_LATE_HOURS * 3_600_000),
	};
}

/** The requests one poll may still send, shared by every feed (undefined: not known, no bound). */
function pageBudget(budgetLeft: number | undefined) {
	let left = budgetLeft === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(budgetLeft));
	return {
		left: () => left,
		spend: () => {
			if (left <= 0) return false;
			left--;
			return true;
		},
	};
}

type PollLimits = ReturnType<typeof pollLimits>;
type PageBudget = ReturnType<typeof pageBudget>;

/** Feeds the budget left out last time (or never reached) first, so that a tight budget reaches every feed in turn. */
function readingOrder(feedIds: string[], memories: Record<string, FeedMemory>): string[] {
	const waiting = (id: string) => !memories[feedKey(id)] || memories[feedKey(id)].skipped === true;
	return [...feedIds.filter(waiting), ...feedIds.filter((id) => !waiting(id))];
}

/**
 * Whether every post listed after this one (not pinned) is out of the window, in any legal order: stored and published
 * a Late Posts Window before the newest post seen (by storing, everything after is older; by platform time, published
 * earlier, and so stored before `since`). A post that gives no time: at or below the floor.
 */
function belowWindow(memory: FeedMemory, lateMs: number) {
	return (post: FeedPost, since: number | undefined): boolean => {
		const stored = storedAt(post);
		const published = publishedAt(post);
		if (since === undefined || stored === undefined || published === undefined) return post.id <= memory.floor;
		return Math.max(stored, published) < since - lateMs;
	};
}

/** What one feed's poll did, the memory it leaves, and whether its walk ended by its count (a sweep may follow). */
interface FeedSettled {
	outcome: FeedOutcome;
	next?: FeedMemory;
	requests: number;
	/** The walk ended by its count: a sweep of this feed reads no page above this one. */
	sweepFrom?: number;
}

/**
 * A feed's first poll: where it stands recorded, nothing emitted. Page 1, and on while a page's last post was stored
 * with the newest (one sync's posts, listed by platform time, spread over several pages): the highest ID among them
 * is the floor, so that no post stored before the trigger was published is ever new.
 */
async function recordFeed(feedId: string, fetchPage: FetchFeedPage, limits: PollLimits, budget: PageBudget, status: string): Promise<FeedSettled> {
	const read: FeedPost[] = [];
	let count: number | undefined;
	let requests = 0;
	let newest: number | undefined;
	for (let page = 1; requests < limits.maxPages && budget.spend(); page++) {
		const answer = await fetchPage(feedId, page, limits.perPage);
		requests++;
		if (page === 1) count = answer.totalCount;
		read.push(...answer.posts);
		for (const post of answer.posts) newest = Math.max(newest ?? storedAt(post) ?? 0, storedAt(post) ?? 0);
		const last = [...answer.posts].reverse().find((post) => post.pinned !== true);
		const lastStored = last && storedAt(last);
		const end = answer.totalPages !== undefined ? page >= answer.totalPages : answer.posts.length < limits.perPage;
		if (end || answer.posts.length === 0 || lastStored === undefined || newest === undefined || lastStored < newest - ONE_SYNC_MS) break;
	}
	if (requests === 0) return { outcome: { kind: 'notAsked' }, requests };
	const next = firstMemory(read, limits.lateMs);
	if (count !== undefined) Object.assign(next, { count, countStatus: status });
	return { outcome: { kind: 'recorded', mark: next.floor }, next, requests };
}

/**
 * The count a finished walk leaves: its first page's, plus the posts it found beyond what the list had grown by then
 * (stored while it read the pages after), never above the count its last page showed. Counting only the first page's
 * would leave posts known that the count does not hold, and every later walk would read on for them to its page cap.
 */
function countAfterWalk(start: number, known: number | undefined, found: number, last: number | undefined): number {
	if (known === undefined || last === undefined) return start;
	return Math.min(last, start + Math.max(0, found - (start - known)));
}

/** The memory after a walk: the posts it found remembered, its count where it found every new post. */
function settleFeed(memory: FeedMemory, walk: WalkResult, read: FeedPost[], limits: PollLimits, status: string): FeedSettled {
	const found = walk.posts.map((post) => post.id);
	const next = remember(memory, found, read, limits.lateMs);
	delete next.skipped;
	if (walk.done) {
		delete next.held;
		delete next.heldFound;
		if (walk.start?.count !== undefined) {
			const known = memory.count !== undefined && memory.countStatus === status ? memory.count : undefined;
			const count = countAfterWalk(walk.start.count, known, (memory.heldFound ?? 0) + found.length, walk.lastCount);
			Object.assign(next, { count, countStatus: status });
		}
		else {
			delete next.count;
			delete next.countStatus;
		}
		const settled: FeedSettled = { outcome: { kind: 'emitted', posts: walk.posts }, next, requests: walk.requests };
		if (walk.endedByCount) settled.sweepFrom = (walk.lastPage ?? 1) + 1;
		return settled;
	}
	next.held = walk.held;
	next.heldFound = (memory.heldFound ?? 0) + found.length;
	return { outcome: { kind: 'held', posts: walk.posts }, next, requests: walk.requests };
}

/** One feed's poll: its walk (or on from where a held walk stopped), as far as its pages and the budget allow. */
async function pollFeed(
	feedId: string,
	memory: FeedMemory,
	fetchPage: FetchFeedPage,
	limits: PollLimits,
	budget: PageBudget,
	status: string,
): Promise<FeedSettled> {
	// Reading on reads the held walk's last page again first: with fewer than two requests it could not move on.
	if (memory.held !== undefined && memory.held.nextPage > 2 && budget.left() < 2) {
		return { outcome: { kind: 'notAsked' }, next: { ...memory, skipped: true }, requests: 0 };
	}
	const isNew = isNewTo(memory);
	const counted = memory.count !== undefined && memory.countStatus === status;
	const read: FeedPost[] = [];
	const walk = await walkFeedPosts(
		(page, size) => fetchPage(feedId, page, size),
		{
			isOld: (post) => !isNew(post),
			isBelow: belowWindow(memory, limits.lateMs),
			since: memory.since,
			lateMs: limits.lateMs,
			knownCount: counted ? (memory.count as number) + (memory.heldFound ?? 0) : undefined,
		},
		{
			maxPages: memory.held ? limits.resumePages : limits.maxPages,
			perPage: limits.perPage,
			held: memory.held,
			spend: budget.spend,
			onRead: (posts) => read.push(...posts),
		},
	);
	if (walk.requests === 0) return { outcome: { kind: 'notAsked' }, next: { ...memory, skipped: true }, requests: 0 };
	return settleFeed(memory, walk, read, limits, status);
}

/**
 * The sweep: one page of a feed's window, deeper each poll, back to page 2 once past the window's end. It finds the
 * new posts a count cannot tell of (one stored late, below older ones, while another left the list), within as many
 * polls as the window has pages.
 */
async function sweepFeed(feedId: string, memory: FeedMemory, from: number, fetchPage: FetchFeedPage, limits: PollLimits, budget: PageBudget) {
	const page = Math.max(from, memory.sweepPage ?? 2);
	if (!budget.spend()) return { posts: [], next: memory, requests: 0 };
	const answer = await fetchPage(feedId, page, limits.perPage);
	const isNew = isNewTo(memory);
	const posts = answer.posts.filter(isNew).sort((a, b) => a.id - b.id);
	const next = remember(memory, posts.map((post) => post.id), answer.posts, limits.lateMs);
	// Posts stored since page 1 was counted that the sweep found are known now: counted, the next walk ends where
	// the rest of the growth is found. (A list that did not grow holds the posts the sweep found in the count already.)
	if (next.count !== undefined && answer.totalCount !== undefined && answer.totalCount > next.count) {
		next.count = Math.min(answer.totalCount, next.count + posts.length);
	}
	const last = [...answer.posts].reverse().find((post) => post.pinned !== true);
	const end =
		last === undefined ||
		answer.posts.length < limits.perPage ||
		(answer.totalPages !== undefined && page >= answer.totalPages) ||
		belowWindow(memory, limits.lateMs)(last, memory.since);
	if (end) delete next.sweepPage;
	else next.sweepPage = page + 1;
	return { posts, next, requests: 1 };
}

/** The memories of the feeds not chosen now, kept for when they are chosen again: the most recently polled. */
function unchosenMemories(previous: FeedPollState, chosen: Set<string>): Record<string, SavedFeedMemory> {
	const kept = Object.entries(previous.feeds ?? {})
		.filter(([key, saved]) => !chosen.has(key) && saved && typeof saved === 'object')
		.sort(([, a], [, b]) => Number(b.polledAt ?? 0) - Number(a.polledAt ?? 0))
		.slice(0, MAX_UNCHOSEN_FEEDS);
	return Object.fromEntries(kept);
}

/**
 * One poll over the feeds. A feed without memory records where it stands and emits nothing. A feed with memory emits
 * every post new to it (feedMemory.ts), oldest first, whatever its ID and wherever the service lists it: a post that
 * comes into the Status late (approved after newer ones) is emitted at the first poll that lists it, if it was stored
 * within the Late Posts Window. A feed with more new posts than the pages allow emits what it read; the next polls
 * read on.
 */
export async function pollFeeds(
	status: string,
	feedIds: string[],
	previous: FeedPollState,
	fetchPage: FetchFeedPage,
	options: PollOptions = {},
): Promise<FeedPollResult> {
	const limits = pollLimits(options);
	const budget = pageBudget(options.budgetLeft);
	const memories: Record<string, FeedMemory> = {};
	for (const feedId of feedIds) {
		const memory = recallFeedMemory(previous.feeds?.[feedKey(feedId)] ?? previous.feeds?.[feedId]);
		if (memory) memories[feedKey(feedId)] = memory;
	}
	const chosen = new Set(feedIds.map(feedKey));
	const feeds: Record<string, SavedFeedMemory> = unchosenMemories(previous, chosen);
	const outcomes: Record<string, FeedOutcome> = {};
	const posts: FeedPollResult['posts'] = [];
	const sweepable = new Map<string, number>();
	let requests = 0;
	const keep = (key: string, memory: FeedMemory | undefined) => {
		if (!memory) return;
		memories[key] = memory;
		feeds[key] = saveFeedMemory(options.now === undefined ? memory : { ...memory, polledAt: options.now });
	};
	for (const feedId of readingOrder(feedIds, memories)) {
		const key = feedKey(feedId);
		if (outcomes[key]) continue;
		const memory = memories[key];
		const settled = memory
			? await pollFeed(feedId, memory, fetchPage, limits, budget, status)
			: await recordFeed(feedId, fetchPage, limits, budget, status);
		requests += settled.requests;
		keep(key, settled.next);
		outcomes[key] = settled.outcome;
		if (settled.outcome.kind === 'emitted' || settled.outcome.kind === 'held') {
			posts.push(...settled.outcome.posts.map((post) => ({ feedId, post })));
		}
		if (settled.sweepFrom !== undefined) sweepable.set(feedId, settled.sweepFrom);
	}
	const state: FeedPollState = { feeds };
	const sweeps = [...sweepable.keys()];
	if (sweeps.length > 0) {
		const feedId = sweeps.find((id) => feedKey(id) === previous.sweepFeed) ?? sweeps[0];
		const key = feedKey(feedId);
		const swept = await sweepFeed(feedId, memories[key], sweepable.get(feedId) ?? 2, fetchPage, limits, budget);
		requests += swept.requests;
		keep(key, swept.next);
		posts.push(...swept.posts.map((post) => ({ feedId, post })));
		const outcome = outcomes[key];
		if (outcome.kind === 'emitted') outcome.posts = [...outcome.posts, ...swept.posts];
		const after = sweeps[(sweeps.indexOf(feedId) + 1) % sweeps.length];
		state.sweepFeed = feedKey(after);
	}
	return { posts, outcomes, requests, state };
}

/** The newest page of each feed, of at most `count` posts, their posts together oldest first: what a manual run shows the newest of. */
export async function newestFeedPages(
	feedIds: string[],
	fetchPage: FetchFeedPage,
	count: number,
): Promise<{ posts: Array<{ feedId: string; post: FeedPost }> }> {
	const perPage = Math.max(1, Math.min(FEED_PAGE_SIZE, Math.floor(count)));
	const all: Array<{ feedId: string; post: FeedPost }> = [];
	for (const feedId of feedIds) {
		const answer = await fetchPage(feedId, 1, perPage);
		all.push(...answer.posts.map((post) => ({ feedId, post })));
	}
	all.sort((a, b) => a.post.id - b.post.id);
	return { posts: all };
}
