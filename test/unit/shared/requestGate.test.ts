import { gatePerRun } from '../../../nodes/shared/requestGate';

describe('gatePerRun', () => {
	it('gives the items of one node run one gate, and another run another', () => {
		const gate = gatePerRun(2);
		const run = {};
		expect(gate({ getExecuteData: () => run })).toBe(gate({ getExecuteData: () => run }));
		expect(gate({ getExecuteData: () => run })).not.toBe(gate({ getExecuteData: () => ({}) }));
	});

	it('gives a call without execute data a gate of its own', () => {
		const gate = gatePerRun(2);
		expect(gate({ getExecuteData: () => undefined })).not.toBe(gate({ getExecuteData: () => undefined }));
	});

	it('keeps the gates of two kinds of work apart for the same run', () => {
		const run = {};
		expect(gatePerRun(2)({ getExecuteData: () => run })).not.toBe(gatePerRun(2)({ getExecuteData: () => run }));
	});

	it('lets `slots` requests in at once, the next once one leaves', async () => {
		const gate = gatePerRun(2)({ getExecuteData: () => ({}) });
		await gate.enter({});
		await gate.enter({});
		let third = false;
		const entering = gate.enter({}).then(() => (third = true));
		await Promise.resolve();
		expect(third).toBe(false);
		gate.leave();
		await entering;
		expect(third).toBe(true);
	});
});
