import type { IDataObject } from 'n8n-workflow';

import { listAnswer, UnusableAnswer } from './answerShapes';

// One walk of a feed's posts (`GET /feeds/{id}/posts`) down to what was there before, for the Feed Trigger's polls and
// the webhook trigger's catch-up (docs/exactly-once.md#any-listing-order). The order of the list is not documented
// (docs/service.md#feed-post-order): the walk assumes only that it is newest first by some time (the platform's, the
// service's storing, or the id, which grows as the service stores posts), with pinned posts at the top or flagged.

/** Feed posts per page: the service's maximum, so that a quiet walk takes as few requests as it can. */
export const FEED_PAGE_SIZE = 100;

/** How long before its storing a post may have been published and still be found (hours): a source synced a day late. */
export const DEFAULT_LATE_HOURS = 25;

/** A feed post as the walk reads it: its integer id (ids grow as the service stores posts). */
export interface FeedPost extends IDataObject {
	id: number;
}

/** One page of a feed's posts. */
export interface FeedPage {
	posts: FeedPost[];
	/** `meta.total_pages` where the service gave it. */
	totalPages?: number;
	/** `meta.total_count` where the service gave it: a list that shrinks between two page reads pulled posts up. */
	totalCount?: number;
}

export type FetchFeedPage = (feedId: string, page: number, perPage: number) => Promise<FeedPage>;

/** A page answer checked (the list shape of docs/service.md#paging) and read: every post must carry an integer ID. */
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
	return { posts, totalPages: meta?.total_pages, totalCount: meta?.total_count };
}

/** A time field in ms, or undefined. */
function timeOf(value: unknown): number | undefined {
	if (typeof value !== 'string') return undefined;
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? undefined : ms;
}

/** When the service stored a post (`created_at`), else when it was published (never later than its storing). */
export function storedAt(post: IDataObject): number | undefined {
	return timeOf(post.created_at) ?? timeOf(post.external_created_at);
}

/** When a post was published on its platform (`external_created_at`), else when the service stored it. */
export function publishedAt(post: IDataObject): number | undefined {
	return timeOf(post.external_created_at) ?? timeOf(post.created_at);
}

/** Oldest first: the order the service stored the posts in, which their ids follow. */
const byIdAscending = (a: FeedPost, b: FeedPost) => a.id - b.id;

/** Where a walk stops: below what was there before the posts it looks for. */
export interface WalkBound {
	/** Whether a post is not one the walk looks for: seen before, at or below a mark, or stored before the gap. */
	isOld: (post: FeedPost) => boolean;
	/**
	 * Whether every post listed after this one (not pinned) is out of what the walk looks for, in any legal order: the
	 * walk ends at a page whose last post is. Given `since` as the walk knows it. Without it, a page ends the walk when
	 * its last post is old and published the late window before `since`.
	 */
	isBelow?: (post: FeedPost, since: number | undefined) => boolean;
	/**
	 * When the newest post there before was stored (ms); undefined: not known, the old posts read tell. Any post stored
	 * later was published at most `lateMs` before it was stored, so not before `since - lateMs`.
	 */
	since?: number;
	lateMs: number;
	/**
	 * The list's `meta.total_count` when none of its posts was new (the count at the last walk that found every new
	 * post, plus those a held walk found so far). Where the list's count at the walk's start is above it by N, the walk
	 * ends once it found N new posts and a page's last post is old: the rest of the list is what was there before.
	 */
	knownCount?: number;
}

/** A walk that a page cap stopped: where it reads on. The posts it found were given to the walk's caller. */
export interface HeldWalk extends IDataObject {
	/** The page to read next. */
	nextPage: number;
	/** The ids of the last page read, which the walk reads again first to see whether the list moved. */
	seen?: number[];
	/** What the walk's first page showed when it began (see WalkResult). */
	start?: WalkStart;
	/** `meta.total_count` when the last page was read: how the list moved since tells where to read on. */
	count?: number;
}

/**
 * The highest id and newest storing time on the first page a walk read. Every post up to that id was there when the
 * walk began, so the walk met it; one stored later may have been listed on a page already read.
 */
interface WalkStart extends IDataObject {
	id: number;
	stored?: number;
	/** `meta.total_count` on that page. */
	count?: number;
}

