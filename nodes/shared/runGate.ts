import { RequestGate } from './transport';

/**
 * Gates of `slots` places, one per node run: n8n gives one execute data to all of a run's input items. Without
 * execute data (none is promised), a call gets a gate of its own.
 */
export function gatePerRun(slots: number): (context: { getExecuteData(): object | undefined }) => RequestGate {
	const gates = new WeakMap<object, RequestGate>();
	return (context) => {
		const run: object | undefined = context.getExecuteData();
		const gate = (run && gates.get(run)) ?? new RequestGate(slots);
		if (run) gates.set(run, gate);
		return gate;
	};
}
