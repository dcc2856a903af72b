import { sleep } from 'n8n-workflow';

import { keepRecent } from '../shared/utils';

// What this process remembers of each trigger's deliveries, all of it here: n8n keeps it nowhere (it drops webhook()'s
// static data writes when it starts a run, and in queue mode an execution runs in another process). Each memory is
// bounded per trigger and over triggers (the least recently used trigger dropped first), or drained as it is used.
// inFlight.ts decides with these when a delivery waits; seenDeliveries.ts checks deliveries in n8n's database through
// them.

// Deliveries handled (ignored by webhook(), or through execute()): a copy that reaches this process later is answered as one.

/** Delivery ids a process remembers per trigger to recognise a retry. */
const RECENT_DELIVERIES_LIMIT = 500;

/** Triggers a process remembers ids for, the least recently used dropped first. */
const TRIGGERS_REMEMBERED = 1000;

/** Ids handled per trigger, newest last. */
const seenInProcess = new Map<string, string[]>();

export function handledInProcess(key: string, id: string): boolean {
	return seenInProcess.get(key)?.includes(id) ?? false;
}

/** Only once a delivery is handled (ignored, or its execution ran): one n8n could not start is handled again when retried. */
export function rememberHandled(key: string, id: string): void {
	const recent = seenInProcess.get(key) ?? [];
	const next = recent.includes(id) ? recent : [...recent, id].slice(-RECENT_DELIVERIES_LIMIT);
	keepRecent(seenInProcess, key, next, TRIGGERS_REMEMBERED);
}

// Deliveries started: emitted by this process's webhook() and not yet through execute().

/** An execution not seen finishing after this long no longer counts (it failed before this node ran). */
const FORGET_AFTER_MS = 120_000;

/** Triggers a process keeps started deliveries for, the least recently used dropped first. */
const TRIGGERS_STARTED = 1000;

/** A delivery started: when, and its size. */
interface Started {
	at: number;
	bytes: number;
}

/** Per trigger, oldest first. */
const started = new Map<string, Map<string, Started>>();

function live(trigger: string, now: number): Map<string, Started> {
	const entries = started.get(trigger) ?? new Map<string, Started>();
	for (const [id, { at }] of entries) {
		if (now - at < FORGET_AFTER_MS) break;
		entries.delete(id);
	}
	return entries;
}

/** The deliveries of `trigger` started here that still count at `now`. */
export function startedHere(trigger: string, now: number): Iterable<Started> {
	return live(trigger, now).values();
}

/** Delivery `id` of `trigger` started now (read twice from `now`: once to drop the forgotten, once to date it). */
export function markStarted(trigger: string, id: string, bytes: number, now: () => number): void {
	const entries = live(trigger, now());
	entries.delete(id);
	entries.set(id, { at: now(), bytes });
	keepRecent(started, trigger, entries, TRIGGERS_STARTED);
}

/** Whether this process's webhook() emitted delivery `id` and its execution has not finished. */
export function receivedHere(trigger: string, id: string): boolean {
	return started.get(trigger)?.has(id) ?? false;
}

/** The executions of deliveries `ids` of `trigger` are over. */
export function markFinished(trigger: string, ids: string[]): void {
	const entries = started.get(trigger);
	for (const id of ids) entries?.delete(id);
}

// Checks of n8n's database waiting their turn: n8n's check reads and writes back a trigger's whole list, so checks of
// one trigger must not overlap; those that wait meanwhile share the next write.

/** Attempts of one check when the database refuses a write (two first writes at once). */
const ATTEMPTS = 3;

/** Keys of one check at most: the checks waiting beyond it go in the next write. */
const KEYS_PER_WRITE = 1_000;

/** Check-and-record over n8n's database: which of `ids` were recorded before this call. */
export interface ProcessedStore {
	checkAndRecord(ids: string[]): Promise<{ new: string[]; processed: string[] }>;
}

