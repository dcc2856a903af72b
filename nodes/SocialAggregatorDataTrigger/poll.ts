import type { IDataObject } from 'n8n-workflow';

import type { DataSearch } from '../shared/dataSearch';
import { applyDataResponse, nextDataRound, startDataRounds, type PlatformProgress } from '../shared/pagination';
import type { DataPost, DataPostsResponse, PlatformStatus } from '../shared/types';

/** Post keys remembered per platform: far more than the pages one poll reads. */
export const DEFAULT_REMEMBER_PER_PLATFORM = 200;
export const DEFAULT_MAX_PAGES_PER_POLL = 3;

/** What the trigger keeps between polls (the node's static data). */
export interface PollState extends IDataObject {
	/** The term and term type the memory belongs to; another search starts afresh. */
	search?: string;
	/** Keys of the newest posts seen, per platform, newest first. */
	seen?: Record<string, string[]>;
}

export interface PlatformFailure {
	platform: string;
	code: string;
	message: string;
}

export interface PollResult {
	/** Posts not seen before, oldest first. */
	posts: DataPost[];
	failures: PlatformFailure[];
	/** Platforms whose first poll only recorded what is there. */
	recorded: string[];
	/** Platforms with more unseen posts than the pages allowed: the oldest of them were skipped. */
	truncated: string[];
	requests: number;
	state: PollState;
}

/** Fetches one page: the platforms still open and their cursors, comma-joined. */
export type FetchRound = (round: { platforms: string[]; cursor?: string }) => Promise<DataPostsResponse>;

export interface PollOptions {
	maxPages?: number;
	rememberPerPlatform?: number;
	maxPlatformRetries?: number;
}

/** What identifies the search the memory belongs to (platforms are remembered one by one). */
export function searchIdentity(search: DataSearch): string {
	return JSON.stringify([search.term.toLowerCase(), search.termType ?? 'auto']);
}

/** A stable key for a post: its platform and platform id, else its URL, else time and text. */
export function postKey(post: DataPost): string {
	const platform = String(post.platform ?? '').toLowerCase();
	if (post.platform_id) return `${platform}:id:${String(post.platform_id)}`;
	if (post.url) return `${platform}:url:${String(post.url)}`;
	return `${platform}:t:${String(post.post_created_at ?? '')}:${String(post.message ?? '').slice(0, 120)}`;
}

/** The posts of a response grouped by the platform asked for (matched without regard to case). */
export function groupByPlatform(posts: DataPost[], platforms: string[]): Record<string, DataPost[]> {
	const groups: Record<string, DataPost[]> = Object.fromEntries(platforms.map((p) => [p, []]));
	for (const post of posts) {
		const name = String(post.platform ?? '').toLowerCase();
		const platform =
			platforms.find((p) => p.toLowerCase() === name) ?? (platforms.length === 1 ? platforms[0] : undefined);
		if (platform) groups[platform].push(post);
	}
	return groups;
}

/**
 * Posts of several platforms in time order, oldest first. Each platform's list
 * comes newest first, as pages do; a post without a readable time keeps its
 * place after the post before it.
 */
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

function statusOf(statuses: PlatformStatus[], platform: string): PlatformStatus | undefined {
	return statuses.find((s) => String(s.platform).toLowerCase() === platform.toLowerCase());
}

/**
 * One poll: reads the newest pages of every platform, in shared rounds, until
 * each meets a post it has seen (or has no more, or the page budget is spent).
 * A platform without memory only records its first page. Returns the unseen
 * posts oldest first and the memory to keep; the memory of a platform that
 * failed is kept as it was, so nothing is lost or repeated.
 */
