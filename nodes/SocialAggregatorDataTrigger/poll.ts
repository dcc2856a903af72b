import type { DataSearch } from '../shared/dataSearch';
import type { PlatformProgress } from '../shared/roundPage';
import { collectRounds, type RoundAnswer } from '../shared/rounds';
import type { DataPost } from '../shared/types';
import {
	failureOf,
	oldestFirst,
	pollKey,
	recall,
	settleAll,
	withCursor,
	type Backlog,
	type PlatformFailure,
	type PlatformRead,
	type PollState,
	type Recalled,
} from './pollMemory';

/** Post keys remembered per platform: far more than the pages one poll reads. */
export const DEFAULT_REMEMBER_PER_PLATFORM = 200;
export const DEFAULT_MAX_PAGES_PER_POLL = 3;

export interface PollResult {
	/** Posts not seen before, oldest first. */
	posts: DataPost[];
	failures: PlatformFailure[];
	/** Platforms whose first poll only recorded what is there. */
	recorded: string[];
	/**
	 * Per platform with more new posts than the pages allowed, the posts read and held (the backlog): the next poll
	 * reads on from there; nothing of it is emitted yet, unless the backlog reached HELD_POSTS_MAX (then 0 are held).
	 */
	held: Record<string, number>;
	/** Platforms whose backlog's cursor the service refused: what they held is emitted, and they were read afresh. */
	refused: string[];
	requests: number;
	state: PollState;
}

/** Fetches one page: the platforms still open and their cursors, comma-joined. */
export type FetchRound = (round: { platforms: string[]; cursor?: string }) => Promise<RoundAnswer<DataPost>>;

interface PollOptions {
	maxPages?: number;
	/** Requests the key's rate limit allows now: a poll reads no more pages than that (0: none, all kept for later). */
	budgetLeft?: number;
	rememberPerPlatform?: number;
}

/** Extra attempts in one poll for a platform that answered a passing failure; the next poll asks it again anyway. */
const POLL_PLATFORM_RETRIES = 1;

/**
 * One poll: backlogs read on first, then the newest pages, each platform until a page whose last post it knows. A
 * platform still finding new posts when the page budget is spent emits nothing yet: what it read becomes its backlog,
 * so a burst is emitted whole, once, oldest first (past HELD_POSTS_MAX, in parts). A backlog whose cursor the service
 * refuses is read afresh from the newest page. A failed platform's memory is kept as it was.
 */
export async function pollOnce(
	search: DataSearch,
	previous: PollState,
	fetchRound: FetchRound,
	options: PollOptions = {},
): Promise<PollResult> {
	const maxPages = Math.min(
		Math.max(1, Math.floor(options.maxPages ?? DEFAULT_MAX_PAGES_PER_POLL)),
		Math.max(0, Math.floor(options.budgetLeft ?? Number.POSITIVE_INFINITY)),
	);
	const remember = Math.max(1, Math.floor(options.rememberPerPlatform ?? DEFAULT_REMEMBER_PER_PLATFORM));
	const memory = recall(search, previous);
	const reader = platformReader(search.platforms, memory, fetchRound, maxPages);

	// Backlogs first (every one has a cursor, so a round never mixes first pages with later ones).
	const carried = await reader.read(search.platforms.filter((p) => memory.backlog[p]?.cursor !== undefined));
	const released = dropRefusedCursors(carried, memory.backlog);
	const afresh = await reader.read(search.platforms.filter((p) => memory.backlog[p]?.cursor === undefined));
	const progress = [...carried.filter((p) => !released[p.platform]), ...afresh];

	const { failures, held, seen, nextBacklog, emitted, recorded } = settleAll(progress, { ...memory, reads: reader.reads, remember });
	const order = search.platforms.filter((p) => emitted[p] || released[p]);
	const posts = oldestFirst(order.flatMap((p) => [emitted[p] ?? [], released[p] ?? []]));
	const state: PollState = { search: memory.identity, seen };
	if (Object.keys(nextBacklog).length > 0) state.backlog = nextBacklog;
	return {
		posts,
		failures,
		recorded: search.platforms.filter((p) => recorded.includes(p)),
		held,
		refused: Object.keys(released),
		requests: reader.requests(),
		state,
	};
}

