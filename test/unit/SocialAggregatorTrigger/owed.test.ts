import type { IDataObject } from 'n8n-workflow';

import { carry, owedDue, owedLookBack, putOff, settle } from '../../../nodes/SocialAggregatorTrigger/owed';

/** A node's static data as n8n hands it to execute(), with the keys written to it. */
function staticData(initial: IDataObject = {}) {
	const writes: string[] = [];
	const data = new Proxy(initial, {
		set(target, key, value) {
			writes.push(String(key));
			return Reflect.set(target, key, value);
		},
		deleteProperty(target, key) {
			writes.push(`-${String(key)}`);
			return Reflect.deleteProperty(target, key);
		},
	});
	return { ctx: { getWorkflowStaticData: () => data }, data, writes };
}

const kick = { id: 'kick_1', occurred_at: '2026-01-01T10:06:00Z' };

describe('what the trigger owes, in the static data', () => {
	it('after a first failed try the next delivery tries again; then 1 minute, doubling to an hour; a page cap waits for nothing', () => {
		const { ctx } = staticData();
		const waits = [0, 1, 2, 3, 4, 5, 6, 7, 29].map((tries) => putOff(ctx, { kick, delivered: [], tries, failed: true, reason: 'x' }, 0).retryAt / 60_000);
		expect(waits).toEqual([0, 1, 2, 4, 8, 16, 32, 60, 60]);
		const failed = putOff(ctx, { kick, delivered: [], tries: 2, failed: true, reason: 'HTTP 503' }, 1_000);
		expect(failed).toMatchObject({ tries: 3, retryAt: 1_000 + 2 * 60_000, reason: 'HTTP 503' });
		expect(owedDue(failed, 1_000 + 2 * 60_000 - 1, false)).toBe(false);
		expect(owedDue(failed, 1_000, true)).toBe(true);
		expect(owedDue(failed, 1_000 + 2 * 60_000, false)).toBe(true);
		const capped = putOff(ctx, { kick, delivered: [], gap: { spans: [] }, tries: 3, failed: false, reason: 'page cap' }, 5_000);
		expect(capped).toMatchObject({ tries: 3, retryAt: 5_000 });
	});

	it('keeps what the next try needs, and no more: the gap without its error, at most 1,000 carried posts', () => {
		const { ctx, data } = staticData();
		const delivered = Array.from({ length: 5_000 }, (_, n) => `7:${n}`);
		putOff(ctx, { kick, delivered, gap: { spans: [{ after: 1, before: 2 }], redeliver: ['f2'], error: new Error('boom') }, tries: 0, failed: true, reason: 'boom' });
		const owed = owedLookBack(ctx)!;
		expect(owed.delivered).toHaveLength(1_000);
		expect(owed.delivered.at(-1)).toBe('7:4999');
		expect(owed.gap).toEqual({ spans: [{ after: 1, before: 2 }], redeliver: ['f2'] });
		// What n8n saves must survive JSON (its database column).
		expect(JSON.parse(JSON.stringify(data))).toEqual({ owedLookBack: owed });
		expect(JSON.stringify(data).length).toBeLessThan(20_000);
	});

	it('writes only when something changes: carried posts it already has, and settling nothing owed, write nothing', () => {
		const { ctx, writes } = staticData();
		settle(ctx);
		expect(writes).toEqual([]);
		const owed = putOff(ctx, { kick, delivered: ['7:1'], tries: 0, failed: true, reason: 'x' });
		writes.length = 0;
		carry(ctx, owed, ['7:1']);
		expect(writes).toEqual([]);
		carry(ctx, owed, ['7:1', '7:2']);
		expect(owedLookBack(ctx)?.delivered).toEqual(['7:1', '7:2']);
		settle(ctx);
		expect(owedLookBack(ctx)).toBeUndefined();
		expect(writes).toEqual(['owedLookBack', '-owedLookBack']);
	});
});
