import type * as MemoryModule from '../../../nodes/SocialAggregatorTrigger/deliveryMemory';
import type * as InFlightModule from '../../../nodes/SocialAggregatorTrigger/inFlight';

/** Executions of one trigger in flight before a delivery waits (docs/exactly-once.md), and the longest it waits. */
const MAX_IN_FLIGHT = 32;
const WAIT_FOR_PLACE_MS = 5_000;

// n8n-workflow holds none of our state: the fresh copies share the one loaded (and load in milliseconds).
const n8nWorkflow = jest.requireActual<object>('n8n-workflow');
jest.doMock('n8n-workflow', () => n8nWorkflow);

// The counts are process-wide: each test takes them from a fresh process.
let finished: typeof InFlightModule.finished;
let receivedHere: typeof MemoryModule.receivedHere;
let takePlace: typeof InFlightModule.takePlace;

describe('executions in flight per trigger', () => {
	// A fresh process: the module loaded anew, with nothing counted.
	beforeEach(() => {
		jest.isolateModules(() => {
			({ finished, takePlace } = require('../../../nodes/SocialAggregatorTrigger/inFlight') as typeof InFlightModule);
			({ receivedHere } = require('../../../nodes/SocialAggregatorTrigger/deliveryMemory') as typeof MemoryModule);
		});
	});

	it('never waits where executions run in another process (queue mode): only counts', async () => {
		for (let i = 0; i < MAX_IN_FLIGHT + 10; i++) expect(await takePlace('wf:q', `d${i}`)).toBe(true);
		expect(Array.from({ length: MAX_IN_FLIGHT + 10 }, (_, i) => receivedHere('wf:q', `d${i}`)).every(Boolean)).toBe(true);
	});

	it('where executions run here, a delivery past the limit waits for one to finish, else is refused in time', async () => {
		finished('wf:r', []);
		for (let i = 0; i < MAX_IN_FLIGHT; i++) expect(await takePlace('wf:r', `d${i}`)).toBe(true);
		// One finishes while the next waits: it gets the place.
		const waiting = takePlace('wf:r', 'late');
		finished('wf:r', ['d0']);
		expect(await waiting).toBe(true);
		expect(receivedHere('wf:r', 'late')).toBe(true);
		expect(receivedHere('wf:r', 'd0')).toBe(false);
		// None finishes: refused once the wait is over, on the given clock.
		let now = 0;
		const clock = () => (now += WAIT_FOR_PLACE_MS / 4);
		expect(await takePlace('wf:r', 'refused', 0, clock)).toBe(false);
		expect(receivedHere('wf:r', 'refused')).toBe(false);
	});

	it('stops counting an execution never seen finishing after two minutes', async () => {
		finished('wf:s', []);
		const start = Date.now();
		for (let i = 0; i < MAX_IN_FLIGHT; i++) await takePlace('wf:s', `d${i}`, 0, () => start);
		// A second later all still count: the next delivery waits, and is refused once its wait is over.
		let now = start + 1_000;
		expect(await takePlace('wf:s', 'early', 0, () => (now += WAIT_FOR_PLACE_MS / 4))).toBe(false);
		// Two minutes later none does: the next delivery takes a place at once.
		expect(await takePlace('wf:s', 'later', 0, () => start + 121_000)).toBe(true);
	});
});

describe('light and heavy deliveries, and refusals in a row', () => {
	beforeEach(() => {
		jest.isolateModules(() => {
			({ finished, takePlace } = require('../../../nodes/SocialAggregatorTrigger/inFlight') as typeof InFlightModule);
			({ receivedHere } = require('../../../nodes/SocialAggregatorTrigger/deliveryMemory') as typeof MemoryModule);
		});
	});
	const MB = 1024 * 1024;
	/** A clock on which each look at it moves a quarter of the wait on: a delivery that must wait is refused at once. */
	const hurried = () => {
		let now = Date.parse('2026-03-01T08:00:00Z');
		return () => (now += WAIT_FOR_PLACE_MS / 4);
	};

	it('light deliveries never wait for heavy ones; heavy ones wait for heavy ones, one always let in', async () => {
		finished('wf:h', []);
		expect(await takePlace('wf:h', 'big1', 3 * MB, hurried())).toBe(true);
		expect(await takePlace('wf:h', 'big2', 3 * MB, hurried())).toBe(true);
		// 6 MB in flight: a third heavy one would pass 8 MB and waits, in vain here.
		expect(await takePlace('wf:h', 'big3', 3 * MB, hurried())).toBe(false);
		for (let i = 0; i < MAX_IN_FLIGHT; i++) expect(await takePlace('wf:h', `light${i}`, 2_000, hurried())).toBe(true);
		expect(await takePlace('wf:h', 'light-over', 2_000, hurried())).toBe(false);
		finished('wf:h', ['big1', 'big2']);
		expect(await takePlace('wf:h', 'huge', 12 * MB, hurried())).toBe(true);
		expect(receivedHere('wf:h', 'huge')).toBe(true);
	});

	it('after 4 refusals in a row the next delivery is let in, so the service never counts 10', async () => {
		finished('wf:z', []);
		for (let i = 0; i < MAX_IN_FLIGHT; i++) await takePlace('wf:z', `d${i}`);
		const answers: boolean[] = [];
		for (let i = 0; i < 10; i++) answers.push(await takePlace('wf:z', `over${i}`, 100, hurried()));
		expect(answers).toEqual([false, false, false, false, true, false, false, false, false, true]);
	});
});