export async function pollOnce(
	search: DataSearch,
	previous: PollState,
	fetchRound: FetchRound,
	options: PollOptions = {},
): Promise<PollResult> {
	const maxPages = Math.max(1, Math.floor(options.maxPages ?? DEFAULT_MAX_PAGES_PER_POLL));
	const remember = Math.max(1, Math.floor(options.rememberPerPlatform ?? DEFAULT_REMEMBER_PER_PLATFORM));
	const identity = searchIdentity(search);
	const oldSeen: Record<string, string[]> = previous.search === identity && previous.seen ? previous.seen : {};
	const seenSets: Record<string, Set<string>> = {};
	const recording = new Set<string>();
	for (const platform of search.platforms) {
		const list = oldSeen[platform];
		if (Array.isArray(list)) seenSets[platform] = new Set(list);
		else recording.add(platform);
	}

	const found: Record<string, DataPost[]> = Object.fromEntries(search.platforms.map((p) => [p, []]));
	const keysFound: Record<string, Set<string>> = Object.fromEntries(search.platforms.map((p) => [p, new Set()]));
	const roundOptions = { maxPlatformRetries: options.maxPlatformRetries ?? 1 };
	let progress: PlatformProgress[] = startDataRounds(search.platforms);
	let requests = 0;

	while (requests < maxPages) {
		const round = nextDataRound(progress, roundOptions);
		if (!round) break;
		const response = await fetchRound(round);
		requests++;
		const statuses = Array.isArray(response?.meta?.platforms) ? response.meta.platforms : [];
		const groups = groupByPlatform(Array.isArray(response?.data) ? response.data : [], round.platforms);
		const counts: Record<string, number> = {};
		const finished = new Set<string>();
		for (const platform of round.platforms) {
			if (!statusOf(statuses, platform)?.success) continue;
			let met = false;
			let added = 0;
			for (const post of groups[platform]) {
				const key = postKey(post);
				if (seenSets[platform]?.has(key)) {
					met = true;
					continue;
				}
				if (keysFound[platform].has(key)) continue;
				keysFound[platform].add(key);
				found[platform].push(post);
				added++;
			}
			counts[platform] = added;
			// A platform without memory records its newest page only; one with memory stops at the first post it knows.
			if (recording.has(platform) || met) finished.add(platform);
		}
		progress = applyDataResponse(progress, round.platforms, statuses, counts, roundOptions).map((p) =>
			finished.has(p.platform) && p.state === 'more' ? { ...p, state: 'done' } : p,
		);
	}

	const failures: PlatformFailure[] = [];
	const truncated: string[] = [];
	const seen: Record<string, string[]> = {};
	const completed = new Set<string>();
	for (const p of progress) {
		// A platform that failed at any page is read again from its newest page next time.
		const failed = p.state === 'failed' || p.error !== undefined;
		if (failed) {
			failures.push({
				platform: p.platform,
				code: p.error?.code ?? 'platform_error',
				message: p.error?.message ?? 'The platform failed',
			});
			if (oldSeen[p.platform]) seen[p.platform] = oldSeen[p.platform];
			continue;
		}
		if (p.state === 'first') {
			// Never asked: the page budget ran out on retries of others. Keep what was known.
			if (oldSeen[p.platform]) seen[p.platform] = oldSeen[p.platform];
			continue;
		}
		if (p.state === 'more' && !recording.has(p.platform)) truncated.push(p.platform);
		const fresh = found[p.platform].map(postKey);
		seen[p.platform] = [...fresh, ...(oldSeen[p.platform] ?? [])].slice(0, remember);
		completed.add(p.platform);
	}

	const emitting = search.platforms.filter((p) => completed.has(p) && !recording.has(p));
	const posts = oldestFirst(emitting.map((p) => found[p]));
	const recorded = search.platforms.filter((p) => completed.has(p) && recording.has(p));
	return { posts, failures, recorded, truncated, requests, state: { search: identity, seen } };
}

/** The newest `count` posts of one page per platform, oldest first: what a manual run shows. */
export function latestPosts(posts: DataPost[], platforms: string[], count: number): DataPost[] {
	const groups = groupByPlatform(posts, platforms);
	const ordered = oldestFirst(platforms.map((p) => groups[p]));
	return count > 0 ? ordered.slice(Math.max(0, ordered.length - count)) : [];
}