interface Waiting {
	store: ProcessedStore;
	keys: string[];
	resolve: (processed: Set<string>) => void;
	reject: (error: unknown) => void;
}

/** Checks waiting per trigger in this process. */
const waiting = new Map<string, { queue: Waiting[]; busy: boolean }>();

/** One write of n8n's list for every check waiting, tried again when the database refuses it. */
async function writeOnce(store: ProcessedStore, keys: string[]): Promise<Set<string>> {
	let lastError: unknown;
	for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
		try {
			return new Set((await store.checkAndRecord(keys)).processed);
		} catch (error) {
			// Two first records at once: one insert fails on the row's unique key; the next try updates that row.
			lastError = error;
			await sleep(20 * attempt);
		}
	}
	throw lastError;
}

async function drain(key: string): Promise<void> {
	const line = waiting.get(key);
	if (!line || line.busy) return;
	line.busy = true;
	try {
		while (line.queue.length > 0) {
			const batch: Waiting[] = [];
			let size = 0;
			while (line.queue.length > 0 && (batch.length === 0 || size + line.queue[0].keys.length <= KEYS_PER_WRITE)) {
				const next = line.queue.shift()!;
				batch.push(next);
				size += next.keys.length;
			}
			try {
				const before = await writeOnce(batch[0].store, [...new Set(batch.flatMap((check) => check.keys))]);
				// A key new to the list is new to the first check of the batch that asked for it only.
				const given = new Set<string>();
				for (const check of batch) {
					const processed = new Set(check.keys.filter((k) => before.has(k) || given.has(k)));
					for (const k of check.keys) given.add(k);
					check.resolve(processed);
				}
			} catch (error) {
				for (const check of batch) check.reject(error);
			}
		}
	} finally {
		line.busy = false;
		if (line.queue.length === 0) waiting.delete(key);
	}
}

/** Which of `keys` were recorded before, after this trigger's earlier checks in this process. */
export async function checkInTurn(store: ProcessedStore, key: string, keys: string[]): Promise<Set<string>> {
	const line = waiting.get(key) ?? { queue: [], busy: false };
	waiting.set(key, line);
	const result = new Promise<Set<string>>((resolve, reject) => line.queue.push({ store, keys, resolve, reject }));
	void drain(key);
	return await result;
}

/** A delivery's key in n8n's database, in a namespace of its own: a delivery id can never look like a tie-break key. */
export const deliveryKey = (id: string) => `delivery:${id}`;

// Deliveries claimed in this process's memory (n8n's regular mode), recorded in n8n's database by a write that follows
// rather than precedes the execution (docs/exactly-once.md).

interface Claims {
	/**
	 * Every delivery acted on, here or in an earlier process, that occurred more than CLOCK_MARGIN_MS
	 * after this is in `occurred` or `pending`: at first when the claims began (this process's clock),
	 * later the occurrence of the latest claim let go.
	 */
	since: number;
	/** Claimed ids with when they occurred (the service's clock, ms), oldest claim first. */
	occurred: Map<string, number>;
	/** Claimed ids whose record is not yet handed to a write. */
	pending: Set<string>;
	store?: ProcessedStore;
	warn?: (message: string) => void;
	lastWrite: number;
	/** A write is waiting for its turn. */
	scheduled: boolean;
}

/**
 * A delivery signed as occurring this long after its trigger's claims began here: no earlier process
 * can have acted on it. The margin is for the service's clock running ahead of n8n's.
 */
const CLOCK_MARGIN_MS = 30_000;

/** Claims kept per trigger; dropping one moves `since` past it, so its copies are checked in the database. */
const CLAIMS_KEPT = 2_000;

/** Triggers a process keeps claims for, the least recently used dropped first (their records are still written). */
const TRIGGERS_WITH_CLAIMS = 100;

/** At most one write of claimed records per trigger in this span; after a quiet span, at once. */
const WRITE_SPACING_MS = 1_000;

