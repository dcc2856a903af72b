import { keepRecent } from '../shared/utils';
import { REENABLED_WITHIN_MS } from './catchUpPlan';

// What this process remembers of its look backs (docs/exactly-once.md#catch-up), a cache beside what n8n's database
// keeps (owed.ts, the exactly-once records): when it last received a delivery, which decides whether the next looks
// back, and the posts its recent look backs caught up and its deliveries carried, which keep a post of a gap from
// being acted on twice by a look back and a delivery that race in this process.

/** Triggers a process keeps look-back times and claims for, the least recently used dropped first. */
const TRIGGERS_KEPT = 1000;

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
	return last === undefined || now - last >= QUIET_MS;
}

/** A delivery that was to look back was refused (503): the next one looks back instead. */
export function lookBackAgain(trigger: string): void {
	lastReceived.delete(trigger);
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
 * read as a gap's; undefined (the common case) unless a look back ran here lately or one is `owed` (owed.ts). A gap's
 * posts that a delivery other than the kick carries are those of the delivery that closed it: made since the
 * re-enable, within REENABLED_WITHIN_MS before the kick (catchUpPlan.ts), on storing them.
 */
export function gapClaimsWindow(trigger: string, owed: boolean, now = Date.now()): { from: number; before: number } | undefined {
	const claims = gapClaims.get(trigger);
	if (!claims || (claims.until < now && !owed)) return undefined;
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
