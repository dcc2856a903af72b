import { sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { idText, isCaughtUpId } from './deliveryId';
import { checkInTurn, claimInMemory, deliveryKey, type ProcessedStore } from './deliveryMemory';

/**
 * Keys kept in n8n's database per trigger, the oldest dropped first. A delivery takes one, three
 * when its execution ran in another process than the one that received it (two tie-break keys):
 * 10,000 deliveries in one n8n, 3,333 in queue mode. A caught-up post takes one wherever it runs. The service retries a delivery only until it
 * gives up (a subscription is disabled after 10 failed deliveries in a row), so a copy comes within
 * that span; docs/exactly-once.md says what it covers.
 */
const PROCESSED_KEYS_KEPT = 10_000;

/** Rounds after the first check: executions that both found an id new record a round key; the first goes on. */
const TIE_BREAK_ROUNDS = 2;

/** Wait before a tie-break round: at least this, plus a random part of the spread. */
const ROUND_MIN_MS = 10;
const ROUND_SPREAD_MS = 150;

/** A tie-break round's key: outside the namespace of delivery keys (`deliveryKey`). */
const roundKey = (round: number, id: string) => `round${round}:${id}`;

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

/**
 * Ids no execution recorded before, recorded now in n8n's database: one write, shared with the
 * checks waiting beside it. The ids `tieBreak` holds (the execution runs in another process than the
 * one that received the delivery, so a copy may be checked elsewhere at the same instant) then take
 * rounds after random waits that let one of two executions that both found an id new go on, and put
 * back ids another process's write dropped.
 */
async function claimInDatabase(
	store: ProcessedStore,
	key: string,
	unique: string[],
	random: () => number,
	tieBreak: (id: string) => boolean,
): Promise<Set<string>> {
	if (unique.length === 0) return new Set();
	const seen = await checkInTurn(store, key, unique.map(deliveryKey));
	const claimed = new Set(unique.filter((id) => !seen.has(deliveryKey(id))));
	let contested = new Set([...claimed].filter(tieBreak));
	for (let round = 2; round <= TIE_BREAK_ROUNDS + 1 && contested.size > 0; round++) {
		await sleep(ROUND_MIN_MS + Math.floor(random() * ROUND_SPREAD_MS));
		const taken = await checkInTurn(store, key, [...contested].flatMap((id) => [deliveryKey(id), roundKey(round, id)]));
		for (const id of contested) if (taken.has(roundKey(round, id))) claimed.delete(id);
		contested = new Set([...contested].filter((id) => claimed.has(id)));
	}
	return claimed;
}

/**
 * Whether this execution is the first to claim `id` (a look back's gap, one try of a look back owed) in n8n's
 * database, with the rounds of a delivery that another process may check at the same instant. Kept beside the
 * deliveries' records (`delivery:look-back:…`).
 */
export async function claimOnce(store: ProcessedStore, key: string, id: string, random: () => number = Math.random): Promise<boolean> {
	return (await claimInDatabase(store, key, [`look-back:${id}`], random, () => true)).size === 1;
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
 * Ids no execution acted on before, each claimed once: in this process's memory where it can be
 * (`claimInMemory`), every other one checked in n8n's database first.
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
	const { claimed, toCheck } = claimInMemory(store, key, unique, occurredAt, { here, now, warn: place.warn });
	// A caught-up post is read by the one look back that holds its gap, never sent twice at once: no rounds, one
	// record, so a catch-up of thousands of posts leaves earlier deliveries' records in n8n's list.
	const tieBreak = (id: string) => !here(id) && !isCaughtUpId(id);
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
