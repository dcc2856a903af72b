import type { IDataObject } from 'n8n-workflow';

import { listAnswer, UnusableAnswer } from '../shared/answerShapes';

/** Feed posts per page: the service's maximum, so that a quiet poll is one request per feed. */
const FEED_PAGE_SIZE = 100;
export const DEFAULT_MAX_PAGES_PER_FEED = 10;

/** A feed post as the walk reads it: its integer id (ids grow as the service collects posts). */
export interface FeedPost extends IDataObject {
	id: number;
}

/** One feed's memory between polls. */
interface FeedMark extends IDataObject {
	/** The highest post id emitted or recorded: a post at or below it is never emitted again (a restored post keeps its id). */
	mark: number;
	/**
	 * A walk the page budget stopped before it reached the mark: the new posts read so far (newest first) and the
	 * page it stopped before. The next poll reads on from there and then emits them all, oldest first.
	 */
	held?: { posts: FeedPost[]; nextPage: number };
	/** The last poll's budget ran out before this feed was asked: the next poll asks it first. */
	skipped?: boolean;
}

/** What the trigger keeps between polls (the node's static data). */
export interface FeedPollState extends IDataObject {
	/** The moderation-status filter the marks belong to; another filter starts afresh. */
	filter?: string;
	feeds?: Record<string, FeedMark>;
}

/** One page of a feed's posts, newest first. */
export interface FeedPage {
	posts: FeedPost[];
	/** `meta.total_pages` where the service gave it. */
	totalPages?: number;
}

/** A page answer checked (the list shape of docs/service.md#paging) and read: every post must carry an integer ID, which the mark compares. */
export function feedPageAnswer(body: unknown, at: { page: number; statusCode?: number }): FeedPage {
	const { data, meta } = listAnswer(body, at);
	const posts = data.map((post, index) => {
		const id = Number(post.id);
		if (post.id === null || post.id === '' || !Number.isSafeInteger(id) || id < 0) {
			throw new UnusableAnswer(
				`post ${index + 1} has no integer \`id\` (${JSON.stringify(post.id) ?? 'missing'}): the trigger cannot tell which posts are new`,
				at.page,
				at.statusCode,
			);
		}
		return { ...post, id } as FeedPost;
	});
	return { posts, totalPages: meta?.total_pages };
}

export type FetchFeedPage = (feedId: string, page: number, perPage: number) => Promise<FeedPage>;

/** What one poll did with a feed. */
type FeedOutcome =
	/** No memory yet: the mark recorded from the newest page, nothing emitted. */
	| { kind: 'recorded'; mark: number }
	/** Read down to the mark: these posts are new (oldest first). */
	| { kind: 'emitted'; posts: FeedPost[] }
	/** The page budget ran out first: the posts read are held for the next poll. */
	| { kind: 'held'; count: number }
	/** The budget was spent before the feed was asked: its memory stays as it was. */
	| { kind: 'notAsked' };

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
}

/** Newest first as the walk keeps them; oldest first for output. */
const byIdAscending = (a: FeedPost, b: FeedPost) => a.id - b.id;

/** The memory that still applies: the same status filter, only the feeds asked for, each mark a number. */
function recallFeeds(filter: string, feedIds: string[], previous: FeedPollState): Record<string, FeedMark> {
	const known = previous.filter === filter && previous.feeds ? previous.feeds : {};
	const marks: Record<string, FeedMark> = {};
	for (const feedId of feedIds) {
		const entry = known[feedId];
		if (!entry || typeof entry.mark !== 'number' || !Number.isFinite(entry.mark)) continue;
		const held = entry.held;
		const heldOk = held && Array.isArray(held.posts) && Number.isInteger(held.nextPage) && held.nextPage > 1;
		marks[feedId] = { mark: entry.mark, ...(heldOk ? { held } : {}), ...(entry.skipped === true ? { skipped: true } : {}) };
	}
	return marks;
}

/**
 * Reads one feed from the newest page down until a page holds a post at or below the mark (or the list ends). Pages
 * are offsets, so posts added meanwhile push older ones down (read again, dropped by id) and posts deleted pull them
 * up: a walk that reads on from a held one therefore first reads again the last page it read, and starts over from
 * page 1 when that page holds none of the posts it read.
 */
