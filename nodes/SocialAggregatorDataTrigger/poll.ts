import type { DataSearch } from '../shared/dataSearch';
import type { PlatformProgress } from '../shared/roundPage';
import { collectRounds, type RoundAnswer } from '../shared/rounds';
import type { DataPost } from '../shared/types';
import { failureOf, oldestFirst, pollKey, recall, settleAll, type PlatformFailure, type PollState } from './pollMemory';

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
	 * reads on from there; nothing is emitted yet.
	 */
	held: Record<string, number>;
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
 * One poll: backlogs read on first, then the newest pages, each platform until a post it has seen. A platform still
 * finding new posts when the page budget is spent emits nothing yet: what it read becomes its backlog, so a burst is
 * emitted whole, once, oldest first. A failed platform's memory is kept as it was.
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
	const { identity, oldSeen, seenSets, backlog } = recall(search, previous);

	const found: Record<string, DataPost[]> = Object.fromEntries(search.platforms.map((p) => [p, []]));
	const heldKeys = Object.fromEntries(search.platforms.map((p) => [p, new Set((backlog[p]?.posts ?? []).map(pollKey))]));
	let requests = 0;

	/** Reads rounds until each platform is finished or the budget is spent. */
	async function read(platforms: string[], cursors?: Record<string, string>): Promise<PlatformProgress[]> {
		if (platforms.length === 0) return [];
		const outcome = await collectRounds<DataPost>({
			platforms,
			cursors,
			maxPlatformRetries: POLL_PLATFORM_RETRIES,
			maxRequests: maxPages - requests,
			key: pollKey,
			fetchRound,
			// A platform without memory records its newest page only; one with memory stops at the first post it knows.
			take: (platform, posts) => {
				const known = (post: DataPost) => seenSets[platform]?.has(pollKey(post));
				const items = posts.filter((post) => !known(post) && !heldKeys[platform].has(pollKey(post)));
				return { items, finished: !seenSets[platform] || posts.some(known) };
			},
		});
		requests += outcome.requests;
		for (const page of outcome.pages) found[page.platform].push(...page.items);
		return outcome.progress;
	}

	// Backlogs first (every one has a cursor, so a round never mixes first pages with later ones).
	const continuing = search.platforms.filter((p) => backlog[p]);
	const progress = [
		...(await read(continuing, Object.fromEntries(continuing.map((p) => [p, backlog[p].cursor])))),
		...(await read(search.platforms.filter((p) => !backlog[p]))),
	];

	const { failures, held, seen, nextBacklog, emitted, recorded } = settleAll(progress, { found, backlog, seenSets, oldSeen, remember });
	const order = search.platforms.filter((p) => emitted[p]);
	const posts = oldestFirst(order.map((p) => emitted[p]));
	const state: PollState = { search: identity, seen };
	if (Object.keys(nextBacklog).length > 0) state.backlog = nextBacklog;
	return {
		posts,
		failures,
		recorded: search.platforms.filter((p) => recorded.includes(p)),
		held,
		requests,
		state,
	};
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
