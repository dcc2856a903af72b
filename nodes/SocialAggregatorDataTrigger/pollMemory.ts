import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { DataSearch } from '../shared/dataSearch';
import type { PollOutcome } from '../shared/pollRun';
import type { PlatformProgress } from '../shared/roundPage';
import { isObject, recordKey } from '../shared/utils';
import type { DataPost } from '../shared/types';

// What the Data Trigger remembers between polls, and what one poll's rounds make of it: the pure half of poll.ts.
// The rules are in docs/exactly-once.md#social-aggregator-data-trigger.

/** What the trigger keeps between polls (the node's static data). */
export interface PollState extends IDataObject {
	/** The term and term type the memory belongs to; another search starts afresh. */
	search?: string;
	/** Keys of the posts on the pages last read, per platform, in the order the platform lists them (at most Posts Remembered). */
	seen?: Record<string, string[]>;
	/** Per platform whose read from its newest page has not reached a page ending in a known post yet. */
	backlog?: Record<string, Backlog>;
}

export interface Backlog extends IDataObject {
	/** The next older page's cursor; none once the service refused it: the platform is then read afresh from its newest page. */
	cursor?: string;
	/** Posts read and not emitted yet: at most HELD_POSTS_MAX. */
	posts: DataPost[];
	/** Keys of every post this read has met, in list order (the held posts' too): what it must not emit again. */
	keys: string[];
}

/** Whole posts a backlog holds per platform; past this it emits them and keeps their keys only. */
const HELD_POSTS_MAX = 100;
/** Keys a backlog keeps per platform: its newest half (the next memory's top) and its latest read half (pages that overlap). */
const BURST_KEYS_MAX = 2000;

export interface PlatformFailure {
	platform: string;
	code: string;
	message: string;
	/** Failed attempts in a row. */
	attempts: number;
}

/**
 * A post's key in the memory: `recordKey` (its platform_id or URL), else a hash of the fields a post keeps from one
 * listing to the next (not its counts), so that posts lacking all three are told apart.
 */
export function pollKey(post: DataPost): string {
	const platform = String(post.platform ?? '').toLowerCase();
	return recordKey(post) ?? `${platform}:h:${contentHash(post)}`;
}

