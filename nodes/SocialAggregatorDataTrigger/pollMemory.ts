import type { IDataObject } from 'n8n-workflow';

import type { DataSearch } from '../shared/dataSearch';
import type { PollOutcome } from '../shared/pollRun';
import type { PlatformProgress } from '../shared/roundPage';
import { recordKey } from '../shared/utils';
import type { DataPost } from '../shared/types';

// What the Data Trigger remembers between polls, and what one poll's rounds make of it: the pure half of poll.ts.

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

/** A post's key in the memory: `recordKey`, else its time and text. */
export function pollKey(post: DataPost): string {
	const platform = String(post.platform ?? '').toLowerCase();
	return recordKey(post) ?? `${platform}:t:${String(post.post_created_at ?? '')}:${String(post.message ?? '').slice(0, 120)}`;
}

export function failureOf(p: PlatformProgress): PlatformFailure {
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
export function recall(
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

/** What one poll did with a platform: the posts it recorded, or the posts it holds and the cursor to read on from. */
type PlatformOutcome = PollOutcome<DataPost, { posts: DataPost[] }, { posts: DataPost[]; cursor: string }>;

/** The outcome for one platform of the rounds' progress, its backlog before, the posts found and whether it has memory. */
function settlePlatform(p: PlatformProgress, before: Backlog | undefined, found: DataPost[], remembers: boolean): PlatformOutcome {
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
