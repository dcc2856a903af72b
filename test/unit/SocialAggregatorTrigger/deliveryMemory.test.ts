import type * as MemoryModule from '../../../nodes/SocialAggregatorTrigger/deliveryMemory';

// n8n-workflow holds none of our state: the fresh copies share the one loaded (and load in milliseconds).
const n8nWorkflow = jest.requireActual<object>('n8n-workflow');
jest.doMock('n8n-workflow', () => n8nWorkflow);

// The memory is process-wide: each test takes it from a fresh process (the module loaded anew, remembering nothing).
let memory: typeof MemoryModule;
beforeEach(() => {
	jest.isolateModules(() => {
		memory = require('../../../nodes/SocialAggregatorTrigger/deliveryMemory') as typeof MemoryModule;
	});
});

/** n8n's processed-data list of one trigger, recording every write it is asked for. */
function list() {
	const recorded = new Set<string>();
	const writes: string[][] = [];
	const store: MemoryModule.ProcessedStore = {
		checkAndRecord: async (ids) => {
			writes.push(ids);
			const processed = ids.filter((id) => recorded.has(id));
			for (const id of ids) recorded.add(id);
			return { new: ids.filter((id) => !processed.includes(id)), processed };
		},
	};
	return { store, writes, recorded };
}

describe('deliveries handled by webhook()', () => {
	it('keeps the process memory of each trigger apart', async () => {
		memory.rememberHandled('wf-1:a', 'd1');
		expect(memory.handledInProcess('wf-1:a', 'd1')).toBe(true);
		expect(memory.handledInProcess('wf-1:b', 'd1')).toBe(false);
	});

	it('keeps at most the limit of recent ids per trigger, the oldest forgotten first', () => {
		for (let i = 0; i < 502; i++) memory.rememberHandled('wf-1:limit', `d${i}`);
		memory.rememberHandled('wf-1:limit', 'd300');
		expect(['d0', 'd1', 'd2', 'd501'].map((id) => memory.handledInProcess('wf-1:limit', id))).toEqual([false, false, true, true]);
	});
});

describe('deliveries started and not finished', () => {
	const T0 = Date.parse('2026-11-27T10:00:00Z');

	it('counts a delivery from its start to its finish, each trigger apart', () => {
		memory.markStarted('wf:a', 'd1', 100, () => T0);
		memory.markStarted('wf:a', 'd2', 70_000, () => T0);
		expect([...memory.startedHere('wf:a', T0)]).toEqual([{ at: T0, bytes: 100 }, { at: T0, bytes: 70_000 }]);
		expect([memory.receivedHere('wf:a', 'd1'), memory.receivedHere('wf:b', 'd1')]).toEqual([true, false]);
		memory.markFinished('wf:a', ['d1']);
		expect(memory.receivedHere('wf:a', 'd1')).toBe(false);
		expect([...memory.startedHere('wf:a', T0)]).toEqual([{ at: T0, bytes: 70_000 }]);
	});

	it('stops counting a delivery never seen finishing after two minutes', () => {
		memory.markStarted('wf:s', 'old', 0, () => T0);
		memory.markStarted('wf:s', 'new', 0, () => T0 + 60_000);
		expect([...memory.startedHere('wf:s', T0 + 121_000)]).toEqual([{ at: T0 + 60_000, bytes: 0 }]);
		expect(memory.receivedHere('wf:s', 'old')).toBe(false);
	});
});

describe('checks of n8n\'s database in turn', () => {
	it('shares one write among the checks waiting, a key new to the list new to the first that asked for it', async () => {
		const { store, writes } = list();
		const first = memory.checkInTurn(store, 'wf:c', ['delivery:a']);
		const second = memory.checkInTurn(store, 'wf:c', ['delivery:b', 'delivery:a']);
		const third = memory.checkInTurn(store, 'wf:c', ['delivery:b']);
		expect(await first).toEqual(new Set());
		expect(await second).toEqual(new Set(['delivery:a']));
		expect(await third).toEqual(new Set(['delivery:b']));
		// The first check went alone; the two that waited for it shared the next write.
		expect(writes).toEqual([['delivery:a'], ['delivery:b', 'delivery:a']]);
	});

	it('keys a delivery in its own namespace', () => {
		expect(memory.deliveryKey('round2:x')).toBe('delivery:round2:x');
	});
});

describe('deliveries claimed in memory', () => {
	const T0 = Date.parse('2026-11-27T10:00:00Z');
	const here = { here: () => true, now: T0 };

	it('claims a delivery received here that occurred well after the claims began, and writes its record after', async () => {
		const { store, recorded } = list();
		const at = new Map([
			['early', T0 + 20_000],
			['late', T0 + 31_000],
		]);
		expect(memory.claimInMemory(store, 'wf:m', ['early', 'late', 'untimed'], at, here)).toEqual({
			claimed: new Set(['late']),
			toCheck: ['early', 'untimed'],
		});
		// Claimed once: a copy is neither claimed again nor checked.
		expect(memory.claimInMemory(store, 'wf:m', ['late'], at, here)).toEqual({ claimed: new Set(), toCheck: [] });
		for (let waited = 0; !recorded.has('delivery:late'); waited += 10) {
			if (waited > 5000) throw new Error('timed out');
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	});

	it('leaves to the database a delivery another process received', () => {
		const { store } = list();
		const at = new Map([['remote', T0 + 60_000]]);
		expect(memory.claimInMemory(store, 'wf:r', ['remote'], at, { here: () => false, now: T0 })).toEqual({
			claimed: new Set(),
			toCheck: ['remote'],
		});
	});
});
