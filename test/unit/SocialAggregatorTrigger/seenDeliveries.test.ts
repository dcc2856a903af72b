import type { INodeExecutionData } from 'n8n-workflow';

import {
	firstTimeItems,
	itemDeliveryId,
	type ProcessedStore,
} from '../../../nodes/SocialAggregatorTrigger/seenDeliveries';

/**
 * n8n's processed-data row as n8n 2.41 handles it: a check reads the whole
 * list, then writes it back merged; `gap` is the time between the two, when a
 * check in another process can interleave.
 */
class Row {
	list: string[] | undefined;

	writes = 0;

	constructor(private readonly gapMs = 0) {}

	store(): ProcessedStore {
		return {
			checkAndRecord: async (ids) => {
				const read = this.list ? [...this.list] : undefined;
				await new Promise((resolve) => setTimeout(resolve, this.gapMs));
				if (read === undefined) {
					if (this.list !== undefined) throw new Error('duplicate key value violates unique constraint');
					this.list = [...ids];
					this.writes++;
					return { new: ids, processed: [] };
				}
				const fresh = ids.filter((id) => !read.includes(id));
				this.list = [...read, ...fresh];
				this.writes++;
				return { new: fresh, processed: ids.filter((id) => read.includes(id)) };
			},
		};
	}
}

/** The delivery ids in the row (their own keys, without the tie-break keys), sorted. */
const ids = (row: Row) =>
	[...new Set((row.list ?? []).filter((key) => key.startsWith('delivery:')).map((key) => key.slice('delivery:'.length)))].sort();

const items = (list: Array<string | undefined>): INodeExecutionData[] =>
	list.map((id, index) => ({ json: id === undefined ? { n: index } : { id: index, event_id: id } }));

/** The deliveries of `list` that firstTimeItems lets through as new; `random` spreads the tie-break rounds. */
async function claimDeliveries(store: ProcessedStore, key: string, list: string[], random = Math.random, tieBreak = true): Promise<Set<string>> {
	const { items: kept } = await firstTimeItems(items(list), store, key, () => tieBreak, random);
	return new Set(kept.map((item) => itemDeliveryId(item.json)).filter((id): id is string => id !== undefined));
}

describe('exactly once over n8n processed data', () => {
	it('passes a delivery once, also when its copies are checked at once in one process', async () => {
		const row = new Row(5);
		const store = row.store();
		const results = await Promise.all([1, 2, 3, 4].map(async () => await claimDeliveries(store, 'wf:n', ['d1'])));
		expect(results.filter((claimed) => claimed.has('d1'))).toHaveLength(1);
	});

	it('keeps every id when different deliveries are checked at once in one process', async () => {
		const row = new Row(3);
		const store = row.store();
		await Promise.all(['a', 'b', 'c', 'd', 'e'].map(async (id) => await claimDeliveries(store, 'wf:n', [id])));
		expect(ids(row)).toEqual(['a', 'b', 'c', 'd', 'e']);
	});

	it('puts back an id that a check in another process overwrote, and retries a refused first insert', async () => {
		const row = new Row(5);
		// Two processes: two stores over the same row, checked under different keys (no shared queue).
		const [a, b] = await Promise.all([
			claimDeliveries(row.store(), 'process-a', ['x']),
			claimDeliveries(row.store(), 'process-b', ['y']),
		]);
		expect(a.has('x')).toBe(true);
		expect(b.has('y')).toBe(true);
		expect(ids(row)).toEqual(['x', 'y']);
		// Both read the same list and write it back: the first write is overwritten, then put back.
		const [c, d] = await Promise.all([
			claimDeliveries(row.store(), 'process-a', ['p'], () => 0),
			claimDeliveries(row.store(), 'process-b', ['q'], () => 0.9),
		]);
		expect(c.has('p') && d.has('q')).toBe(true);
		expect(ids(row)).toEqual(['p', 'q', 'x', 'y']);
	});

	it('lets one of two processes go on when both find the same delivery new at the same instant', async () => {
		const row = new Row(5);
		await claimDeliveries(row.store(), 'process-a', ['older'], () => 0);
		const [a, b] = await Promise.all([
			claimDeliveries(row.store(), 'process-a', ['same'], () => 0),
			claimDeliveries(row.store(), 'process-b', ['same'], () => 0.9),
		]);
		expect([a.has('same'), b.has('same')].filter(Boolean)).toHaveLength(1);
		expect(ids(row)).toEqual(['older', 'same']);
	});

	it('takes a delivery whose id is literally another id followed by #2 for a delivery of its own', async () => {
		const row = new Row();
		const store = row.store();
		// Checked as in another process (tie-break rounds), which records more than the id itself.
		expect((await claimDeliveries(store, 'k', ['x'], () => 0)).has('x')).toBe(true);
		expect((await claimDeliveries(store, 'k', ['x#2'], () => 0)).has('x#2')).toBe(true);
		expect((await claimDeliveries(store, 'k', ['x#3'], () => 0)).has('x#3')).toBe(true);
		expect((await claimDeliveries(store, 'k', ['x'], () => 0)).has('x')).toBe(false);
	});

	it('records a delivery its own process received in one write, and copies checked beside it share that write', async () => {
		const row = new Row(5);
		const store = row.store();
		expect((await claimDeliveries(store, 'k', ['first'], Math.random, false)).has('first')).toBe(true);
		expect(row.writes).toBe(1);
		const results = await Promise.all(
			['a', 'b', 'c', 'a', 'd', 'e'].map(async (id) => await claimDeliveries(store, 'k', [id], Math.random, false)),
		);
		expect(results.map((claimed) => claimed.size)).toEqual([1, 1, 1, 0, 1, 1]);
		// The first check alone, the five waiting behind it in one more.
		expect(row.writes).toBe(3);
		expect(ids(row)).toEqual(['a', 'b', 'c', 'd', 'e', 'first']);
	});

	it('records one key per delivery, in its own namespace', async () => {
		const row = new Row();
		await claimDeliveries(row.store(), 'k', ['d1', 'd2', 'delivery:d1'], Math.random, false);
		expect(row.list).toEqual(['delivery:d1', 'delivery:d2', 'delivery:delivery:d1']);
	});

	it('passes the items of new deliveries with pairedItem, drops the others, and passes items without an id', async () => {
		const row = new Row();
		const store = row.store();
		const first = await firstTimeItems(items(['d1', 'd1', undefined]), store, 'k');
		expect(first.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		const again = await firstTimeItems(items(['d1', 'd2', undefined]), store, 'k');
		expect(again.duplicates).toEqual(['d1']);
		expect(again.items.map((i) => i.json)).toEqual([{ id: 1, event_id: 'd2' }, { n: 2 }]);
		expect(again.items.map((i) => i.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
	});

	it('reads the delivery id of a post item and of a delivery item', () => {
		expect(itemDeliveryId({ id: 5, event_id: 'dlv_1' })).toBe('dlv_1');
		expect(itemDeliveryId({ id: 'dlv_2', event: 'x' })).toBe('dlv_2');
		expect(itemDeliveryId({ id: 7 })).toBe('7');
		expect(itemDeliveryId({ message: 'none' })).toBeUndefined();
	});
});