export interface WalkResult {
	/** Every post this walk found that is not old, oldest first (by id), whether or not it is done. */
	posts: FeedPost[];
	done: boolean;
	/** Set when not done: where the next walk reads on. */
	held?: HeldWalk;
	requests: number;
	/** The highest id among the posts read. */
	highestId?: number;
	/** What the first page showed, when one was read. */
	start?: WalkStart;
	/** The walk ended because it found as many new posts as the list's count grew by (WalkBound.knownCount). */
	endedByCount?: boolean;
	/** The last page the walk read. */
	lastPage?: number;
	/** `meta.total_count` when the walk's last page was read: the list may have grown while the walk read it. */
	lastCount?: number;
}

/**
 * Whether a page ends the walk: its last post that is not pinned is old, and (where times tell) published before any
 * post looked for can be. In any newest-first order every post after it is then old too, or published too early to be
 * one looked for: by stored time or id, everything after an old post is old; by platform time, everything after it is
 * older still. A pinned post ends nothing, wherever it is listed.
 */
function endsWalk(posts: FeedPost[], bound: WalkBound, since: number | undefined): boolean {
	const last = [...posts].reverse().find((post) => post.pinned !== true);
	if (!last) return false;
	if (bound.isBelow) return bound.isBelow(last, since);
	if (!bound.isOld(last)) return false;
	const published = timeOf(last.external_created_at);
	if (since === undefined || published === undefined) return true;
	return published < since - bound.lateMs;
}

/**
 * Whether the walk found every new post its count tells of: as many as the list grew by since it last held none, and
 * the page's last post (not pinned) old, so that the new posts listed together do not run on below it.
 */
function countEndsWalk(posts: FeedPost[], bound: WalkBound, start: WalkStart | undefined, found: number): boolean {
	if (bound.knownCount === undefined || start?.count === undefined) return false;
	const last = [...posts].reverse().find((post) => post.pinned !== true);
	return found >= start.count - bound.knownCount && (last === undefined || bound.isOld(last));
}

/**
 * Whether a page ends the walk, and how: the list's end, the window's (`endsWalk`), or the count's (`countEndsWalk`).
 * A page shorter than asked ends the list only where the service did not say how many pages there are.
 */
function walkEnd(
	at: { posts: FeedPost[]; page: number; perPage: number; totalPages?: number },
	bound: WalkBound,
	start: WalkStart | undefined,
	found: number,
	since: number | undefined,
): 'list' | 'window' | 'count' | undefined {
	const { posts, page, perPage, totalPages } = at;
	if (posts.length === 0 || (totalPages !== undefined ? page >= totalPages : posts.length < perPage)) return 'list';
	if (endsWalk(posts, bound, since)) return 'window';
	return countEndsWalk(posts, bound, start, found) ? 'count' : undefined;
}

/**
 * Where a held walk reads on when the page it read last, read again, shows none of the posts it had: the list moved.
 * Grown (posts stored since, above or among the rest): on from here, the posts pushed down onto the next pages read
 * again and dropped by ID. Shrunk: back as many pages as it shrank by. Neither known: from the top.
 */
function pageAfterMove(page: number, perPage: number, before: number | undefined, now: number | undefined): number | 'on' {
	if (before === undefined || now === undefined) return 1;
	if (now >= before) return 'on';
	return Math.max(1, page - Math.ceil((before - now) / perPage));
}

function firstPage(posts: FeedPost[], count: number | undefined): WalkStart {
	const start: WalkStart = { id: Math.max(...posts.map((post) => post.id)) };
	if (count !== undefined) start.count = count;
	for (const post of posts) {
		const stored = storedAt(post);
		if (stored !== undefined) start.stored = Math.max(start.stored ?? stored, stored);
	}
	return start;
}

/**
 * A page's posts taken into a walk: the new ones found, the highest id, and (without a known `since`) when the newest
 * old post read was stored, which tells how far back the walk reads.
 */
function takePage(
	posts: FeedPost[],
	bound: WalkBound,
	found: Map<number, FeedPost>,
	known: { highestId?: number; since?: number },
): { highestId?: number; since?: number } {
	let { highestId, since } = known;
	for (const post of posts) {
		highestId = Math.max(highestId ?? post.id, post.id);
		const stored = storedAt(post);
		if (!bound.isOld(post)) found.set(post.id, post);
		else if (bound.since === undefined && stored !== undefined) since = Math.max(since ?? stored, stored);
	}
	return { highestId, since };
}

