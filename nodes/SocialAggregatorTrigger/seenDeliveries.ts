import { sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

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
async function claimDeliveries(
	store: ProcessedStore,
	key: string,
	ids: Array<string | undefined>,
	random: () => number = Math.random,
	tieBreak = true,
): Promise<Set<string>> {
	const unique = [...new Set(ids)].filter((id): id is string => id !== undefined);
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

/** The delivery an item of the trigger came from: `event_id` on a post's item, else the delivery's `id`. */
export function itemDeliveryId(json: IDataObject): string | undefined {
	return idText('event_id' in json ? json.event_id : json.id);
}

/**
 * The items of deliveries no execution has acted on yet, with pairedItem (an item's own, else its
 * index); items without a delivery id pass. `random` spreads the waits of the tie-break rounds.
 */
export async function firstTimeItems(
	items: INodeExecutionData[],
	store: ProcessedStore,
	key: string,
	tieBreak: (ids: string[]) => boolean = () => true,
	random: () => number = Math.random,
): Promise<{ items: INodeExecutionData[]; duplicates: string[] }> {
	const ids = items.map((item) => itemDeliveryId(item.json));
	const known = ids.filter((id): id is string => id !== undefined);
	const claimed = await claimDeliveries(store, key, ids, random, tieBreak(known));
	const isCopy = (id: string | undefined): id is string => id !== undefined && !claimed.has(id);
	const kept = items.flatMap((item, index) => {
		if (isCopy(ids[index])) return [];
		const pairedItem = item.pairedItem ?? { item: index };
		return [{ json: item.json, ...(item.binary ? { binary: item.binary } : {}), pairedItem }];
	});
	return { items: kept, duplicates: [...new Set(ids.filter(isCopy))] };
}
