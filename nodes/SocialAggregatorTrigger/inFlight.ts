import { sleep } from 'n8n-workflow';

import { keepRecent } from '../shared/utils';
import type { UnreadGap } from './catchUp';
import { REENABLED_WITHIN_MS } from './catchUpPlan';
import { markFinished, markStarted, startedHere } from './deliveryMemory';

/**
 * Executions of light deliveries of one trigger that this process started and has not finished, at most. Each holds
 * an expression isolate (n8n's default engine) and waits for its database check: past this many, a light delivery
 * waits for one to finish before it is accepted.
 */
const MAX_LIGHT_IN_FLIGHT = 32;

/** A delivery of this many bytes or more is heavy (a thousand posts is about a megabyte). */
const HEAVY_BYTES = 64 * 1024;

/**
 * Bytes of heavy deliveries of one trigger in flight, at most (one heavy delivery is always let in). Heavy deliveries
 * are counted apart, so that light ones never wait for them: a burst after an outage mixes both.
 */
const MAX_HEAVY_BYTES_IN_FLIGHT = 8 * 1024 * 1024;

/** How long a delivery waits for a free place before it is answered 503: within a sender's timeout. */
const WAIT_FOR_PLACE_MS = 5_000;

/**
 * Refusals in a row after which the next delivery of a trigger is let in whatever the count: the service disables a
 * subscription after 10 failed deliveries in a row, and 503 is one.
 */
const MAX_REFUSALS_IN_A_ROW = 4;

/** Seconds the sender is asked to wait before retrying a delivery answered 503. */
export const RETRY_AFTER_SECONDS = 5;

const POLL_MS = 20;

/** Triggers a process keeps refusals and look-back times for, the least recently used dropped first. */
const TRIGGERS_KEPT = 1000;

/** Per trigger: deliveries answered 503 since one was let in. */
const refusedInARow = new Map<string, number>();

/**
 * Triggers whose executions run in this process (n8n's regular mode). In queue mode a webhook
 * process never runs one, so it never waits: its executions wait in the queue, not in memory.
 */
const executedHere = new Set<string>();

/** Whether a delivery of `bytes` finds room beside the executions of `trigger` in flight: light and heavy apart. */
function hasRoom(trigger: string, bytes: number, now: number): boolean {
	let light = 0;
	let heavyBytes = 0;
	for (const entry of startedHere(trigger, now)) {
		if (entry.bytes < HEAVY_BYTES) light++;
		else heavyBytes += entry.bytes;
	}
	if (bytes < HEAVY_BYTES) return light < MAX_LIGHT_IN_FLIGHT;
	return heavyBytes === 0 || heavyBytes + bytes <= MAX_HEAVY_BYTES_IN_FLIGHT;
}

/**
 * Waits until `trigger` has room for a delivery of `bytes`, counting `id` in it; false when none freed up in time (the
 * delivery is then answered 503 and retried by the service, nothing accepted is lost). After MAX_REFUSALS_IN_A_ROW
 * refusals the next delivery is let in once its wait is over, so the service never sees ten in a row.
 */
export async function takePlace(trigger: string, id: string, bytes = 0, now: () => number = Date.now): Promise<boolean> {
	const deadline = now() + WAIT_FOR_PLACE_MS;
	while (executedHere.has(trigger) && !hasRoom(trigger, bytes, now())) {
		if (now() >= deadline) {
			const refusals = refusedInARow.get(trigger) ?? 0;
			if (refusals >= MAX_REFUSALS_IN_A_ROW) break;
			keepRecent(refusedInARow, trigger, refusals + 1, TRIGGERS_KEPT);
			return false;
		}
		await sleep(POLL_MS);
	}
	refusedInARow.delete(trigger);
	markStarted(trigger, id, bytes, now);
	return true;
}

/** An execution of `trigger` ran here and is done with deliveries `ids`. */
export function finished(trigger: string, ids: string[]): void {
	executedHere.add(trigger);
	markFinished(trigger, ids);
}

/**
 * A delivery after this long without one makes the trigger look back for a gap (catch-up): the service may have
 * disabled the subscription meanwhile and someone set it active again, anywhere (docs/exactly-once.md#catch-up).
 */
const QUIET_MS = 5 * 60_000;

/** Per trigger: when this process last received a delivery that asked whether to look back. */
const lastReceived = new Map<string, number>();

/**
 * Whether a delivery received now should look back: the first this process received for `trigger` since it started,
 * or the first after QUIET_MS without one. Counts it as received, so that of a burst only the first looks back.
 */
export function lookBackDue(trigger: string, now = Date.now()): boolean {
	const last = lastReceived.get(trigger);
	keepRecent(lastReceived, trigger, now, TRIGGERS_KEPT);
	const putOff = putOffLookBacks.get(trigger);
	if (putOff && !putOff.handedOn) {
		putOff.handedOn = true;
		return true;
	}
	return last === undefined || now - last >= QUIET_MS;
}

