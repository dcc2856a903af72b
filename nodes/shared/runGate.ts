import { RequestGate } from './transport';

// Requests in flight at once for a node run (n8n runs a declarative node's items concurrently), and pages of
// a list asked at once after page 1: the rate limit counts requests, so a window's end costs at most ten 429s.
export const PAGE_CONCURRENCY = 10;

/** Media downloads a node run has in flight at once, whatever the number of input items: memory stays bounded. */
export const MEDIA_CONCURRENCY = 4;

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
