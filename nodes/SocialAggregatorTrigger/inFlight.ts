import { sleep } from 'n8n-workflow';

import { keepRecent } from '../shared/utils';
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

/** Triggers a process keeps refusals for, the least recently used dropped first. */
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