async function walkFeed(
	feedId: string,
	memory: FeedMark,
	fetchPage: FetchFeedPage,
	allowance: { pages: number; perPage: number },
	spend: () => boolean,
): Promise<{ done: boolean; posts: FeedPost[]; nextPage: number; requests: number }> {
	const found = new Map<number, FeedPost>((memory.held?.posts ?? []).map((post) => [post.id, post]));
	let page = memory.held ? Math.max(1, memory.held.nextPage - 1) : 1;
	let checkOverlap = page > 1;
	let requests = 0;
	while (requests < allowance.pages && spend()) {
		const answer = await fetchPage(feedId, page, allowance.perPage);
		requests++;
		// Only a post it holds proves the page joins what it read: one at or below the mark may lie past a gap.
		if (checkOverlap && !answer.posts.some((post) => found.has(post.id))) {
			// Posts deleted since the last poll moved the list up past the last page read: start again from the top.
			checkOverlap = false;
			page = 1;
			continue;
		}
		checkOverlap = false;
		let reachedMark = false;
		for (const post of answer.posts) {
			if (post.id <= memory.mark) reachedMark = true;
			else if (!found.has(post.id)) found.set(post.id, post);
		}
		const lastPage =
			answer.posts.length < allowance.perPage || (answer.totalPages !== undefined && page >= answer.totalPages);
		if (reachedMark || lastPage) {
			return { done: true, posts: [...found.values()].sort(byIdAscending), nextPage: page + 1, requests };
		}
		page++;
	}
	return { done: false, posts: [...found.values()].sort((a, b) => b.id - a.id), nextPage: page, requests };
}

/**
 * One poll over the feeds: a feed without memory records the highest id of its newest page and emits nothing; a feed
 * with memory emits every post above its mark, oldest first, and moves the mark to the highest. A feed whose new
 * posts need more pages than the budget allows emits nothing yet and holds what it read; the next polls read on.
 */
export async function pollFeeds(
	filter: string,
	feedIds: string[],
	previous: FeedPollState,
	fetchPage: FetchFeedPage,
	options: PollOptions = {},
): Promise<FeedPollResult> {
	const perPage = Math.max(1, Math.min(FEED_PAGE_SIZE, Math.floor(options.perPage ?? FEED_PAGE_SIZE)));
	const maxPages = Math.max(1, Math.floor(options.maxPagesPerFeed ?? DEFAULT_MAX_PAGES_PER_FEED));
	let budget = options.budgetLeft === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(options.budgetLeft));
	// Reading on from a held walk reads its last page again first: without a second page it would never move on.
	const resumePages = Math.max(2, maxPages);
	const spend = () => {
		if (budget <= 0) return false;
		budget--;
		return true;
	};
	const marks = recallFeeds(filter, feedIds, previous);
	const next: Record<string, FeedMark> = {};
	const outcomes: Record<string, FeedOutcome> = {};
	const posts: FeedPollResult['posts'] = [];
	let requests = 0;

	// Feeds the budget left out last time (or never reached) come first, so that a tight budget reaches every feed in turn.
	const waiting = (id: string) => !marks[id] || marks[id].skipped === true;
	const order = [...feedIds.filter(waiting), ...feedIds.filter((id) => !waiting(id))];
	for (const feedId of order) {
		const memory = marks[feedId];
		if (!memory) {
			if (!spend()) {
				outcomes[feedId] = { kind: 'notAsked' };
				continue;
			}
			const answer = await fetchPage(feedId, 1, perPage);
			requests++;
			const mark = answer.posts.reduce((highest, post) => Math.max(highest, post.id), 0);
			next[feedId] = { mark };
			outcomes[feedId] = { kind: 'recorded', mark };
			continue;
		}
		const resuming = memory.held !== undefined && memory.held.nextPage > 2;
		if (resuming && budget < 2) {
			next[feedId] = { ...memory, skipped: true };
			outcomes[feedId] = { kind: 'notAsked' };
			continue;
		}
		const pages = memory.held ? resumePages : maxPages;
		const walk = await walkFeed(feedId, { mark: memory.mark, held: memory.held }, fetchPage, { pages, perPage }, spend);
		requests += walk.requests;
		if (walk.done) {
			const mark = walk.posts.reduce((highest, post) => Math.max(highest, post.id), memory.mark);
			next[feedId] = { mark };
			outcomes[feedId] = { kind: 'emitted', posts: walk.posts };
			posts.push(...walk.posts.map((post) => ({ feedId, post })));
		} else if (walk.requests === 0) {
			next[feedId] = { ...memory, skipped: true };
			outcomes[feedId] = { kind: 'notAsked' };
		} else {
			next[feedId] = { mark: memory.mark, held: { posts: walk.posts, nextPage: walk.nextPage } };
			outcomes[feedId] = { kind: 'held', count: walk.posts.length };
		}
	}
	return { posts, outcomes, requests, state: { filter, feeds: next } };
}

/** The newest `count` posts over the feeds' newest pages, oldest first: what a manual run shows. */
export async function newestPosts(
	feedIds: string[],
	fetchPage: FetchFeedPage,
	count: number,
): Promise<Array<{ feedId: string; post: FeedPost }>> {
	const perPage = Math.max(1, Math.min(FEED_PAGE_SIZE, Math.floor(count)));
	const all: Array<{ feedId: string; post: FeedPost }> = [];
	for (const feedId of feedIds) {
		const answer = await fetchPage(feedId, 1, perPage);
		all.push(...answer.posts.map((post) => ({ feedId, post })));
	}
	all.sort((a, b) => a.post.id - b.post.id);
	return all.slice(Math.max(0, all.length - count));
}
