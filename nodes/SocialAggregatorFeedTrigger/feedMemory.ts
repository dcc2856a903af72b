import type { IDataObject } from 'n8n-workflow';

import type { FeedPost, HeldWalk } from '../shared/feedWalk';
import { decodeIds, encodeIds } from './idSet';

// One feed's memory between polls (docs/exactly-once.md#feed-trigger-memory). The rule it keeps: a post is new when
// its ID is above the floor and not among the IDs remembered. IDs grow as the service stores posts, so every post
// stored after the trigger first recorded the feed is above the floor it began with. The floor rises past the posts
// stored a Late Posts Window before the newest one seen: a post so old that comes into the list (approved, restored)
// is not new. Nothing is dropped from the memory but IDs at or below the floor, which the rule holds old anyway.

const HOUR = 3_600_000;

/** IDs remembered above the floor at most: a window holding more forgets its lowest (about 100 KB at worst). */
const MAX_REMEMBERED = 100_000;

/** Anchors at most (one an hour of storing, a Late Posts Window of up to 720 hours). */
const MAX_ANCHORS = 800;

export interface FeedMemory {
	/** Every post with an ID at or below it is old. */
	floor: number;
	/** The IDs above the floor emitted or recorded, ascending. */
	seen: number[];
	/**
	 * `[id, stored]`: the highest ID read of each hour of storing and when it was stored. Every post with a lower ID
	 * was stored before it, so once `stored` is a Late Posts Window older than `since`, the floor rises to `id`.
	 */
	anchors: Array<[number, number]>;
	/** When the newest post read was stored (ms). */
	since?: number;
	/** `meta.total_count` when the feed's last walk began, every post of it then known; in the Status `countStatus`. */
	count?: number;
	countStatus?: string;
	/** The page the next sweep reads (a page deep in the window, one a poll: posts a count cannot show). */
	sweepPage?: number;
	/** A walk the page budget stopped: where it reads on, and how many new posts it found so far. */
	held?: HeldWalk;
	heldFound?: number;
	/** The last poll's budget ran out before this feed was asked: the next poll asks it first. */
	skipped?: boolean;
	/** When the feed was last polled (ms): the memories of feeds no longer chosen are kept, the most recent first. */
	polledAt?: number;
}

/** A feed's memory as n8n's static data keeps it: the IDs as one text (idSet.ts). */
export interface SavedFeedMemory extends IDataObject {
	floor: number;
	ids: string;
	anchors: Array<[number, number]>;
}

const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

export function saveFeedMemory(memory: FeedMemory): SavedFeedMemory {
	const { seen, ...rest } = memory;
	const saved: SavedFeedMemory = { ...rest, ids: encodeIds(seen) } as SavedFeedMemory;
	for (const key of Object.keys(saved)) if (saved[key] === undefined) delete saved[key];
	return saved;
}

/** A held walk as saved: a page to read on from, beyond the first. One saved with its posts (before IDs only) is read afresh. */
function recallHeld(held: unknown): HeldWalk | undefined {
	if (!held || typeof held !== 'object') return undefined;
	const walk = held as HeldWalk;
	if ('posts' in walk || !Number.isInteger(walk.nextPage) || walk.nextPage < 2) return undefined;
	return walk;
}

/**
 * A feed's memory as saved, or undefined where there is none to trust. Memory saved by earlier versions (a `mark` and
 * the IDs of the window emitted) keeps those IDs above a floor just below the lowest of them.
 */
