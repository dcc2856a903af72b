import { sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { keepRecent } from '../shared/utils';
import { idText } from './deliveryId';

/**
 * Keys kept in n8n's database per trigger, the oldest dropped first. A delivery takes one, three
 * when its execution ran in another process than the one that received it (two tie-break keys):
 * 10,000 deliveries in one n8n, 3,333 in queue mode. The service retries a delivery only until it
 * gives up (a subscription is disabled after 10 failed deliveries in a row), so a copy comes within
 * that span; docs/exactly-once.md says what it covers.
 */
const PROCESSED_KEYS_KEPT = 10_000;

/** Rounds after the first check: executions that both found an id new record a round key; the first goes on. */
const TIE_BREAK_ROUNDS = 2;

/** Wait before a tie-break round: at least this, plus a random part of the spread. */
const ROUND_MIN_MS = 10;
const ROUND_SPREAD_MS = 150;

/** Attempts of one check when the database refuses a write (two first writes at once). */
const ATTEMPTS = 3;

/** Keys of one check at most: the checks waiting beyond it go in the next write. */
const KEYS_PER_WRITE = 1_000;

/** Keys of this trigger in a namespace of their own: a delivery id can never look like a tie-break key. */
const DELIVERY_PREFIX = 'delivery:';
const ROUND_PREFIX = 'round';

const deliveryKey = (id: string) => `${DELIVERY_PREFIX}${id}`;
const roundKey = (round: number, id: string) => `${ROUND_PREFIX}${round}:${id}`;

/** Check-and-record over n8n's database: which of `ids` were recorded before this call. */
export interface ProcessedStore {
	checkAndRecord(ids: string[]): Promise<{ new: string[]; processed: string[] }>;
}

/** The processed-data helpers of an execution, scoped to this trigger node. */
export function databaseStore(ctx: IExecuteFunctions): ProcessedStore {
	return {
		async checkAndRecord(ids) {
			const result = await ctx.helpers.checkProcessedAndRecord(ids, 'node', {
				mode: 'entries',
				maxEntries: PROCESSED_KEYS_KEPT,
			});
			return { new: result.new.map(String), processed: result.processed.map(String) };
		},
	};
}

interface Waiting {
	store: ProcessedStore;
	keys: string[];
	resolve: (processed: Set<string>) => void;
	reject: (error: unknown) => void;
}

/**
 * Checks waiting per trigger in this process. n8n's check reads and writes back the whole list, so
 * checks of one trigger must not overlap; those that wait meanwhile share the next write.
 */
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
async function checkInTurn(store: ProcessedStore, key: string, keys: string[]): Promise<Set<string>> {
	const line = waiting.get(key) ?? { queue: [], busy: false };
	waiting.set(key, line);
	const result = new Promise<Set<string>>((resolve, reject) => line.queue.push({ store, keys, resolve, reject }));
	void drain(key);
	return await result;
}

/**
 * Ids no execution recorded before, recorded now in n8n's database: one write, shared with the
 * checks waiting beside it. With `tieBreak` (the execution runs in another process than the one that
 * received the delivery, so a copy may be checked elsewhere at the same instant), rounds after
 * random waits let one of two executions that both found an id new go on, and put back ids another
 * process's write dropped.
 */
async function claimInDatabase(
	store: ProcessedStore,
	key: string,
	unique: string[],
	random: () => number,
	tieBreak: boolean,
): Promise<Set<string>> {
	if (unique.length === 0) return new Set();
	const seen = await checkInTurn(store, key, unique.map(deliveryKey));
	let claimed = new Set(unique.filter((id) => !seen.has(deliveryKey(id))));
	for (let round = 2; tieBreak && round <= TIE_BREAK_ROUNDS + 1 && claimed.size > 0; round++) {
		await sleep(ROUND_MIN_MS + Math.floor(random() * ROUND_SPREAD_MS));
		const taken = await checkInTurn(store, key, [...claimed].flatMap((id) => [deliveryKey(id), roundKey(round, id)]));
		claimed = new Set([...claimed].filter((id) => !taken.has(roundKey(round, id))));
	}
	return claimed;
}

/**
 * A trigger's deliveries claimed in this process's memory (n8n's regular mode), recorded in n8n's
 * database by a write that follows rather than precedes the execution (docs/exactly-once.md).
 */
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

/** How firstTimeItems decides where a delivery is checked. */
export interface CheckPlace {
	/** Whether this process received delivery `id` and runs its execution (n8n's regular mode). */
	receivedHere?: (id: string) => boolean;
	/** Spreads the waits of the tie-break rounds. */
	random?: () => number;
	/** This process's clock, which dates the start of a trigger's claims. */
	now?: () => number;
	/** Where a failed write of claimed records is reported. */
	warn?: (message: string) => void;
}

/**
 * Ids no execution acted on before, each claimed once. A delivery this process received, signed as
 * occurring well after its trigger's claims began here, is claimed in memory and its record written
 * right after (no earlier process can hold it); every other one is checked in n8n's database first.
 */
async function claimDeliveries(
	store: ProcessedStore,
	key: string,
	ids: Array<string | undefined>,
	occurredAt: Map<string, number>,
	place: CheckPlace,
): Promise<Set<string>> {
	const unique = [...new Set(ids)].filter((id): id is string => id !== undefined);
	const here = place.receivedHere ?? (() => false);
	const now = (place.now ?? Date.now)();
	const local = unique.some((id) => here(id) && occurredAt.has(id)) ? claimsOf(key, now) : claimsHere.get(key);
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
	const tieBreak = toCheck.some((id) => !here(id));
	for (const id of await claimInDatabase(store, key, toCheck, place.random ?? Math.random, tieBreak)) claimed.add(id);
	return claimed;
}

/** The delivery an item of the trigger came from: `event_id` on a post's item, else the delivery's `id`. */
export function itemDeliveryId(json: IDataObject): string | undefined {
	return idText('event_id' in json ? json.event_id : json.id);
}

/** When the delivery of an item occurred, as it was signed (`occurred_at`), in ms; `undefined` when unknown. */
function itemOccurredAt(json: IDataObject): number | undefined {
	const at = typeof json.occurred_at === 'string' ? Date.parse(json.occurred_at) : NaN;
	return Number.isNaN(at) ? undefined : at;
}

/**
 * The items of deliveries no execution has acted on yet, with pairedItem (an item's own, else its
 * index); items without a delivery id pass.
 */
export async function firstTimeItems(
	items: INodeExecutionData[],
	store: ProcessedStore,
	key: string,
	place: CheckPlace = {},
): Promise<{ items: INodeExecutionData[]; duplicates: string[] }> {
	const ids = items.map((item) => itemDeliveryId(item.json));
	const occurredAt = new Map<string, number>();
	items.forEach((item, index) => {
		const id = ids[index];
		const at = itemOccurredAt(item.json);
		if (id !== undefined && at !== undefined && !occurredAt.has(id)) occurredAt.set(id, at);
	});
	const claimed = await claimDeliveries(store, key, ids, occurredAt, place);
	const isCopy = (id: string | undefined): id is string => id !== undefined && !claimed.has(id);
	const kept = items.flatMap((item, index) => {
		if (isCopy(ids[index])) return [];
		const pairedItem = item.pairedItem ?? { item: index };
		return [{ json: item.json, ...(item.binary ? { binary: item.binary } : {}), pairedItem }];
	});
	return { items: kept, duplicates: [...new Set(ids.filter(isCopy))] };
}
