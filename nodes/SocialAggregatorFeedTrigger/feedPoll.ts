import type { IDataObject } from 'n8n-workflow';

import {
	DEFAULT_LATE_HOURS,
	FEED_PAGE_SIZE,
	publishedAt,
	storedAt,
	walkFeedPosts,
	type FeedPost,
	type FetchFeedPage,
	type HeldWalk,
	type WalkResult,
} from '../shared/feedWalk';
import type { PollOutcome } from '../shared/pollRun';

export const DEFAULT_MAX_PAGES_PER_FEED = 10;

/** At most this many post IDs remembered per feed (about 90 KB): the newest, when a window holds more. */
const MAX_SEEN_PER_FEED = 10_000;

/** IDs as a feed's memory keeps them: once each, ascending, the newest MAX_SEEN_PER_FEED. */
function rememberedIds(ids: Iterable<number>): number[] {
	return [...new Set(ids)].sort((a, b) => a - b).slice(-MAX_SEEN_PER_FEED);
}

/** One feed's memory between polls (docs/exactly-once.md#social-aggregator-feed-trigger). */
interface FeedMemory extends IDataObject {
	/** The posts emitted or recorded that the window may still list, ascending: none is emitted again. */
	seen: number[];
	/** The highest post ID the last complete walk began under: a post that gives no time is new only above it. */
	mark: number;
	/**
	 * When the newest post seen was stored (ms). The window holds the posts published a Late Posts Window before it: a
	 * post published earlier is old, whether seen or not.
	 */
	since?: number;
	/** Memory kept before the trigger remembered each post: a post at or below the mark counts as seen until a walk completes. */
	upToMark?: boolean;
	/** The first walk was stopped before the window's end: the next polls record on (posts up to the mark), emitting nothing. */
	recording?: boolean;
	/** A walk the page budget stopped before the window's end: the page it reads on from. */
	held?: HeldWalk;
	/** The last poll's budget ran out before this feed was asked: the next poll asks it first. */
	skipped?: boolean;
}

/** What the trigger keeps between polls (the node's static data). */
export interface FeedPollState extends IDataObject {
	/** The moderation-status filter the memory belongs to; another filter starts afresh. */
	filter?: string;
	feeds?: Record<string, FeedMemory>;
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
	/** How long before its storing a post may have been published and still be found (ms). */
	lateMs?: number;
}

const isId = (id: unknown): id is number => Number.isSafeInteger(id);

/** A held walk as saved: a page to read on from, beyond the first. One saved with its posts (before IDs only) is read afresh. */
function recallHeld(held: unknown): HeldWalk | undefined {
	if (!held || typeof held !== 'object') return undefined;
	const walk = held as HeldWalk;
	if ('posts' in walk || !Number.isInteger(walk.nextPage) || walk.nextPage < 2) return undefined;
	return walk;
}

/**
 * The memory that still applies: the same status filter, only the feeds asked for (by the number their ID writes, so
 * that `012` and `12` share one). Memory saved before the trigger remembered each post (a mark and the IDs above it)
 * holds every post up to its mark as seen until a walk completes.
 */
function recallFeeds(filter: string, feedIds: string[], previous: FeedPollState): Record<string, FeedMemory> {
	const known = previous.filter === filter && previous.feeds ? previous.feeds : {};
	const marks: Record<string, FeedMemory> = {};
	for (const feedId of feedIds) {
		const entry = known[feedId] ?? known[String(Number(feedId))];
		if (!entry || typeof entry.mark !== 'number' || !Number.isFinite(entry.mark)) continue;
		const saved = Array.isArray(entry.seen) ? entry.seen : Array.isArray(entry.recent) ? entry.recent : [];
		const memory: FeedMemory = { seen: saved.filter(isId), mark: entry.mark };
		if (typeof entry.since === 'number' && Number.isFinite(entry.since)) memory.since = entry.since;
		if (!Array.isArray(entry.seen) || entry.upToMark === true) memory.upToMark = true;
		if (entry.recording === true) memory.recording = true;
		const held = recallHeld(entry.held);
		if (held) memory.held = held;
		if (entry.skipped === true) memory.skipped = true;
		marks[feedKey(feedId)] = memory;
	}
	return marks;
}

/** One key per feed however its ID is written. */
function feedKey(feedId: string): string {
	return String(Number(feedId));
}