/** Delivery ids a warning names at most. */
const NAMED_IN_WARNING = 10;

const claimsHere = new Map<string, Claims>();

function claimsOf(key: string, now: number): Claims {
	const claims = claimsHere.get(key) ?? { since: now, occurred: new Map(), pending: new Set(), lastWrite: 0, scheduled: false };
	const dropped = keepRecent(claimsHere, key, claims, TRIGGERS_WITH_CLAIMS);
	// A dropped trigger's records go to a write now, before a copy can be checked without them.
	if (dropped) writePending(...dropped);
	return claims;
}

function claimHere(claims: Claims, id: string, occurredAt: number): void {
	claims.occurred.set(id, occurredAt);
	claims.pending.add(id);
	while (claims.occurred.size > CLAIMS_KEPT) {
		const [oldest, at] = claims.occurred.entries().next().value as [string, number];
		claims.occurred.delete(oldest);
		claims.since = Math.max(claims.since, at);
	}
}

/**
 * Hands the pending records to one write, queued with the trigger's database checks, so a check
 * queued after it sees them; a write that fails is logged.
 */
function writePending(key: string, claims: Claims): void {
	const { store } = claims;
	if (!store || claims.pending.size === 0) return;
	const ids = [...claims.pending];
	claims.pending.clear();
	claims.lastWrite = Date.now();
	checkInTurn(store, key, ids.map(deliveryKey)).then(
		() => scheduleWrite(key, claims),
		(error: unknown) => {
			const reason = error instanceof Error ? error.message : String(error);
			const named = ids.length > NAMED_IN_WARNING ? `${ids.slice(0, NAMED_IN_WARNING).join(', ')} and ${ids.length - NAMED_IN_WARNING} more` : ids.join(', ');
			claims.warn?.(
				`Social Aggregator Trigger: the records of deliveries ${named} could not be written to n8n's database (${reason}); a copy of one arriving after n8n restarts would run again`,
			);
			scheduleWrite(key, claims);
		},
	);
}

/** At most one write per trigger in WRITE_SPACING_MS: at once after a quiet span, else when the span is over. */
function scheduleWrite(key: string, claims: Claims): void {
	if (claims.scheduled || claims.pending.size === 0) return;
	claims.scheduled = true;
	void sleep(Math.max(0, claims.lastWrite + WRITE_SPACING_MS - Date.now())).then(() => {
		claims.scheduled = false;
		writePending(key, claims);
	});
}

/** Where claimInMemory is asked from: which deliveries this process received, its clock, where a failed write goes. */
interface ClaimPlace {
	here: (id: string) => boolean;
	now: number;
	warn?: (message: string) => void;
}

/**
 * Of `unique` ids, those claimed in memory now and those n8n's database must check. A delivery this process received,
 * signed as occurring well after its trigger's claims began here, is claimed and its record written right after (no
 * earlier process can hold it); one already claimed is neither; every other one is left to the database.
 */
export function claimInMemory(
	store: ProcessedStore,
	key: string,
	unique: string[],
	occurredAt: Map<string, number>,
	place: ClaimPlace,
): { claimed: Set<string>; toCheck: string[] } {
	const { here } = place;
	const local = unique.some((id) => here(id) && occurredAt.has(id)) ? claimsOf(key, place.now) : claimsHere.get(key);
	const claimed = new Set<string>();
	const toCheck: string[] = [];
	for (const id of unique) {
		const at = occurredAt.get(id);
		if (local && (local.occurred.has(id) || local.pending.has(id))) continue;
		if (local && here(id) && at !== undefined && at > local.since + CLOCK_MARGIN_MS) {
			claimHere(local, id, at);
			claimed.add(id);
		} else toCheck.push(id);
	}
	if (local && claimed.size > 0) {
		local.store = store;
		local.warn = place.warn;
		scheduleWrite(key, local);
	}
	return { claimed, toCheck };
}
