import { caughtUpDelivery, leaveUnsent, planCatchUp, readLog, spansToRead, type LogEntry } from '../../../nodes/SocialAggregatorTrigger/catchUpPlan';

const T0 = Date.parse('2026-01-10T12:00:00.000Z');
const at = (seconds: number) => T0 + seconds * 1000;
const iso = (seconds: number) => new Date(at(seconds)).toISOString();
const entry = (id: string, seconds: number, state: LogEntry['state']): LogEntry => ({ id, at: at(seconds), state });
const FLOOR = at(-86_400);

describe('readLog', () => {
	it('reads the fake\'s status words and, without a status, the receiver\'s answer code; oldest first', () => {
		const entries = readLog([
			{ id: 'c', status: 'succeeded', created_at: iso(30) },
			{ id: 'a', status: 'failed', created_at: iso(10) },
			{ id: 'b', response_status: 503, created_at: iso(20) },
			{ id: 'd', response_code: 200, created_at: iso(40) },
			{ id: 'e', status: 'pending', created_at: iso(50) },
		]);
		expect(entries).toEqual([entry('a', 10, 'failed'), entry('b', 20, 'failed'), entry('c', 30, 'done'), entry('d', 40, 'done'), entry('e', 50, 'pending')]);
	});

	it('marks a pending entry whose attempts failed (a count or a list of them, the last answer not a 2xx)', () => {
		const entries = readLog([
			{ id: 'cut', status: 'pending', attempts: 4, response_status: null, created_at: iso(10) },
			{ id: 'busy', status: 'retrying', attempts: [{ status: 503 }], response_status: 503, created_at: iso(20) },
			{ id: 'new', status: 'pending', attempts: 0, response_status: null, created_at: iso(30) },
			{ id: 'quiet', status: 'pending', created_at: iso(40) },
		]);
		expect(entries).toEqual([
			{ ...entry('cut', 10, 'pending'), tried: true },
			{ ...entry('busy', 20, 'pending'), tried: true },
			entry('new', 30, 'pending'),
			entry('quiet', 40, 'pending'),
		]);
		expect(entries.filter((read) => read.tried === undefined).map((read) => read.id)).toEqual(['new', 'quiet']);
	});

	it('skips entries it cannot place: no id, no time, no state (never attempted)', () => {
		expect(
			readLog([
				{ status: 'failed', created_at: iso(1) },
				{ id: 'x', status: 'failed', created_at: 'yesterday' },
				{ id: 'y', response_status: null, created_at: iso(2) },
				{ id: 7, status: 'FAILED', created_at: iso(3) },
			]),
		).toEqual([entry('7', 3, 'failed')]);
	});
});

describe('planCatchUp', () => {
	const kick = { id: 'kick', at: at(1000) };

	it('a subscription that stopped on failures: every failed delivery sent again, the posts up to the kick read', () => {
		const log = [entry('ok1', 0, 'done'), entry('f1', 10, 'failed'), entry('f2', 20, 'failed'), entry('kick', 999, 'pending')];
		expect(planCatchUp(log, kick, FLOOR)).toEqual({ redeliver: ['f1', 'f2'], gap: { after: at(20), before: at(999) }, gapOf: 'f2' });
	});

	it('the kick not yet in the log: the gap closes at the kick\'s own time', () => {
		const log = [entry('f1', 10, 'failed')];
		expect(planCatchUp(log, kick, FLOOR)).toEqual({ redeliver: ['f1'], gap: { after: at(10), before: at(1000) }, gapOf: 'f1' });
	});

	it('a delivery made since the re-enable, before the kick, closes the gap', () => {
		const log = [entry('f1', 10, 'failed'), entry('new', 990, 'done'), entry('kick', 1000, 'pending')];
		expect(planCatchUp(log, kick, FLOOR)).toEqual({ redeliver: ['f1'], gap: { after: at(10), before: at(990) }, gapOf: 'f1' });
	});

	it('a failure long before, followed by deliveries that went through: nothing (the subscription was delivering)', () => {
		const log = [entry('f1', 10, 'failed'), entry('ok', 20, 'done'), entry('kick', 1000, 'pending')];
		expect(planCatchUp(log, kick, FLOOR)).toEqual({ redeliver: [] });
	});

	it('deliveries still pending between the last failure and the kick (a burst after the re-enable) do not hide the gap', () => {
		const log = [entry('f1', 10, 'failed'), entry('p1', 999, 'pending'), entry('p2', 999, 'pending'), entry('kick', 1000, 'pending')];
		expect(planCatchUp(log, kick, FLOOR)).toEqual({ redeliver: ['f1'], gap: { after: at(10), before: at(999) }, gapOf: 'f1' });
	});

	it('nothing failed (a Send Test on a healthy subscription): nothing to do', () => {
		expect(planCatchUp([entry('ok', 10, 'done'), entry('kick', 1000, 'pending')], kick, FLOOR)).toEqual({ redeliver: [] });
	});

	it('the span cuts a longer gap: failed deliveries before it stay, the posts are read from its start', () => {
		const floor = at(15);
		const log = [entry('f0', 5, 'failed'), entry('f1', 10, 'failed'), entry('f2', 20, 'failed'), entry('kick', 1000, 'pending')];
		expect(planCatchUp(log, kick, floor)).toEqual({ redeliver: ['f2'], cutAt: floor, gap: { after: at(20), before: at(1000) }, gapOf: 'f2' });
		const allBefore = [entry('f1', 10, 'failed'), entry('kick', 1000, 'pending')];
		expect(planCatchUp(allBefore, kick, floor)).toEqual({ redeliver: [], cutAt: floor, gap: { after: floor, before: at(1000) }, gapOf: 'f1' });
	});

	it('a delivery cut off mid-retry by the disabling (still pending, its attempts failed): the gap starts there, and it is sent again', () => {
		const tried = (id: string, seconds: number): LogEntry => ({ ...entry(id, seconds, 'pending'), tried: true });
		const log = [entry('ok', 0, 'done'), entry('f1', 10, 'failed'), tried('cut', 20), entry('kick', 1000, 'pending')];
		expect(planCatchUp(log, kick, FLOOR)).toEqual({ redeliver: ['f1', 'cut'], gap: { after: at(20), before: at(1000) }, gapOf: 'cut' });
		// The subscription disabled within one delivery's attempts: no entry failed at all.
		expect(planCatchUp([entry('ok', 0, 'done'), tried('cut', 20), entry('kick', 1000, 'pending')], kick, FLOOR)).toEqual({
			redeliver: ['cut'],
			gap: { after: at(20), before: at(1000) },
			gapOf: 'cut',
		});
		// One made since the re-enable whose first attempt failed (a receiver still busy) is the service's to retry: it
		// neither hides the gap nor is sent again.
		const afterReEnable = [entry('f1', 10, 'failed'), tried('busy', 990), entry('kick', 1000, 'pending')];
		expect(planCatchUp(afterReEnable, kick, FLOOR)).toEqual({ redeliver: ['f1'], gap: { after: at(10), before: at(990) }, gapOf: 'f1' });
	});

	it('pending deliveries (the service still retries them) are left to the service', () => {
		const log = [entry('p', 10, 'pending'), entry('kick', 1000, 'pending')];
		expect(planCatchUp(log, kick, FLOOR)).toEqual({ redeliver: [] });
	});
});