/**
 * Whether a page read again to see where a held walk stands shows that the list moved down since: none of the posts
 * read last, and every post on it stored after them (posts stored since pushed the rest further down).
 */
function movedDown(posts: FeedPost[], lastRead: Set<number>): boolean {
	const highestRead = Math.max(...lastRead);
	return posts.length > 0 && lastRead.size > 0 && posts.every((post) => post.id > highestRead);
}

/**
 * Reads a feed's posts from page 1 (or where a held walk stopped) until a page ends the walk (`endsWalk`) or the list
 * ends, at most `maxPages` requests, each allowed by `spend`; `onRead` sees every page's posts. Pages are offsets, so
 * posts added meanwhile push posts down (read again, dropped by id) and posts deleted pull them up: a held walk first
 * reads again the last page it read, reads on while that page holds only posts stored since, and starts over from
 * page 1 when it holds none of the posts it read and older ones.
 */
export async function walkFeedPosts(
	fetchPage: (page: number, perPage: number) => Promise<FeedPage>,
	bound: WalkBound,
	options: { maxPages: number; perPage?: number; held?: HeldWalk; spend?: () => boolean; onRead?: (posts: FeedPost[]) => void },
): Promise<WalkResult> {
	const perPage = Math.max(1, Math.min(FEED_PAGE_SIZE, Math.floor(options.perPage ?? FEED_PAGE_SIZE)));
	const spend = options.spend ?? (() => true);
	const found = new Map<number, FeedPost>();
	const lastRead = new Set<number>(options.held?.seen ?? []);
	let page = options.held ? Math.max(1, options.held.nextPage - 1) : 1;
	let checkOverlap = page > 1 && lastRead.size > 0;
	let since = bound.since;
	let highestId: number | undefined;
	let start = options.held?.start;
	let seen: number[] = [];
	let requests = 0;
	let count: number | undefined = options.held?.count;
	// Where to go on once the pages read again after the list shrank are read (see below).
	let goOnAt: number | undefined;
	while (requests < options.maxPages && spend()) {
		const { posts, totalPages, totalCount } = await fetchPage(page, perPage);
		requests++;
		const lost = checkOverlap && !posts.some((post) => lastRead.has(post.id));
		if (lost && !movedDown(posts, lastRead)) {
			checkOverlap = false;
			const after = pageAfterMove(page, perPage, count, totalCount);
			if (totalCount !== undefined) count = totalCount;
			if (after !== 'on') {
				page = after;
				continue;
			}
		}
		checkOverlap = checkOverlap && lost;
		if (page === 1 && !start && posts.length > 0) start = firstPage(posts, totalCount);
		options.onRead?.(posts);
		({ highestId, since } = takePage(posts, bound, found, { highestId, since }));
		seen = posts.map((post) => post.id);
		const shrank = count !== undefined && totalCount !== undefined && totalCount < count ? count - totalCount : 0;
		if (totalCount !== undefined) count = totalCount;
		if (shrank > 0 && page > 1) {
			// Posts deleted, rejected or moved out meanwhile pulled as many posts up onto the pages already read: read
			// those pages again (as far back as the list shrank), then go on after this one.
			goOnAt = Math.max(goOnAt ?? 0, page + 1);
			page = Math.max(1, page - Math.ceil(shrank / perPage));
			continue;
		}
		const end = goOnAt === undefined ? walkEnd({ posts, page, perPage, totalPages }, bound, start, found.size, since) : undefined;
		if (end) {
			const result = { posts: [...found.values()].sort(byIdAscending), done: true, requests, highestId, start, lastPage: page, lastCount: count };
			return end === 'count' ? { ...result, endedByCount: true } : result;
		}
		page++;
		if (goOnAt !== undefined && page >= goOnAt - 1) {
			page = goOnAt;
			goOnAt = undefined;
		}
	}
	const held = heldAt(page, seen.length > 0 ? seen : options.held?.seen, start, count ?? options.held?.count);
	return { posts: [...found.values()].sort(byIdAscending), done: false, held, requests, highestId, start, lastPage: page - 1 };
}

/** Where a walk stopped by its page cap reads on: the page, the ids of the last page read, the first page's start. */
function heldAt(nextPage: number, seen: number[] | undefined, start: WalkStart | undefined, count: number | undefined): HeldWalk {
	const held: HeldWalk = { nextPage };
	if (seen) held.seen = seen;
	if (start) held.start = start;
	if (count !== undefined) held.count = count;
	return held;
}
