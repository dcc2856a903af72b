/**
 * For the budget tests that count the documented real hour: the nodes' clock (`retryTiming`) is the stand-in's, and a
 * wait moves the stand-in's clock on instead of passing, so hours of rate-limit budget take no real time while the
 * service and the nodes agree on what time it is. Before the clock jumps, the answers on their way leave the stand-in
 * and are read, as they would be during a real wait (an answer read an hour late would be no real answer).
 */
import type { FakeService } from '../fake-service';
import { retryTiming } from '../../nodes/shared/retry';

/** The longest real time a wait gives the answers on their way before the clock jumps. */
const IN_FLIGHT_MS = 500;

const pause = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** In each test of the block: the nodes read the stand-in's clock, and their waits move it (once for waits side by side). */
export function onServiceClock(fake: FakeService): void {
	const real = { now: retryTiming.now, sleep: retryTiming.sleep };
	beforeEach(() => {
		retryTiming.now = () => fake.control.clock.now().getTime();
		retryTiming.sleep = async (ms: number) => {
			const until = retryTiming.now() + ms;
			const deadline = Date.now() + Math.min(ms, IN_FLIGHT_MS);
			do await pause(Math.min(ms, 2));
			while (fake.control.requests.inFlight() > 0 && Date.now() < deadline);
			// The node reads what has just arrived.
			await pause(Math.min(ms, 2));
			// Requests that wait side by side move the clock once, to the end of the longest wait.
			const behind = until - retryTiming.now();
			if (behind > 0) fake.control.clock.advance(behind);
		};
	});
	afterEach(() => {
		Object.assign(retryTiming, real);
	});
}

/**
 * In each test of the block: the stand-in counts the documented real hour, with or without `X-RateLimit-*` headers, on the
 * stand-in's clock (`onServiceClock`); `newHour` then starts the key's hour with its limits.
 */
export function onRealHour(fake: FakeService, options: { headers: boolean; newHour: () => void }): void {
	beforeEach(() => {
		fake.control.rateLimits.setWindowScale(1);
		fake.control.rateLimits.setHeaders(options.headers);
		options.newHour();
	});
	onServiceClock(fake);
}