describe('leaveUnsent (Max Age)', () => {
	const kick = { id: 'kick', at: at(1000) };
	const log = [entry('ok', 0, 'done'), entry('f1', 10, 'failed'), entry('f2', 20, 'failed'), entry('ok2', 30, 'done'), entry('f3', 40, 'failed'), entry('f4', 50, 'failed'), entry('kick', 1000, 'pending')];

	it('failed deliveries made before the limit stay unsent; where their posts were created is read instead, merged with the gap', () => {
		const plan = leaveUnsent(planCatchUp(log, kick, FLOOR), log, { floor: FLOOR, sendableFrom: at(45) });
		expect(plan.redeliver).toEqual(['f4']);
		expect(plan.unsent).toEqual([
			{ after: at(0), before: at(20) + 1 },
			{ after: at(30), before: at(40) + 1 },
		]);
		expect(spansToRead(plan)).toEqual([
			{ after: at(0), before: at(20) + 1 },
			{ after: at(30), before: at(40) + 1 },
			{ after: at(50), before: at(1000) },
		]);
		// All too old: one span from the delivery before the last run of failures to the kick.
		const all = leaveUnsent(planCatchUp(log, kick, FLOOR), log, { floor: FLOOR, sendableFrom: at(999) });
		expect(all.redeliver).toEqual([]);
		expect(spansToRead(all)).toEqual([
			{ after: at(0), before: at(20) + 1 },
			{ after: at(30), before: at(1000) },
		]);
	});

	it('the first delivery of the subscription too old: its posts are those stored since the subscription was made, else in the minute before it', () => {
		const first = [entry('f1', 100, 'failed'), entry('f2', 110, 'failed'), entry('kick', 1000, 'pending')];
		const plan = planCatchUp(first, kick, FLOOR);
		expect(spansToRead(leaveUnsent(plan, first, { floor: FLOOR, sendableFrom: at(999), createdAt: at(90) }))).toEqual([{ after: at(90), before: at(1000) }]);
		expect(spansToRead(leaveUnsent(plan, first, { floor: FLOOR, sendableFrom: at(999) }))).toEqual([{ after: at(40), before: at(1000) }]);
	});

	it('none too old: the plan unchanged', () => {
		const plan = planCatchUp(log, kick, FLOOR);
		expect(leaveUnsent(plan, log, { floor: FLOOR, sendableFrom: at(5) })).toBe(plan);
	});
});

describe('caughtUpDelivery', () => {
	it('one post.created delivery per post, its ID the same whenever the gap is read', () => {
		const post = { id: 41, created_at: iso(5), message: 'hi' };
		const first = caughtUpDelivery({ id: 3, name: 'News' }, post);
		expect(first).toEqual({
			id: 'catch-up:3:41',
			event: 'post.created',
			occurred_at: iso(5),
			data: { feed: { id: 3, name: 'News' }, posts: [post], caught_up: true },
		});
		expect(caughtUpDelivery({ id: 3 }, post).id).toBe(first.id);
	});
});
