import type { IDataObject } from 'n8n-workflow';

import type { DataSearch } from '../shared/dataSearch';
import { collectRounds, type PlatformProgress, type RoundAnswer } from '../shared/rounds';
import { recordKey } from '../shared/utils';
import type { DataPost } from '../shared/types';

/** Post keys remembered per platform: far more than the pages one poll reads. */
export const DEFAULT_REMEMBER_PER_PLATFORM = 200;
export const DEFAULT_MAX_PAGES_PER_POLL = 3;

/** What the trigger keeps between polls (the node's static data). */
export interface PollState extends IDataObject {
	/** The term and term type the memory belongs to; another search starts afresh. */
	search?: string;
	/** Keys of the newest posts seen, per platform, newest first. */
	seen?: Record<string, string[]>;
	/** Per platform with more new pages than one poll may read: the posts read so far and the next older page's cursor. */
	backlog?: Record<string, Backlog>;
}

interface Backlog extends IDataObject {
	cursor: string;
	posts: DataPost[];
}

export interface PlatformFailure {
	platform: string;
	code: string;
	message: string;
	/** Failed attempts in a row. */
	attempts: number;
}

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

/** A post's key in the memory: `recordKey`, else its time and text. */
export function pollKey(post: DataPost): string {
	const platform = String(post.platform ?? '').toLowerCase();
	return recordKey(post) ?? `${platform}:t:${String(post.post_created_at ?? '')}:${String(post.message ?? '').slice(0, 120)}`;
}

function failureOf(p: PlatformProgress): PlatformFailure {
	const { platform, error, failures: attempts } = p;
	return { platform, code: error?.code ?? 'platform_error', message: error?.message ?? 'The platform failed', attempts };
}

/** Posts of several platforms (each list newest first) oldest first; a post without a time stays after its predecessor. */
export function oldestFirst(lists: DataPost[][]): DataPost[] {
	const timed: Array<{ post: DataPost; time: number; order: number }> = [];
	let order = 0;
	for (const list of lists) {
		let previous = Number.NEGATIVE_INFINITY;
		for (const post of [...list].reverse()) {
			const parsed = post.post_created_at ? Date.parse(post.post_created_at) : Number.NaN;
			const time = Number.isNaN(parsed) ? previous : parsed;
			previous = time;
			timed.push({ post, time, order: order++ });
		}
	}
	timed.sort((a, b) => a.time - b.time || a.order - b.order);
	return timed.map((t) => t.post);
}

/** What the memory holds for this search: the seen keys and backlogs of its platforms (none after another search). */
function recall(
	search: DataSearch,
	previous: PollState,
): { identity: string; oldSeen: Record<string, string[]>; seenSets: Record<string, Set<string>>; backlog: Record<string, Backlog> } {
	// What identifies the search the memory belongs to (platforms are remembered one by one).
	const identity = JSON.stringify([search.term.toLowerCase(), search.termType ?? 'auto']);
	const sameSearch = previous.search === identity;
	const oldSeen: Record<string, string[]> = sameSearch && previous.seen ? previous.seen : {};
	const oldBacklog: Record<string, Backlog> = sameSearch && previous.backlog ? previous.backlog : {};
	// A platform without memory (no seen set) records what is there.
	const seenSets: Record<string, Set<string>> = {};
	const backlog: Record<string, Backlog> = {};
	for (const platform of search.platforms) {
		const list = oldSeen[platform];
		if (Array.isArray(list)) seenSets[platform] = new Set(list);
		const held = oldBacklog[platform];
		if (seenSets[platform] && held && typeof held.cursor === 'string' && Array.isArray(held.posts)) {
			backlog[platform] = held;
		}
	}
	return { identity, oldSeen, seenSets, backlog };
}