export function recallFeedMemory(saved: unknown): FeedMemory | undefined {
	if (!saved || typeof saved !== 'object') return undefined;
	const entry = saved as IDataObject;
	let memory: FeedMemory;
	if (isId(entry.floor) && typeof entry.ids === 'string') {
		const seen = decodeIds(entry.ids);
		if (!seen) return undefined;
		const anchors = Array.isArray(entry.anchors)
			? (entry.anchors as unknown[]).filter(
					(anchor): anchor is [number, number] => Array.isArray(anchor) && isId(anchor[0]) && isTime(anchor[1]),
				)
			: [];
		memory = { floor: entry.floor, seen: seen.filter((id) => id > (entry.floor as number)), anchors };
	} else if (isTime(entry.mark)) {
		const old = (Array.isArray(entry.seen) ? entry.seen : Array.isArray(entry.recent) ? entry.recent : []).filter(isId);
		const mark = Math.max(0, Math.floor(entry.mark));
		// Memory that held every post up to its mark as seen (recording, or from before each post was remembered) keeps that.
		const upToMark = entry.recording === true || entry.upToMark === true || !Array.isArray(entry.seen);
		const seen = [...new Set(old)].sort((a, b) => a - b).filter((id) => !upToMark || id > mark);
		memory = { floor: upToMark || seen.length === 0 ? mark : seen[0] - 1, seen, anchors: [] };
	} else {
		return undefined;
	}
	if (isTime(entry.since)) memory.since = entry.since;
	if (isId(entry.count) && typeof entry.countStatus === 'string') {
		memory.count = entry.count;
		memory.countStatus = entry.countStatus;
	}
	if (Number.isInteger(entry.sweepPage) && (entry.sweepPage as number) >= 2) memory.sweepPage = entry.sweepPage as number;
	const held = recallHeld(entry.held);
	if (held) {
		memory.held = held;
		if (isId(entry.heldFound)) memory.heldFound = entry.heldFound;
	}
	if (entry.skipped === true) memory.skipped = true;
	if (isTime(entry.polledAt)) memory.polledAt = entry.polledAt;
	return memory;
}

/** When the service stored a post (`created_at`, ms), or undefined. */
function storedTime(post: FeedPost): number | undefined {
	if (typeof post.created_at !== 'string') return undefined;
	const ms = Date.parse(post.created_at);
	return Number.isNaN(ms) ? undefined : ms;
}

/** Whether a post is new to a memory: above its floor and not remembered. */
export function isNewTo(memory: FeedMemory): (post: FeedPost) => boolean {
	const seen = new Set(memory.seen);
	return (post) => post.id > memory.floor && !seen.has(post.id);
}

/**
 * The memory after a poll: `ids` (emitted or recorded) remembered, the posts `read` giving when they were stored,
 * and the floor raised past what the window no longer holds.
 */
export function remember(memory: FeedMemory, ids: Iterable<number>, read: Iterable<FeedPost>, lateMs: number): FeedMemory {
	const next: FeedMemory = { ...memory, anchors: [...memory.anchors] };
	const byHour = new Map<number, [number, number]>(next.anchors.map((anchor) => [Math.floor(anchor[1] / HOUR), anchor]));
	for (const post of read) {
		const stored = storedTime(post);
		if (stored === undefined) continue;
		next.since = Math.max(next.since ?? stored, stored);
		const hour = Math.floor(stored / HOUR);
		const anchor = byHour.get(hour);
		if (!anchor || post.id > anchor[0]) byHour.set(hour, [post.id, Math.max(stored, anchor?.[1] ?? stored)]);
	}
	let floor = next.floor;
	const anchors: Array<[number, number]> = [];
	for (const anchor of [...byHour.values()].sort((a, b) => a[1] - b[1])) {
		if (next.since !== undefined && anchor[1] < next.since - lateMs) floor = Math.max(floor, anchor[0]);
		else anchors.push(anchor);
	}
	let seen = [...new Set([...memory.seen, ...ids])].filter((id) => id > floor).sort((a, b) => a - b);
	// IDs just above the floor, every one remembered, are held old by the floor alone.
	let run = 0;
	while (run < seen.length && seen[run] === floor + run + 1) run++;
	if (run > 0) {
		floor += run;
		seen = seen.slice(run);
	}
	if (seen.length > MAX_REMEMBERED) {
		floor = seen[seen.length - MAX_REMEMBERED - 1];
		seen = seen.slice(-MAX_REMEMBERED);
	}
	next.floor = floor;
	next.seen = seen;
	next.anchors = anchors.filter((anchor) => anchor[0] > floor).slice(-MAX_ANCHORS);
	return next;
}

/** A feed's first memory: every post read is old (the floor at the highest ID read), and their times anchor it. */
export function firstMemory(read: FeedPost[], lateMs: number): FeedMemory {
	const floor = read.reduce((highest, post) => Math.max(highest, post.id), 0);
	return remember({ floor, seen: [], anchors: [] }, [], read, lateMs);
}
