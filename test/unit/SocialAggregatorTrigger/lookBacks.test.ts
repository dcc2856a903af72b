import type * as LookBacksModule from '../../../nodes/SocialAggregatorTrigger/lookBacks';

// The memory is process-wide: each test takes it from a fresh process.
let lookBackDue: typeof LookBacksModule.lookBackDue;
let lookBackAgain: typeof LookBacksModule.lookBackAgain;

describe('lookBackDue', () => {
	beforeEach(() => {
		jest.isolateModules(() => {
			({ lookBackDue, lookBackAgain } = require('../../../nodes/SocialAggregatorTrigger/lookBacks') as typeof LookBacksModule);
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