/** The window of a feed's memory: posts published from `start` (ms) on; undefined where no post gave a time. */
function windowOf(since: number | undefined, lateMs: number): { start?: number } {
	return since === undefined ? {} : { start: since - lateMs };
}

/** Whether a post was published before the window (undefined: no time tells, or no window). */
function beforeWindow(post: FeedPost, window: { start?: number }): boolean | undefined {
	const published = publishedAt(post);
	if (published === undefined || window.start === undefined) return undefined;
	return published < window.start;
}

/**
 * Where a walk over the window ends: at a post stored and published before the window, since in any legal order
 * (by storing, by publishing) every post listed after it is then out of it. A post that gives no time ends it at
 * or below the mark (every post, for a feed without memory).
 */
function belowWindow(memory: FeedMemory | undefined, lateMs: number) {
	return (post: FeedPost, since: number | undefined): boolean => {
		const stored = storedAt(post);
		const published = publishedAt(post);
		if (since === undefined || stored === undefined || published === undefined) return !memory || post.id <= memory.mark;
		return Math.max(stored, published) < since - lateMs;
	};
}

/**
 * The IDs remembered after a complete walk: every post read that the next window holds (and, among those that give no
 * time, those above the mark), and of the posts remembered but not listed now (deleted, moved out of the status), those
 * no older than the oldest kept. The newest MAX_SEEN_PER_FEED.
 */
function seenAfter(memory: FeedMemory | undefined, read: Map<number, FeedPost>, window: { start?: number }, mark: number): number[] {
	const kept: number[] = [];
	for (const post of read.values()) {
		const before = beforeWindow(post, window);
		if (before === false || (before === undefined && post.id > mark)) kept.push(post.id);
	}
	const lowest = kept.length > 0 ? Math.min(...kept) : Number.POSITIVE_INFINITY;
	for (const id of memory?.seen ?? []) if (!read.has(id) && id >= lowest) kept.push(id);
	return rememberedIds(kept);
}

