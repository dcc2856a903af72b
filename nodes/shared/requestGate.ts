/**
 * What one node run's requests share so that a rate limit costs few 429s: at most `slots` in flight, and a gate the
 * first 429 closes. That request (the probe) waits out the limit alone; the others wait at the gate, and go, or give
 * up, with the probe. A window's end so costs at most the requests in flight, with or without Retry-After.
 */
export class RequestGate {
	private free: number;
	private readonly queued: Array<() => void> = [];
	private probe?: object;
	private opened?: Promise<boolean>;
	private open?: (passable: boolean) => void;

	constructor(slots: number) {
		this.free = Math.max(1, slots);
	}

	/** Before an attempt: waits while another request waits out a 429, then for a free slot. */
	async enter(request: object): Promise<void> {
		for (;;) {
			while (this.opened && this.probe !== request) await this.opened;
			if (this.free > 0) {
				this.free--;
				return;
			}
			await new Promise<void>((resolve) => this.queued.push(resolve));
		}
	}

	/** After an attempt was answered (or failed): the slot goes to the next request waiting. */
	leave(): void {
		this.free++;
		this.queued.shift()?.();
	}

	/** A 429: the request becomes the probe that waits out the limit, or gets the probe's end (whether it passed). */
	limited(request: object): Promise<boolean> | undefined {
		if (this.probe === undefined) {
			this.probe = request;
			this.opened = new Promise<boolean>((resolve) => (this.open = resolve));
		}
		return this.probe === request ? undefined : this.opened;
	}

	/** The request was answered otherwise than 429 (`passed`) or gave up: if it was the probe, the gate opens. */
	done(request: object, passed: boolean): void {
		if (this.probe !== request) return;
		const open = this.open;
		this.probe = undefined;
		this.opened = undefined;
		this.open = undefined;
		open?.(passed);
	}
}

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
