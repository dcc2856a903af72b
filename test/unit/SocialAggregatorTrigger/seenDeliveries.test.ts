import type { INodeExecutionData } from 'n8n-workflow';

import type { ProcessedStore } from '../../../nodes/SocialAggregatorTrigger/deliveryMemory';
import { firstTimeItems, itemDeliveryId } from '../../../nodes/SocialAggregatorTrigger/seenDeliveries';

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
	const { items: kept } = await firstTimeItems(items(list), store, key, { receivedHere: () => !tieBreak, random });
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

	it('records a caught-up post with one key, in the execution of any process, beside a delivery received elsewhere that takes three', async () => {
		const row = new Row();
		const caughtUp = Array.from({ length: 3000 }, (_, n) => `catch-up:7:${n}`);
		const claimed = await claimDeliveries(row.store(), 'k', [...caughtUp, 'dlv_elsewhere'], () => 0);
		expect(claimed.size).toBe(3001);
		// 3,000 posts of a gap take 3,000 of the 10,000 keys, not 9,000: earlier deliveries' records stay in the list.
		expect(row.list?.filter((key) => key.includes('catch-up:'))).toHaveLength(3000);
		expect(row.list?.filter((key) => key.endsWith('dlv_elsewhere'))).toEqual(['delivery:dlv_elsewhere', 'round2:dlv_elsewhere', 'round3:dlv_elsewhere']);
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

describe('deliveries claimed in memory, recorded right after (n8n regular mode)', () => {
	const T0 = Date.parse('2026-11-27T10:00:00Z');
	const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
	const delivered = (list: Array<[string, number]>): INodeExecutionData[] =>
		list.map(([id, seconds]) => ({ json: { event_id: id, occurred_at: at(seconds) } }));
	const regular = { receivedHere: () => true, now: () => T0 };

	/** Waits until `done` holds, for a write that follows the execution. */
	async function until(done: () => boolean): Promise<void> {
		for (let waited = 0; !done(); waited += 10) {
			if (waited > 5000) throw new Error('timed out');
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	}

	it('checks a delivery in the database first until it occurred well after the claims began', async () => {
		const row = new Row();
		// The first execution begins the claims; a delivery of that instant may have reached an earlier process.
		const early = await firstTimeItems(delivered([['early', 0]]), row.store(), 'mem-early', regular);
		expect(early.items).toHaveLength(1);
		expect(row.writes).toBe(1);
		const copy = await firstTimeItems(delivered([['early', 0]]), row.store(), 'mem-early', regular);
		expect(copy.duplicates).toEqual(['early']);
		expect(row.writes).toBe(2);
		// 20 s after: within the margin for the service's clock running ahead of n8n's.
		expect((await firstTimeItems(delivered([['soon', 20]]), row.store(), 'mem-early', regular)).items).toHaveLength(1);
		expect(row.writes).toBe(3);
	});

	it('claims a later delivery without waiting for the database, and records it in one write with those beside it', async () => {
		const row = new Row();
		const store = row.store();
		await firstTimeItems(delivered([['first', 0]]), store, 'mem-later', regular);
		expect(row.writes).toBe(1);
		const results = await Promise.all(
			(['a', 'b', 'c', 'a'] as const).map(async (id) => await firstTimeItems(delivered([[id, 31]]), store, 'mem-later', regular)),
		);
		expect(results.map((result) => result.items.length)).toEqual([1, 1, 1, 0]);
		// Claimed before any write: the execution did not wait for one.
		expect(row.writes).toBe(1);
		await until(() => row.writes === 2);
		expect(ids(row)).toEqual(['a', 'b', 'c', 'first']);
		// A copy later is dropped from memory, with no read of the database.
		expect((await firstTimeItems(delivered([['b', 31]]), store, 'mem-later', regular)).duplicates).toEqual(['b']);
		await new Promise((resolve) => setTimeout(resolve, 1100));
		expect(row.writes).toBe(2);
	});

	it('checks in the database a delivery received by another process or with no time, however late it occurred', async () => {
		const row = new Row();
		await firstTimeItems(delivered([['begin', 0]]), row.store(), 'mem-elsewhere', regular);
		const elsewhere = { ...regular, receivedHere: (id: string) => id !== 'remote', random: () => 0 };
		await firstTimeItems(delivered([['remote', 60]]), row.store(), 'mem-elsewhere', elsewhere);
		// Checked, then two tie-break rounds: three writes before the execution goes on.
		expect(row.writes).toBe(4);
		await firstTimeItems([{ json: { event_id: 'untimed' } }], row.store(), 'mem-elsewhere', regular);
		expect(row.writes).toBe(5);
		expect(ids(row)).toEqual(['begin', 'remote', 'untimed']);
	});

	it('keeps a copy from running once its claim has left memory: its record is in the database by then', async () => {
		const row = new Row();
		const store = row.store();
		await firstTimeItems(delivered([['start', 0]]), store, 'mem-full', regular);
		const many = Array.from({ length: 2_001 }, (_, n): [string, number] => [`d${n}`, 40 + n / 1000]);
		const first = await firstTimeItems(delivered(many), store, 'mem-full', regular);
		expect(first.items).toHaveLength(2_001);
		// d0 has left the claims kept, but its record is not written yet: a copy now is still held back.
		expect((await firstTimeItems(delivered([['d0', 40]]), store, 'mem-full', regular)).duplicates).toEqual(['d0']);
		await until(() => ids(row).length === 2_002);
		// Now its copy is checked in the database, which holds its record.
		const writes = row.writes;
		expect((await firstTimeItems(delivered([['d0', 40]]), store, 'mem-full', regular)).duplicates).toEqual(['d0']);
		expect(row.writes).toBe(writes + 1);
		// A claim still kept needs no read.
		expect((await firstTimeItems(delivered([['d2000', 42]]), store, 'mem-full', regular)).duplicates).toEqual(['d2000']);
		expect(row.writes).toBe(writes + 1);
	});

	it('reports a record it could not write, naming the deliveries', async () => {
		let calls = 0;
		const failing: ProcessedStore = {
			checkAndRecord: async (list) => {
				calls++;
				if (calls > 1) throw new Error('SQLITE_BUSY: database is locked');
				return { new: list, processed: [] };
			},
		};
		const warnings: string[] = [];
		const place = { ...regular, warn: (message: string) => warnings.push(message) };
		await firstTimeItems(delivered([['one', 0]]), failing, 'mem-failing', place);
		expect((await firstTimeItems(delivered([['two', 45]]), failing, 'mem-failing', place)).items).toHaveLength(1);
		await until(() => warnings.length === 1);
		expect(warnings[0]).toContain('deliveries two could not be written');
		expect(warnings[0]).toContain('SQLITE_BUSY');
		// A burst's write names ten and counts the rest.
		const burst = Array.from({ length: 12 }, (_, n): [string, number] => [`b${n}`, 50]);
		expect((await firstTimeItems(delivered(burst), failing, 'mem-failing', place)).items).toHaveLength(12);
		await until(() => warnings.length === 2);
		expect(warnings[1]).toContain('deliveries b0, b1, b2, b3, b4, b5, b6, b7, b8, b9 and 2 more could not be written');
	});
});