/**
 * Reads rounds of the platforms asked until each is finished or the poll's pages are spent, from their backlogs'
 * cursors where they have one: per platform, the posts new to it and the keys of every post on its pages.
 */
function platformReader(platforms: string[], memory: Recalled, fetchRound: FetchRound, maxPages: number) {
	const reads: Record<string, PlatformRead> = Object.fromEntries(platforms.map((p) => [p, { found: [], keys: [] }]));
	// What a platform must not emit again: what it saw, and what its backlog met (emitted or held).
	const met = Object.fromEntries(platforms.map((p) => [p, new Set([...(memory.oldSeen[p] ?? []), ...(memory.backlog[p]?.keys ?? [])])]));
	let requests = 0;
	async function read(asked: string[]): Promise<PlatformProgress[]> {
		if (asked.length === 0) return [];
		const cursors = Object.fromEntries(asked.flatMap((p) => (memory.backlog[p]?.cursor ? [[p, memory.backlog[p].cursor]] : [])));
		const outcome = await collectRounds<DataPost>({
			platforms: asked,
			cursors,
			maxPlatformRetries: POLL_PLATFORM_RETRIES,
			maxRequests: maxPages - requests,
			key: pollKey,
			fetchRound,
			take: (platform, posts) => {
				reads[platform].keys.push(...posts.map(pollKey));
				return { items: posts.filter((post) => !met[platform].has(pollKey(post))), finished: readEnds(memory.seenSets[platform], posts) };
			},
		});
		requests += outcome.requests;
		for (const page of outcome.pages) reads[page.platform].found.push(...page.items);
		return outcome.progress;
	}
	return { read, reads, requests: () => requests };
}

/**
 * Whether a platform's read ends with this page: at once without memory (its newest page is recorded), else when the
 * page's last (oldest) post is known. New posts come in above the posts listed before them, so the posts below a known
 * one were read when it was; a known post further up (one that stays on top, or comes back there) proves nothing.
 */
function readEnds(known: Set<string> | undefined, page: DataPost[]): boolean {
	if (!known) return true;
	const last = page[page.length - 1];
	return last !== undefined && known.has(pollKey(last));
}

/**
 * The platforms whose backlog's cursor the service refused (`invalid_cursor`, or an expired cursor by another name),
 * with the posts their backlogs held: emitted now, since the read that would reach them is not sure to end (a cursor
 * that expires at every poll). Their backlogs keep only the keys, without the cursor: read afresh from the newest page.
 */
function dropRefusedCursors(progress: PlatformProgress[], backlog: Record<string, Backlog>): Record<string, DataPost[]> {
	const released: Record<string, DataPost[]> = {};
	for (const p of progress) {
		if (p.state !== 'failed' || !/cursor/i.test(p.error?.code ?? '')) continue;
		released[p.platform] = backlog[p.platform].posts;
		backlog[p.platform] = withCursor({ ...backlog[p.platform], posts: [] }, undefined);
	}
	return released;
}

/** One page per platform in one request, their posts together oldest first, and the platforms that failed: what a manual run shows the newest of. */
export async function newestRound(
	search: DataSearch,
	fetchRound: FetchRound,
): Promise<{ posts: DataPost[]; failures: PlatformFailure[] }> {
	const plan = { platforms: search.platforms, maxRequests: 1, maxPlatformRetries: 0, fetchRound };
	const { pages, progress } = await collectRounds<DataPost>(plan);
	// One request: a page (or a failed attempt) per platform, in their order.
	const posts = oldestFirst(pages.map((page) => page.items));
	const failures = progress.filter((p) => p.state === 'failed').map(failureOf);
	return { posts, failures };
}