/** A delivery that was to look back was refused (503): the next one looks back instead. */
export function lookBackAgain(trigger: string): void {
	lastReceived.delete(trigger);
	const putOff = putOffLookBacks.get(trigger);
	if (putOff) putOff.handedOn = false;
}

/**
 * A look back that failed (the service answering 5xx past the retries, say) or read a page cap's worth: the delivery
 * that asked for it, and the posts deliveries carried since, which are theirs and not the gap's.
 */
export interface PutOffLookBack {
	kick: { id: string; occurred_at: string | null };
	delivered: string[];
	/** What of the gap it found (the failed deliveries sent again) is still to read. */
	gap?: Omit<UnreadGap, 'error'>;
	/** A delivery carries it on: the next one asks only if that one is refused. */
	handedOn?: boolean;
}

/** Per trigger: the look back put off, tried again with the next delivery this process receives, until it completes. */
const putOffLookBacks = new Map<string, PutOffLookBack>();

/** Puts a look back off to the next delivery, keeping of its gap what the next try reads (not what stopped it). */
export function putOffLookBack(trigger: string, lookBack: PutOffLookBack): void {
	const { spans, feeds, redeliver } = lookBack.gap ?? {};
	const gap = spans && { spans, ...(feeds ? { feeds } : {}), ...(redeliver?.length ? { redeliver } : {}) };
	keepRecent(putOffLookBacks, trigger, { kick: lookBack.kick, delivered: lookBack.delivered, ...(gap ? { gap } : {}) }, TRIGGERS_KEPT);
}

/** The look back put off for `trigger`, taken: the execution that takes it tries it again (and puts it off if it fails). */
export function takePutOffLookBack(trigger: string): PutOffLookBack | undefined {
	const putOff = putOffLookBacks.get(trigger);
	putOffLookBacks.delete(trigger);
	return putOff;
}

/**
 * How long after a look back this process keeps, for its trigger, the posts it caught up and the posts deliveries
 * carried that it may also read: a delivery made since the re-enable may reach n8n after another one looked back.
 */
const GAP_CLAIMS_MS = 10 * 60_000;

/** Posts (catch-up IDs) a trigger's look backs caught up and its deliveries carried, at most, per kind. */
const GAP_CLAIMS_KEPT = 10_000;

/** Per trigger: the newest look back's kick time (the service's clock, ms), until when its claims run, and the claims. */
const gapClaims = new Map<string, { kickAt: number; until: number; caughtUp: Set<string>; carried: Set<string> }>();

/** A delivery looks back from a kick that occurred at `kickAt` (ms). */
export function lookingBack(trigger: string, kickAt: number, now = Date.now()): void {
	const claims = gapClaims.get(trigger);
	const kept = { kickAt: Math.max(kickAt, claims?.kickAt ?? kickAt), until: now + GAP_CLAIMS_MS };
	keepRecent(gapClaims, trigger, { ...kept, caughtUp: claims?.caughtUp ?? new Set(), carried: claims?.carried ?? new Set() }, TRIGGERS_KEPT);
}

/**
 * When the posts were stored (ms, `from` up to `before`) that deliveries of `trigger` carry and a look back here may
 * read as a gap's; undefined (the common case) when no look back ran here lately or waits to be tried again. A gap's
 * posts that a delivery other than the kick carries are those of the delivery that closed it: made since the
 * re-enable, within REENABLED_WITHIN_MS before the kick (catchUpPlan.ts), on storing them.
 */
export function gapClaimsWindow(trigger: string, now = Date.now()): { from: number; before: number } | undefined {
	const claims = gapClaims.get(trigger);
	if (!claims || (claims.until < now && !putOffLookBacks.has(trigger))) return undefined;
	return { from: claims.kickAt - REENABLED_WITHIN_MS - 1_000, before: claims.kickAt + 1_000 };
}

function addKept(set: Set<string>, ids: Iterable<string>): void {
	for (const id of ids) {
		set.delete(id);
		set.add(id);
	}
	for (const oldest of set) {
		if (set.size <= GAP_CLAIMS_KEPT) break;
		set.delete(oldest);
	}
}

/**
 * Of the posts a look back read in a gap (catch-up IDs), those no delivery here carried, counted as caught up: a
 * delivery that carries one later leaves it out. Synchronous, so one of the two always sees the other.
 */
export function claimGapPosts(trigger: string, ids: string[]): Set<string> {
	const claims = gapClaims.get(trigger);
	const kept = new Set(claims ? ids.filter((id) => !claims.carried.has(id)) : ids);
	if (claims) addKept(claims.caughtUp, kept);
	return kept;
}

/**
 * Of the posts a delivery carries that a look back may read (catch-up IDs, stored within `gapClaimsWindow`), those a
 * look back here caught up already; the others are counted as carried, so a look back leaves them out.
 */
export function caughtUpBefore(trigger: string, ids: string[]): Set<string> {
	const claims = gapClaims.get(trigger);
	if (!claims) return new Set();
	const taken = new Set(ids.filter((id) => claims.caughtUp.has(id)));
	addKept(claims.carried, ids.filter((id) => !taken.has(id)));
	return taken;
}