function contentHash(post: DataPost): string {
	const poster = isObject(post.poster) ? post.poster : {};
	const referenced = isObject(post.referenced_post) ? post.referenced_post : {};
	const media = Array.isArray(post.media) ? post.media.map((m) => (isObject(m) ? (m.url ?? m.platform_id ?? null) : null)) : [];
	const stable = [
		post.post_created_at ?? null,
		post.message ?? null,
		[poster.platform_id ?? null, poster.name ?? null, poster.url ?? null],
		media,
		[referenced.platform_id ?? null, referenced.url ?? null, referenced.message ?? null],
		post.tagged_users ?? null,
	];
	return createHash('sha256').update(JSON.stringify(stable)).digest('base64url').slice(0, 22);
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

/** What the memory holds for this search: per platform its keys (a list and a set) and its backlog; none after another search. */
export interface Recalled {
	identity: string;
	oldSeen: Record<string, string[]>;
	seenSets: Record<string, Set<string>>;
	backlog: Record<string, Backlog>;
}

export function recall(search: DataSearch, previous: PollState): Recalled {
	// What identifies the search the memory belongs to (platforms are remembered one by one).
	const identity = JSON.stringify([search.term.toLowerCase(), search.termType ?? 'auto']);
	const sameSearch = previous.search === identity;
	const oldSeen: Record<string, string[]> = sameSearch && previous.seen ? previous.seen : {};
	const oldBacklog: Record<string, unknown> = sameSearch && previous.backlog ? previous.backlog : {};
	// A platform without memory (no seen set) records what is there.
	const seenSets: Record<string, Set<string>> = {};
	const backlog: Record<string, Backlog> = {};
	for (const platform of search.platforms) {
		const list = oldSeen[platform];
		if (Array.isArray(list)) seenSets[platform] = new Set(list);
		const held = recallBacklog(oldBacklog[platform]);
		if (seenSets[platform] && held) backlog[platform] = held;
	}
	return { identity, oldSeen, seenSets, backlog };
}

/** A saved backlog, checked; one saved before it kept keys has its posts' keys. */
function recallBacklog(saved: unknown): Backlog | undefined {
	if (!isObject(saved) || !Array.isArray(saved.posts)) return undefined;
	if (saved.cursor !== undefined && typeof saved.cursor !== 'string') return undefined;
	const posts = saved.posts as DataPost[];
	const keys = Array.isArray(saved.keys) ? saved.keys.map(String) : posts.map(pollKey);
	return withCursor({ posts, keys }, saved.cursor);
}

/** A backlog with its cursor, or without one (refused): never a cursor field that saves as nothing. */
export function withCursor(backlog: Backlog, cursor: string | undefined): Backlog {
	const { posts, keys } = backlog;
	return cursor === undefined ? { posts, keys } : { cursor, posts, keys };
}

/** What one poll read of a platform: the posts new to it, and the keys of every post on its pages, in list order. */
export interface PlatformRead {
	found: DataPost[];
	keys: string[];
}

/**
 * What one poll did with a platform: the keys it recorded; the new posts and, for the next memory, the keys of every
 * post read; or a backlog to read on from, with the posts emitted now (none unless past HELD_POSTS_MAX).
 */
type PlatformOutcome =
	| Exclude<PollOutcome<DataPost, { keys: string[] }, { posts: DataPost[]; backlog: Backlog }>, { kind: 'emitted' }>
	| { kind: 'emitted'; posts: DataPost[]; keys: string[] };

/** Each key once, where it first comes. */
function unique(keys: string[]): string[] {
	return [...new Set(keys)];
}

/** A backlog's keys within BURST_KEYS_MAX: the newest half and the latest read half. */
function boundedKeys(keys: string[]): string[] {
	const all = unique(keys);
	if (all.length <= BURST_KEYS_MAX) return all;
	return [...all.slice(0, BURST_KEYS_MAX / 2), ...all.slice(all.length - BURST_KEYS_MAX / 2)];
}

/** The outcome for one platform of the rounds' progress, its backlog before, what was read and whether it has memory. */
function settlePlatform(p: PlatformProgress, before: Backlog | undefined, read: PlatformRead, remembers: boolean): PlatformOutcome {
	if (p.state === 'failed' || p.error !== undefined) return { kind: 'failed' };
	if (p.state === 'first' || (p.state === 'more' && before?.cursor !== undefined && p.cursor === before.cursor)) return { kind: 'notAsked' };
	if (!remembers) return { kind: 'recorded', keys: read.keys };
	// A backlog read on from its cursor lies below what it read; one read afresh from the newest page lies above.
	const below = before?.cursor !== undefined;
	const posts = below ? [...before.posts, ...read.found] : [...read.found, ...(before?.posts ?? [])];
	const keys = below ? [...before.keys, ...read.keys] : [...read.keys, ...(before?.keys ?? [])];
	if (p.state === 'more' && p.cursor) {
		const backlog = { cursor: p.cursor, posts, keys: boundedKeys(keys) };
		// Past the bound, what was read is emitted now and the read goes on below it.
		return posts.length > HELD_POSTS_MAX ? { kind: 'held', posts, backlog: { ...backlog, posts: [] } } : { kind: 'held', posts: [], backlog };
	}
	return { kind: 'emitted', posts, keys };
}

/** Per platform what a poll read, and what it knew before: its backlog, the keys it had seen (a list and a set); and how many keys to keep. */
interface Memory {
	reads: Record<string, PlatformRead>;
	backlog: Record<string, Backlog>;
	seenSets: Record<string, Set<string>>;
	oldSeen: Record<string, string[]>;
	remember: number;
}

/**
 * Every platform's outcome (settlePlatform) made into the poll's result: the failures, the posts held and emitted,
 * the platforms recorded, and the next memory. A platform not read to a page ending in a known post keeps the keys
 * it had; one that was keeps the keys of every post it read, known ones too (a post that stays on top stays known).
 */
export function settleAll(progress: PlatformProgress[], memory: Memory) {
	const { reads, backlog, seenSets, oldSeen, remember } = memory;
	const failures: PlatformFailure[] = [];
	const held: Record<string, number> = {};
	const seen: Record<string, string[]> = {};
	const nextBacklog: Record<string, Backlog> = {};
	const emitted: Record<string, DataPost[]> = {};
	const recorded: string[] = [];
	for (const p of progress) {
		const { platform } = p;
		const before = backlog[platform];
		const outcome = settlePlatform(p, before, reads[platform] ?? { found: [], keys: [] }, Boolean(seenSets[platform]));
		const keepSeen = () => {
			if (oldSeen[platform]) seen[platform] = oldSeen[platform];
		};
		if (outcome.kind === 'failed' || outcome.kind === 'notAsked') {
			if (outcome.kind === 'failed') failures.push(failureOf(p));
			keepSeen();
			if (before) nextBacklog[platform] = before;
		} else if (outcome.kind === 'held') {
			held[platform] = outcome.backlog.posts.length;
			nextBacklog[platform] = outcome.backlog;
			if (outcome.posts.length > 0) emitted[platform] = outcome.posts;
			keepSeen();
		} else {
			seen[platform] = unique([...outcome.keys, ...(oldSeen[platform] ?? [])]).slice(0, remember);
			if (outcome.kind === 'emitted') emitted[platform] = outcome.posts;
			else recorded.push(platform);
		}
	}
	return { failures, held, seen, nextBacklog, emitted, recorded };
}
