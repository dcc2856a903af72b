import type * as InFlightModule from '../../../nodes/SocialAggregatorTrigger/inFlight';

/** Executions of one trigger in flight before a delivery waits (docs/exactly-once.md), and the longest it waits. */
const MAX_IN_FLIGHT = 32;
const WAIT_FOR_PLACE_MS = 2_000;

// n8n-workflow holds none of our state: the fresh copies share the one loaded (and load in milliseconds).
const n8nWorkflow = jest.requireActual<object>('n8n-workflow');
jest.doMock('n8n-workflow', () => n8nWorkflow);

// The counts are process-wide: each test takes them from a fresh process.
let finished: typeof InFlightModule.finished;
let receivedHere: typeof InFlightModule.receivedHere;
let takePlace: typeof InFlightModule.takePlace;

describe('executions in flight per trigger', () => {
	// A fresh process: the module loaded anew, with nothing counted.
	beforeEach(() => {
		jest.isolateModules(() => {
			({ finished, receivedHere, takePlace } = require('../../../nodes/SocialAggregatorTrigger/inFlight') as typeof InFlightModule);
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
		expect(await takePlace('wf:r', 'refused', clock)).toBe(false);
		expect(receivedHere('wf:r', 'refused')).toBe(false);
	});

	it('stops counting an execution never seen finishing after two minutes', async () => {
		finished('wf:s', []);
		const start = Date.now();
		for (let i = 0; i < MAX_IN_FLIGHT; i++) await takePlace('wf:s', `d${i}`, () => start);
		// A second later all still count: the next delivery waits, and is refused once its wait is over.
		let now = start + 1_000;
		expect(await takePlace('wf:s', 'early', () => (now += WAIT_FOR_PLACE_MS / 4))).toBe(false);
		// Two minutes later none does: the next delivery takes a place at once.
		expect(await takePlace('wf:s', 'later', () => start + 121_000)).toBe(true);
	});
});
