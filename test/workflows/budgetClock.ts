/**
 * For the budget tests that count the documented real hour: the nodes' clock (`retryTiming`) is the stand-in's, and a
 * wait moves the stand-in's clock on instead of passing, so hours of rate-limit budget take no real time while the
 * service and the nodes agree on what time it is. Before the clock jumps, the requests on their way reach the
 * stand-in and their answers are read, as they would be during a real wait: a request counted an hour after it was
 * sent, or an answer read an hour after it was counted, would be no real one.
 */
import type { FakeService } from '../fake-service';
import { BudgetLedger } from '../../nodes/shared/budget';
import { retryTiming } from '../../nodes/shared/retry';
import { RequestGate } from '../../nodes/shared/requestGate';

/** The longest real time a wait gives the requests on their way before the clock jumps. */
const IN_FLIGHT_MS = 2_000;

const pause = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Requests on their way: given their place in a key's budget and not yet answered and read, less those held at
 * their run's gate (they wait for another request's wait, and go after it).
 */
function countRequestsOnTheirWay(): { onTheirWay: () => number; restore: () => void } {
	const real = { reserve: BudgetLedger.prototype.reserve, settle: BudgetLedger.prototype.settle, enter: RequestGate.prototype.enter };
	let unanswered = 0;
	let held = 0;
	BudgetLedger.prototype.reserve = function (this: BudgetLedger, ...args) {
		unanswered++;
		return real.reserve.apply(this, args);
	};
	BudgetLedger.prototype.settle = function (this: BudgetLedger, ...args) {
		unanswered--;
		return real.settle.apply(this, args);
	};
	RequestGate.prototype.enter = async function (this: RequestGate, ...args) {
		held++;
		try {
			return await real.enter.apply(this, args);
		} finally {
			held--;
		}
	};
	return {
		onTheirWay: () => unanswered - held,
		restore: () => {
			Object.assign(BudgetLedger.prototype, { reserve: real.reserve, settle: real.settle });
			RequestGate.prototype.enter = real.enter;
		},
	};
}

/** In each test of the block: the nodes read the stand-in's clock, and their waits move it (once for waits side by side). */
export function onServiceClock(fake: FakeService): void {
	const real = { now: retryTiming.now, sleep: retryTiming.sleep };
	let requests: ReturnType<typeof countRequestsOnTheirWay> | undefined;
	beforeEach(() => {
		const counted = countRequestsOnTheirWay();
		requests = counted;
		retryTiming.now = () => fake.control.clock.now().getTime();
		retryTiming.sleep = async (ms: number) => {
			const until = retryTiming.now() + ms;
			const deadline = Date.now() + Math.min(ms, IN_FLIGHT_MS);
			do await pause(Math.min(ms, 2));
			while ((counted.onTheirWay() > 0 || fake.control.requests.inFlight() > 0) && Date.now() < deadline);
			// The node reads what has just arrived.
			await pause(Math.min(ms, 2));
			// Requests that wait side by side move the clock once, to the end of the longest wait.
			const behind = until - retryTiming.now();
			if (behind > 0) fake.control.clock.advance(behind);
		};
	});
	afterEach(() => {
		Object.assign(retryTiming, real);
		requests?.restore();
		requests = undefined;
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
