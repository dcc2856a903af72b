import type { IDataObject } from 'n8n-workflow';

import {
	DEFAULT_LATE_HOURS,
	FEED_PAGE_SIZE,
	walkFeedPosts,
	type FeedPost,
	type FetchFeedPage,
	type HeldWalk,
	type WalkResult,
} from '../shared/feedWalk';
import type { PollOutcome } from '../shared/pollRun';

export const DEFAULT_MAX_PAGES_PER_FEED = 10;

/** One feed's memory between polls. */
interface FeedMark extends IDataObject {
	/** The highest post id emitted or recorded: a post at or below it is never emitted again (a restored post keeps its id). */
	mark: number;
	/** Posts above the mark already emitted (found by a walk after its first page showed a lower id). */
	recent?: number[];
	/** When the newest post at or below the mark was stored (ms): the walk looks this far back, less the late window. */
	since?: number;
	/**
	 * A walk the page budget stopped before it was done: the new posts read so far (newest first) and the page it
	 * stopped before. The next poll reads on from there and then emits them all, oldest first.
	 */
	held?: HeldWalk;
	/** The last poll's budget ran out before this feed was asked: the next poll asks it first. */
	skipped?: boolean;
}

/** What the trigger keeps between polls (the node's static data). */
export interface FeedPollState extends IDataObject {
	/** The moderation-status filter the marks belong to; another filter starts afresh. */
	filter?: string;
	feeds?: Record<string, FeedMark>;
}

/** What one poll did with a feed: the mark it recorded, or how many posts it holds. A feed that fails fails the poll. */
type FeedOutcome = Exclude<PollOutcome<FeedPost, { mark: number }, { count: number }>, { kind: 'failed' }>;

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

/** The memory that still applies: the same status filter, only the feeds asked for, each mark a number. */
function recallFeeds(filter: string, feedIds: string[], previous: FeedPollState): Record<string, FeedMark> {
	const known = previous.filter === filter && previous.feeds ? previous.feeds : {};
	const marks: Record<string, FeedMark> = {};
	for (const feedId of feedIds) {
		const entry = known[feedId];
		if (!entry || typeof entry.mark !== 'number' || !Number.isFinite(entry.mark)) continue;
		const held = entry.held;
		const heldOk = held && Array.isArray(held.posts) && Number.isInteger(held.nextPage) && held.nextPage > 1;
		marks[feedId] = {
			mark: entry.mark,
			...(typeof entry.since === 'number' && Number.isFinite(entry.since) ? { since: entry.since } : {}),
			...(Array.isArray(entry.recent) ? { recent: entry.recent.filter((id) => Number.isSafeInteger(id)) } : {}),
			...(heldOk ? { held } : {}),
			...(entry.skipped === true ? { skipped: true } : {}),
		};
	}
	return marks;
}

/**
 * The memory after a finished walk. The mark moves up to the highest id the walk's first page showed: every post up to
 * it was there when the walk began, so the walk met it. A post found above it is kept in `recent`, since a post
 * stored after the walk began may sit on a page it had already read, and must still count as new next time.
 */
function markAfter(memory: FeedMark, walk: WalkResult): FeedMark {
	const mark = Math.max(memory.mark, walk.start?.id ?? memory.mark);
	const next: FeedMark = { mark };
	const recent = [...new Set([...(memory.recent ?? []), ...walk.posts.map((post) => post.id)])].filter((id) => id > mark);
	if (recent.length > 0) next.recent = recent.sort((a, b) => a - b);
	const since = Math.max(memory.since ?? Number.NEGATIVE_INFINITY, walk.start?.stored ?? Number.NEGATIVE_INFINITY);
	if (Number.isFinite(since)) next.since = since;
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
function readingOrder(feedIds: string[], marks: Record<string, FeedMark>): string[] {
	const waiting = (id: string) => !marks[id] || marks[id].skipped === true;
	return [...feedIds.filter(waiting), ...feedIds.filter((id) => !waiting(id))];
}

/** What one feed's poll did, and the memory it leaves (none for a feed without memory that was not asked). */
interface FeedSettled {
	outcome: FeedOutcome;
	next?: FeedMark;
}

/** One feed's walk made into its outcome and its memory. */
function settleFeed(memory: FeedMark | undefined, walk: WalkResult): FeedSettled {
	if (walk.requests === 0) return { outcome: { kind: 'notAsked' }, next: memory && { ...memory, skipped: true } };
	if (!memory) {
		// Recorded from what was read, whether or not the window was read to its end: a post above it comes later.
		const recorded: FeedMark = { mark: walk.highestId ?? 0 };
		if (walk.start?.stored !== undefined) recorded.since = walk.start.stored;
		return { outcome: { kind: 'recorded', mark: recorded.mark }, next: recorded };
	}
	if (walk.done) return { outcome: { kind: 'emitted', posts: walk.posts }, next: markAfter(memory, walk) };
	const held: FeedMark = { ...memory, held: walk.held };
	delete held.skipped;
	return { outcome: { kind: 'held', count: walk.posts.length }, next: held };
}

/** One feed's poll: its walk from its mark (or from where a held walk stopped), as far as its pages and the budget allow. */
async function pollFeed(
	feedId: string,
	memory: FeedMark | undefined,
	fetchPage: FetchFeedPage,
	limits: PollLimits,
	budget: PageBudget,
): Promise<FeedSettled & { requests: number }> {
	// Reading on reads the held walk's last page again first: with fewer than two requests it could not move on.
	const resuming = memory?.held !== undefined && memory.held.nextPage > 2;
	if (resuming && budget.left() < 2) return { outcome: { kind: 'notAsked' }, next: { ...memory, skipped: true }, requests: 0 };
	// Without memory every post is old: the walk only finds where the feed stands.
	const mark = memory?.mark ?? Number.POSITIVE_INFINITY;
	const recent = new Set(memory?.recent ?? []);
	const walk = await walkFeedPosts(
		(page, size) => fetchPage(feedId, page, size),
		{ isOld: (post) => post.id <= mark || recent.has(post.id), since: memory?.since, lateMs: limits.lateMs },
		{
			maxPages: memory?.held ? limits.resumePages : limits.maxPages,
			perPage: limits.perPage,
			held: memory?.held,
			spend: budget.spend,
		},
	);
	return { ...settleFeed(memory, walk), requests: walk.requests };
}

/**
 * One poll over the feeds: a feed without memory records the highest id among its posts of the late window and emits
 * nothing; a feed with memory emits every post above its mark, oldest first, and moves the mark to the highest. The
 * walk (shared/feedWalk.ts) reads down until posts published before the window, whatever order the service lists
 * them in. A feed whose walk needs more pages than the budget allows emits nothing yet and holds what it read; the
 * next polls read on.
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
	const next: Record<string, FeedMark> = {};
	const outcomes: Record<string, FeedOutcome> = {};
	const posts: FeedPollResult['posts'] = [];
	let requests = 0;
	for (const feedId of readingOrder(feedIds, marks)) {
		const settled = await pollFeed(feedId, marks[feedId], fetchPage, limits, budget);
		requests += settled.requests;
		if (settled.next) next[feedId] = settled.next;
		outcomes[feedId] = settled.outcome;
		if (settled.outcome.kind === 'emitted') posts.push(...settled.outcome.posts.map((post) => ({ feedId, post })));
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
