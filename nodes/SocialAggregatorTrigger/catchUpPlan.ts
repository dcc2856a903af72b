import type { IDataObject } from 'n8n-workflow';

import type { Delivery } from './delivery';
import { caughtUpId } from './deliveryId';

// What a catch-up must do, read from a subscription's delivery log (docs/exactly-once.md#catch-up); catchUp.ts asks
// the service.

/** How long after the kick a delivery made since the re-enable may come and still close the gap. */
export const REENABLED_WITHIN_MS = 60_000;

/** A delivery of the log as the catch-up reads it. */
export interface LogEntry {
	id: string;
	at: number;
	state: 'failed' | 'pending' | 'done';
	/** Pending, and its attempts so far failed: being retried, or cut off by the disabling and never tried again. */
	tried?: true;
}

/** Posts created strictly between these times (ms). */
export interface Span {
	after: number;
	before: number;
}

/** What the log says must happen: deliveries to send again (oldest first), and the span no delivery covered. */
export interface CatchUpPlan {
	redeliver: string[];
	/** Posts created in it were never delivered. */
	gap?: Span;
	/** Where the posts of failed deliveries too old to be sent again were created (`leaveUnsent`). */
	unsent?: Span[];
	/** The span cut what was looked at: deliveries and posts before this time are left alone. */
	cutAt?: number;
	/** The newest failed delivery before the kick: it names the gap, whichever delivery looks back. */
	gapOf?: string;
}

/** The state of a log entry, from its `status` or, without one, the receiver's answer code. */
function entryState(entry: IDataObject): LogEntry['state'] | undefined {
	const status = typeof entry.status === 'string' ? entry.status.toLowerCase() : undefined;
	if (status === 'failed' || status === 'failure' || status === 'error') return 'failed';
	if (status === 'pending' || status === 'retrying' || status === 'queued') return 'pending';
	if (status === 'succeeded' || status === 'success' || status === 'delivered') return 'done';
	const code = Number(entry.response_status ?? entry.response_code ?? entry.status_code);
	if (entry.response_status === null || !Number.isFinite(code)) return undefined;
	return code >= 200 && code < 300 ? 'done' : 'failed';
}

/** Whether an entry was attempted and its last answer was no 2xx (none, or an error): `attempts` a count or a list. */
function attemptsFailed(entry: IDataObject): boolean {
	const attempts = Array.isArray(entry.attempts) ? entry.attempts.length : Number(entry.attempts);
	const code = entry.response_status ?? entry.response_code ?? entry.status_code;
	if (code !== undefined && code !== null) return Number(code) < 200 || Number(code) >= 300;
	return Number.isFinite(attempts) && attempts > 0;
}

/** The log's entries that carry an id, a time and a state, oldest first. */
export function readLog(records: IDataObject[]): LogEntry[] {
	const entries: LogEntry[] = [];
	for (const record of records) {
		const at = typeof record.created_at === 'string' ? Date.parse(record.created_at) : NaN;
		const state = entryState(record);
		if (record.id === undefined || record.id === null || Number.isNaN(at) || !state) continue;
		entries.push({ id: String(record.id), at, state, ...(state === 'pending' && attemptsFailed(record) ? { tried: true as const } : {}) });
	}
	return entries.sort((a, b) => a.at - b.at);
}

/**
 * Whether an entry before the kick (at `kickAt`) shows the subscription failing: failed, or still pending after
 * failed attempts and made before the re-enable (more than REENABLED_WITHIN_MS before the kick). The service disables
 * a subscription after 10 failed attempts in a row, which can cut a delivery off mid-retry: left pending, it is never
 * tried again, and the posts stored after it were never delivered. One made since the re-enable is the service's to
 * retry.
 */
function failing(entry: LogEntry, kickAt: number): boolean {
	return entry.state === 'failed' || (entry.tried === true && kickAt - entry.at > REENABLED_WITHIN_MS);
}

/**
 * What to catch up, from the log and the kick (the delivery that asked to look back: the first after a quiet spell,
 * or a test delivery made just after a re-enable). Nothing, unless deliveries were failing until the re-enable: the
 * newest failed delivery before the kick is followed by the kick, or by one made since the re-enable (within
 * REENABLED_WITHIN_MS of the kick), or by deliveries still pending. Then every failed delivery in the span is sent
 * again, and the posts stored from that failure to the first delivery after it are read (only when that delivery was
 * made since the re-enable: one still pending long before means the service still retries, and every post had one).
 */
