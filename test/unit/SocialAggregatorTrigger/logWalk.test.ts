import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readLogBack, stillPending } from '../../../nodes/SocialAggregatorTrigger/logWalk';
import { CatchUpService } from '../support/catchUpService';
import { hookContext, type WebhookApiStub } from '../support/triggerStub';

const T0 = Date.parse('2026-01-10T12:00:00.000Z');
const at = (seconds: number) => T0 + seconds * 1000;
const iso = (seconds: number) => new Date(at(seconds)).toISOString();

/** 250 deliveries that went through, one a second, then (with `gap`) two that failed while n8n was away; the kick after. */
function busyLog(gap: boolean): IDataObject[] {
	const log: IDataObject[] = Array.from({ length: 250 }, (_, n) => ({ id: `d${n}`, status: 'succeeded', created_at: iso(n) }));
	if (gap) log.push({ id: 'f1', status: 'failed', created_at: iso(400) }, { id: 'f2', status: 'failed', created_at: iso(410) });
	log.push({ id: 'kick', status: 'pending', created_at: iso(1000) });
	return log;
}

const kick = { id: 'kick', at: at(1000) };
const logReads = (service: CatchUpService) => service.requests.filter((r) => r === 'GET /webhooks/1/deliveries').length;
const shapes = [
	{ order: 'newest', statusFilter: 'honoured' },
	{ order: 'newest', statusFilter: 'ignored' },
	{ order: 'oldest', statusFilter: 'honoured' },
	{ order: 'oldest', statusFilter: 'ignored' },
] as const;

describe.each(shapes)('a delivery log listed $order first, its status filter $statusFilter', (shape) => {
	it('a subscription that was delivering: decided by the newest page (one request newest first, page 1 and the last oldest first)', async () => {
		const service = new CatchUpService(busyLog(false), {});
		service.logShape = shape;
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const read = await readLogBack(context as unknown as IExecuteFunctions, '1', kick, at(-7 * 86_400));
		expect(logReads(service)).toBe(shape.order === 'newest' ? 1 : 2);
		expect(read.entries.some((entry) => entry.id === 'd249')).toBe(true);
		expect(read.entries.map((entry) => entry.at)).toEqual([...read.entries.map((entry) => entry.at)].sort((a, b) => a - b));
	});
});

describe('stillPending', () => {
	it('reads from the page the entry was found on, no status filter asked, and gives up after a few pages', async () => {
		const log = busyLog(true).map((entry) => (entry.id === 'f1' ? { ...entry, status: 'pending' } : entry));
		const service = new CatchUpService(log, {}, { order: 'oldest', statusFilter: 'ignored' });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const asked: IDataObject[] = [];
		const handle = service.handle.bind(service);
		service.handle = async (options) => {
			asked.push((options.qs ?? {}) as IDataObject);
			return await handle(options);
		};
		expect(await stillPending(context as unknown as IExecuteFunctions, '1', 'f1', 3)).toBe(true);
		expect(asked).toEqual([{ page: 3, per_page: 100 }]);
		asked.length = 0;
		expect(await stillPending(context as unknown as IExecuteFunctions, '1', 'absent', 1)).toBe(false);
		expect(asked.map((qs) => qs.page)).toEqual([1, 2, 3]);
	});
});
