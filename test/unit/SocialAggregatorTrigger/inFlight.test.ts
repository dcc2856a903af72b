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
let lookBackDue: typeof InFlightModule.lookBackDue;
let lookBackAgain: typeof InFlightModule.lookBackAgain;

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

describe('lookBackDue', () => {
	beforeEach(() => {
		jest.isolateModules(() => {
			({ lookBackDue, lookBackAgain } = require('../../../nodes/SocialAggregatorTrigger/inFlight') as typeof InFlightModule);
		});
	});

	it('the first delivery of a trigger in this process, and the first after 5 quiet minutes; lookBackAgain hands it to the next', () => {
		const t = Date.parse('2026-03-01T08:00:00Z');
		expect(lookBackDue('look:1', t)).toBe(true);
		expect(lookBackDue('look:2', t)).toBe(true);
		expect(lookBackDue('look:1', t + 1_000)).toBe(false);
		expect(lookBackDue('look:1', t + 299_000)).toBe(false);
		expect(lookBackDue('look:1', t + 599_000)).toBe(true);
		lookBackAgain('look:1');
		expect(lookBackDue('look:1', t + 600_000)).toBe(true);
		expect(lookBackDue('look:1', t + 601_000)).toBe(false);
	});
});