/** What one poll did with a platform. */
type PlatformOutcome =
	/** It failed at some page: next time it reads again where it stood. */
	| { kind: 'failed' }
	/** The page budget ran out before it was asked: what was known is kept. */
	| { kind: 'notAsked' }
	/** More new posts than the pages allowed: held, with the cursor to read on from. */
	| { kind: 'held'; posts: DataPost[]; cursor: string }
	/** Read to a post it knew: these new posts are emitted. */
	| { kind: 'emitted'; posts: DataPost[] }
	/** Read for the first time: what is there is recorded, not emitted. */
	| { kind: 'recorded'; posts: DataPost[] };

/** The outcome for one platform of the rounds' progress, its backlog before, the posts found and whether it has memory. */
export function settlePlatform(p: PlatformProgress, before: Backlog | undefined, found: DataPost[], remembers: boolean): PlatformOutcome {
	if (p.state === 'failed' || p.error !== undefined) return { kind: 'failed' };
	if (p.state === 'first' || (p.state === 'more' && before && p.cursor === before.cursor)) return { kind: 'notAsked' };
	const posts = [...(before?.posts ?? []), ...found];
	if (p.state === 'more' && remembers && p.cursor) return { kind: 'held', posts, cursor: p.cursor };
	return remembers ? { kind: 'emitted', posts } : { kind: 'recorded', posts };
}

/** Per platform, the new posts a poll found, and what it knew before: its backlog, the keys it had seen (a list and a set); and how many keys to keep. */
interface Memory {
	found: Record<string, DataPost[]>;
	backlog: Record<string, Backlog>;
	seenSets: Record<string, Set<string>>;
	oldSeen: Record<string, string[]>;
	remember: number;
}

/**
 * Every platform's outcome (settlePlatform) made into the poll's result: the failures, the posts held and emitted,
 * the platforms recorded, and the next memory. A platform not read to a known post keeps the memory it had.
 */
export function settleAll(progress: PlatformProgress[], memory: Memory) {
	const { found, backlog, seenSets, oldSeen, remember } = memory;
	const failures: PlatformFailure[] = [];
	const held: Record<string, number> = {};
	const seen: Record<string, string[]> = {};
	const nextBacklog: Record<string, Backlog> = {};
	const emitted: Record<string, DataPost[]> = {};
	const recorded: string[] = [];
	for (const p of progress) {
		const { platform } = p;
		const before = backlog[platform];
		const outcome = settlePlatform(p, before, found[platform] ?? [], Boolean(seenSets[platform]));
		const keepSeen = () => {
			if (oldSeen[platform]) seen[platform] = oldSeen[platform];
		};
		if (outcome.kind === 'failed' || outcome.kind === 'notAsked') {
			if (outcome.kind === 'failed') failures.push(failureOf(p));
			keepSeen();
			if (before) nextBacklog[platform] = before;
		} else if (outcome.kind === 'held') {
			held[platform] = outcome.posts.length;
			nextBacklog[platform] = { cursor: outcome.cursor, posts: outcome.posts };
			keepSeen();
		} else {
			seen[platform] = [...outcome.posts.map(pollKey), ...(oldSeen[platform] ?? [])].slice(0, remember);
			if (outcome.kind === 'emitted') emitted[platform] = outcome.posts;
			else recorded.push(platform);
		}
	}
	return { failures, held, seen, nextBacklog, emitted, recorded };
}

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

/** The newest `count` posts of one page per platform, oldest first, and the platforms that failed: what a manual run shows. */
export async function latestPosts(
	search: DataSearch,
	fetchRound: FetchRound,
	count: number,
): Promise<{ posts: DataPost[]; failures: PlatformFailure[] }> {
	const plan = { platforms: search.platforms, maxRequests: 1, maxPlatformRetries: 0, fetchRound };
	const { pages, progress } = await collectRounds<DataPost>(plan);
	// One request: a page (or a failed attempt) per platform, in their order.
	const ordered = oldestFirst(pages.map((page) => page.items));
	const failures = progress.filter((p) => p.state === 'failed').map(failureOf);
	return { posts: count > 0 ? ordered.slice(Math.max(0, ordered.length - count)) : [], failures };
}
