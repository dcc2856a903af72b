import { sleep } from 'n8n-workflow';

import { keepRecent } from '../shared/utils';

/**
 * Executions of one trigger that this process started and has not finished, at most. Each holds an
 * expression isolate (n8n's default engine) and waits for its database check: past this many, a
 * delivery waits for one to finish before it is accepted.
 */
const MAX_IN_FLIGHT = 32;

/** How long a delivery waits for a free place before it is answered 503: well within a sender's timeout. */
const WAIT_FOR_PLACE_MS = 2_000;

/** Seconds the sender is asked to wait before retrying a delivery answered 503. */
export const RETRY_AFTER_SECONDS = 5;

/** An execution not seen finishing after this long no longer counts (it failed before this node ran). */
const FORGET_AFTER_MS = 120_000;

const POLL_MS = 20;

/** Triggers a process keeps counts for, the least recently used dropped first. */
const TRIGGERS_KEPT = 1000;

/** Per trigger: deliveries emitted by this process's webhook() and not yet through execute(), with when. */
const started = new Map<string, Map<string, number>>();

/**
 * Triggers whose executions run in this process (n8n's regular mode). In queue mode a webhook
 * process never runs one, so it never waits: its executions wait in the queue, not in memory.
 */
const executedHere = new Set<string>();

function live(trigger: string, now: number): Map<string, number> {
	const entries = started.get(trigger) ?? new Map<string, number>();
	for (const [id, at] of entries) {
		if (now - at < FORGET_AFTER_MS) break;
		entries.delete(id);
	}
	return entries;
}

/** Executions of `trigger` started here and not finished. */
function inFlight(trigger: string, now = Date.now()): number {
	return live(trigger, now).size;
}

/**
 * Waits until `trigger` has a free place, counting `id` in it; false when none freed up in time
 * (the delivery is then answered 503 and retried by the service, nothing accepted is lost).
 */
export async function takePlace(trigger: string, id: string, now: () => number = Date.now): Promise<boolean> {
	const deadline = now() + WAIT_FOR_PLACE_MS;
	while (executedHere.has(trigger) && inFlight(trigger, now()) >= MAX_IN_FLIGHT) {
		if (now() >= deadline) return false;
		await sleep(POLL_MS);
	}
	const entries = live(trigger, now());
	entries.delete(id);
	entries.set(id, now());
	keepRecent(started, trigger, entries, TRIGGERS_KEPT);
	return true;
}

/** Whether this process's webhook() emitted delivery `id` and its execution has not finished. */
export function receivedHere(trigger: string, id: string): boolean {
	return started.get(trigger)?.has(id) ?? false;
}

/** An execution of `trigger` ran here and is done with deliveries `ids`. */
export function finished(trigger: string, ids: string[]): void {
	executedHere.add(trigger);
	const entries = started.get(trigger);
	for (const id of ids) entries?.delete(id);
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
	return last === undefined || now - last >= QUIET_MS;
}

/** A delivery that was to look back was refused (503): the next one looks back instead. */
export function lookBackAgain(trigger: string): void {
	lastReceived.delete(trigger);
}