export function planCatchUp(entries: LogEntry[], kick: { id: string; at: number }, floor: number): CatchUpPlan {
	const kickAt = entries.find((entry) => entry.id === kick.id)?.at ?? kick.at;
	const before = entries.filter((entry) => entry.id !== kick.id && entry.at <= kickAt);
	const lastFailed = before.filter((entry) => failing(entry, kickAt)).pop();
	if (!lastFailed) return { redeliver: [] };
	const next = entries.find((entry) => entry.at > lastFailed.at && entry.id !== lastFailed.id);
	const reEnabled = !next || next.id === kick.id || kickAt - next.at <= REENABLED_WITHIN_MS;
	// A delivery went through well before the kick: the subscription was delivering, nothing was missed since. An old
	// failure left behind is not sent again at each look back (one this trigger refused would fail every time).
	if (!reEnabled && next.state === 'done') return { redeliver: [] };
	const inSpan = before.filter((entry) => entry.at >= floor);
	const plan: CatchUpPlan = { redeliver: inSpan.filter((entry) => failing(entry, kickAt)).map((entry) => entry.id), gapOf: lastFailed.id };
	if (before.length > inSpan.length) plan.cutAt = floor;
	const closedAt = next?.at ?? kickAt;
	if (!reEnabled || closedAt < floor) return plan;
	if (lastFailed.at < floor) plan.cutAt = floor;
	plan.gap = { after: Math.max(lastFailed.at, floor), before: closedAt };
	return plan;
}

/**
 * The plan with the failed deliveries made before `sendableFrom` left unsent (a trigger with Max Age would refuse
 * them, and each refusal counts towards the service disabling the subscription): the posts each carried were created
 * after the entry before it (the first: after the subscription was made, or within REENABLED_WITHIN_MS before it where
 * that is not known) and by its own time, so those spans are read from the feeds instead.
 */
export function leaveUnsent(
	plan: CatchUpPlan,
	entries: LogEntry[],
	limits: { floor: number; sendableFrom: number; createdAt?: number },
): CatchUpPlan {
	const { floor, sendableFrom, createdAt } = limits;
	const old = new Set(entries.filter((entry) => entry.at < sendableFrom && plan.redeliver.includes(entry.id)).map((entry) => entry.id));
	if (old.size === 0) return plan;
	const spans: Span[] = [];
	entries.forEach((entry, index) => {
		if (!old.has(entry.id)) return;
		const previous = entries[index - 1]?.at ?? createdAt ?? entry.at - REENABLED_WITHIN_MS;
		const span = { after: Math.max(previous, floor), before: entry.at + 1 };
		const last = spans[spans.length - 1];
		if (last && span.after <= last.before) last.before = Math.max(last.before, span.before);
		else spans.push(span);
	});
	return { ...plan, redeliver: plan.redeliver.filter((id) => !old.has(id)), unsent: spans };
}

/** Every span whose posts the feeds are read for: the gap and the unsent deliveries', merged, oldest first. */
export function spansToRead(plan: CatchUpPlan): Span[] {
	const spans = [...(plan.unsent ?? []), ...(plan.gap ? [plan.gap] : [])].sort((a, b) => a.after - b.after);
	const merged: Span[] = [];
	for (const span of spans) {
		const last = merged[merged.length - 1];
		if (last && span.after <= last.before) last.before = Math.max(last.before, span.before);
		else merged.push({ ...span });
	}
	return merged;
}

/**
 * Whether the newest entries of the log already decide that there is nothing to catch up, whatever older ones say: no
 * failure before the kick, and a delivery that went through well before it (so any older failure was followed by one).
 * A look back that finds this has read one page of the log.
 */
export function deliveringBefore(newest: LogEntry[], kick: { id: string; at: number }): boolean {
	const kickAt = newest.find((entry) => entry.id === kick.id)?.at ?? kick.at;
	const before = newest.filter((entry) => entry.id !== kick.id && entry.at <= kickAt);
	return !before.some((entry) => failing(entry, kickAt)) && before.some((entry) => entry.state === 'done' && kickAt - entry.at > REENABLED_WITHIN_MS);
}

/**
 * When the service stored a feed post (`created_at`) in ms, or NaN. Not feedWalk.ts's `storedAt`, which falls back to
 * the publish time: that only bounds the storing from below, enough to end a walk but not to place a post in the gap.
 */
export function createdAt(post: IDataObject): number {
	return typeof post.created_at === 'string' ? Date.parse(post.created_at) : NaN;
}

/** A post of the gap as a delivery of its own, with an ID that stays the same however often the gap is read. */
export function caughtUpDelivery(feed: IDataObject, post: IDataObject): Delivery {
	return {
		id: caughtUpId(feed.id, post.id),
		event: 'post.created',
		occurred_at: typeof post.created_at === 'string' ? post.created_at : undefined,
		data: { feed, posts: [post], caught_up: true },
	};
}