/** The memory after a complete walk: the window moved up to the newest post stored when the walk began. */
function memoryAfter(memory: FeedMemory | undefined, walk: WalkResult, read: Map<number, FeedPost>, lateMs: number): FeedMemory {
	const mark = Math.max(memory?.mark ?? Number.NEGATIVE_INFINITY, walk.start?.id ?? walk.highestId ?? 0);
	const since = Math.max(memory?.since ?? Number.NEGATIVE_INFINITY, walk.start?.stored ?? Number.NEGATIVE_INFINITY);
	const next: FeedMemory = { seen: [], mark: Number.isFinite(mark) ? mark : 0 };
	if (Number.isFinite(since)) next.since = since;
	next.seen = seenAfter(memory, read, windowOf(next.since, lateMs), next.mark);
	return next;
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
function readingOrder(feedIds: string[], marks: Record<string, FeedMemory>): string[] {
	const waiting = (id: string) => !marks[feedKey(id)] || marks[feedKey(id)].skipped === true;
	return [...feedIds.filter(waiting), ...feedIds.filter((id) => !waiting(id))];
}

/** What one feed's poll did, and the memory it leaves (none for a feed without memory that was not asked). */
interface FeedSettled {
	outcome: FeedOutcome;
	next?: FeedMemory;
}

/**
 * A first walk, or one that records on: every post read up to where the feed stood when recording began is seen,
 * nothing emitted. Posts stored since (above that ID) are left for the first complete walk to emit.
 */
function settleRecording(memory: FeedMemory | undefined, walk: WalkResult, read: Map<number, FeedPost>, lateMs: number): FeedSettled {
	const mark = memory?.mark ?? walk.start?.id ?? walk.highestId ?? 0;
	const recorded = new Map([...read].filter(([id]) => id <= mark));
	if (walk.done) return { outcome: { kind: 'recorded', mark }, next: memoryAfter(memory, walk, recorded, lateMs) };
	const seen = rememberedIds([...(memory?.seen ?? []), ...recorded.keys()]);
	const next: FeedMemory = { seen, mark, recording: true, held: walk.held };
	const since = memory?.since ?? walk.start?.stored;
	if (since !== undefined) next.since = since;
	return { outcome: { kind: 'recorded', mark }, next };
}

/** One feed's walk made into its outcome and its memory. */
function settleFeed(memory: FeedMemory | undefined, walk: WalkResult, read: Map<number, FeedPost>, lateMs: number): FeedSettled {
	if (walk.requests === 0) return { outcome: { kind: 'notAsked' }, next: memory && { ...memory, skipped: true } };
	if (!memory || memory.recording) return settleRecording(memory, walk, read, lateMs);
	if (walk.done) return { outcome: { kind: 'emitted', posts: walk.posts }, next: memoryAfter(memory, walk, read, lateMs) };
	// Held: the posts found are emitted now and remembered; the next polls read on from where this one stopped.
	const seen = rememberedIds([...memory.seen, ...walk.posts.map((post) => post.id)]);
	const held: FeedMemory = { ...memory, seen, held: walk.held };
	delete held.skipped;
	return { outcome: { kind: 'held', posts: walk.posts }, next: held };
}

/** Whether a post is not new to a feed's memory: seen, before the window, or (giving no time) at or below the mark. */
function oldTo(memory: FeedMemory | undefined, lateMs: number): (post: FeedPost) => boolean {
	// Without memory every post is old: the walk only records where the feed stands.
	if (!memory) return () => true;
	const seen = new Set(memory.seen);
	const window = windowOf(memory.since, lateMs);
	return (post) => {
		if (seen.has(post.id) || (memory.upToMark === true && post.id <= memory.mark)) return true;
		if (memory.recording === true) return post.id <= memory.mark;
		return beforeWindow(post, window) ?? post.id <= memory.mark;
	};
}

/** One feed's poll: its walk over the window (or on from where a held walk stopped), as far as its pages and the budget allow. */
async function pollFeed(
	feedId: string,
	memory: FeedMemory | undefined,
	fetchPage: FetchFeedPage,
	limits: PollLimits,
	budget: PageBudget,
): Promise<FeedSettled & { requests: number }> {
	// Reading on reads the held walk's last page again first: with fewer than two requests it could not move on.
	const resuming = memory?.held !== undefined && memory.held.nextPage > 2;
	if (resuming && budget.left() < 2) return { outcome: { kind: 'notAsked' }, next: { ...memory, skipped: true }, requests: 0 };
	const isOld = oldTo(memory, limits.lateMs);
	const read = new Map<number, FeedPost>();
	const walk = await walkFeedPosts(
		(page, size) => fetchPage(feedId, page, size),
		{ isOld, isBelow: belowWindow(memory, limits.lateMs), since: memory?.since, lateMs: limits.lateMs },
		{
			maxPages: memory?.held ? limits.resumePages : limits.maxPages,
			perPage: limits.perPage,
			held: memory?.held,
			spend: budget.spend,
			onRead: (posts) => posts.forEach((post) => read.set(post.id, post)),
		},
	);
	return { ...settleFeed(memory, walk, read, limits.lateMs), requests: walk.requests };
}

/**
 * One poll over the feeds. A feed without memory records the posts of its window and emits nothing. A feed with memory
 * emits every post of its window it has not emitted or recorded, oldest first, whatever its ID: a post that comes into
 * the status filter late (approved after newer ones) is emitted at the first poll that lists it. The walk
 * (shared/feedWalk.ts) reads down to posts published before the window, whatever order the service lists them in. A
 * feed whose window needs more pages than the budget allows emits what it read and the next polls read on.
 */
export async function pollFeeds(
	filter: string,
	feedIds: string[],
	previous: FeedPollState,
	fetchPage: FetchFeedPage,
	options: PollOptions = {},
): Promise<FeedPollResult> {
	const limits = pollLimits(options);
	const budget = pageBudget(options.budgetLeft);
	const marks = recallFeeds(filter, feedIds, previous);
	const next: Record<string, FeedMemory> = {};
	const outcomes: Record<string, FeedOutcome> = {};
	const posts: FeedPollResult['posts'] = [];
	let requests = 0;
	for (const feedId of readingOrder(feedIds, marks)) {
		const key = feedKey(feedId);
		if (outcomes[key]) continue;
		const settled = await pollFeed(feedId, marks[key], fetchPage, limits, budget);
		requests += settled.requests;
		if (settled.next) next[key] = settled.next;
		outcomes[key] = settled.outcome;
		if (settled.outcome.kind === 'emitted' || settled.outcome.kind === 'held') {
			posts.push(...settled.outcome.posts.map((post) => ({ feedId, post })));
		}
	}
	return { posts, outcomes, requests, state: { filter, feeds: next } };
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
