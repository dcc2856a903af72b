import { sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { idText } from './delivery';

/** Keys kept in n8n's database per trigger (three per delivery): far more than a service retries at once. */
const PROCESSED_DELIVERIES_KEPT = 15_000;

/** Rounds after the first check: executions that both found an id new record `<id>#<round>`; the first goes on. */
const TIE_BREAK_ROUNDS = 2;

/** Wait before a tie-break round: at least this, plus a random part of the spread. */
const ROUND_MIN_MS = 10;
const ROUND_SPREAD_MS = 150;

/** Attempts of one check when the database refuses a write (two first writes at once). */
const ATTEMPTS = 3;

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
				maxEntries: PROCESSED_DELIVERIES_KEPT,
			});
			return { new: result.new.map(String), processed: result.processed.map(String) };
		},
	};
}

/** One check at a time per trigger in this process: n8n's check reads and writes back the whole list. */
const queues = new Map<string, Promise<unknown>>();

/** `store.checkAndRecord(ids)` after this trigger's checks before it, tried again when the database refuses it. */
async function checkInTurn(store: ProcessedStore, key: string, ids: string[]) {
	const task = async () => {
		let lastError: unknown;
		for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
			try {
				return await store.checkAndRecord(ids);
			} catch (error) {
				// Two first records at once: one insert fails on the row's unique key; the next try updates that row.
				lastError = error;
				await sleep(20 * attempt);
			}
		}
		throw lastError;
	};
	const run = (queues.get(key) ?? Promise.resolve()).then(task, task);
	const tail = run.catch(() => undefined);
	queues.set(key, tail);
	try {
		return await run;
	} finally {
		if (queues.get(key) === tail) queues.delete(key);
	}
}

/** Ids no execution recorded before, recorded now in n8n's database; each round restores ids another write dropped. */
export async function claimDeliveries(
	store: ProcessedStore,
	key: string,
	ids: Array<string | undefined>,
	random: () => number = Math.random,
): Promise<Set<string>> {
	const unique = [...new Set(ids)].filter((id): id is string => id !== undefined);
	if (unique.length === 0) return new Set();
	let claimed = new Set((await checkInTurn(store, key, unique)).new);
	for (let round = 2; round <= TIE_BREAK_ROUNDS + 1 && claimed.size > 0; round++) {
		await sleep(ROUND_MIN_MS + Math.floor(random() * ROUND_SPREAD_MS));
		const result = await checkInTurn(store, key, [...claimed].flatMap((id) => [id, `${id}#${round}`]));
		const taken = new Set(result.processed);
		claimed = new Set([...claimed].filter((id) => !taken.has(`${id}#${round}`)));
	}
	return claimed;
}

/** The delivery an item of the trigger came from: `event_id` on a post's item, else the delivery's `id`. */
export function itemDeliveryId(json: IDataObject): string | undefined {
	return idText('event_id' in json ? json.event_id : json.id);
}

/** The items of deliveries no execution has acted on yet, with pairedItem; items without a delivery id pass. */
export async function firstTimeItems(
	items: INodeExecutionData[],
	store: ProcessedStore,
	key: string,
): Promise<{ items: INodeExecutionData[]; duplicates: string[] }> {
	const ids = items.map((item) => itemDeliveryId(item.json));
	const claimed = await claimDeliveries(store, key, ids);
	const isCopy = (id: string | undefined): id is string => id !== undefined && !claimed.has(id);
	const kept = items.flatMap((item, index) => {
		if (isCopy(ids[index])) return [];
		return [{ json: item.json, ...(item.binary ? { binary: item.binary } : {}), pairedItem: { item: index } }];
	});
	return { items: kept, duplicates: [...new Set(ids.filter(isCopy))] };
}
