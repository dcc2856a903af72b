import { NodeApiError, type IDataObject, type INodeExecutionData } from 'n8n-workflow';

import { deliveryLogRoute, eventKindsAnswer, markRedelivered, pathDeliveryId } from '../../../../nodes/SocialAggregator/common/webhookLog';
import type { Answer } from '../../support/context';
import { paginationContext, runRouting } from '../../support/paginationContext';

const jsonOf = (items: INodeExecutionData[]) => items.map((item) => item.json);
const notFound: Answer = { statusCode: 404, body: { error: { code: 'not_found', message: 'No route', details: {} } } };
const listed = (ids: number[]): Answer => ({ body: { data: ids.map((id) => ({ id })), meta: { page: 1, per_page: 100, total_count: ids.length, total_pages: 1 } } });
const log = { method: 'GET' as const, url: '=/webhooks/{{$parameter.webhookId}}/deliveries', list: 'paged' as const };
const noLog = { deliveryLogOffered: false, webhookId: 7, message: expect.stringMatching(/^The service keeps no delivery log for webhook 7: /) };

async function getDeliveries(answers: Answer[], continueOnFail = false) {
	const { context, requests } = paginationContext(answers, { webhookId: '7', returnAll: true }, { continueOnFail, itemIndex: 3 });
	const run = runRouting(deliveryLogRoute(log, false), context, '/webhooks/7/deliveries');
	return { run, requests };
}

describe('deliveryLogRoute', () => {
	it('passes the log through as route() reads it', async () => {
		const { run } = await getDeliveries([{ body: { data: [{ id: 'dlv_1' }], meta: { page: 1, per_page: 100, total_count: 1, total_pages: 1 } } }]);
		expect(jsonOf(await run)).toEqual([{ id: 'dlv_1' }]);
	});

	it('a 404 for a subscription that exists: one item saying the service keeps no log, paired with its input, with or without Continue On Fail', async () => {
		for (const continueOnFail of [false, true]) {
			const { run, requests } = await getDeliveries([notFound, listed([6, 7])], continueOnFail);
			const items = await run;
			expect(items).toEqual([{ json: noLog, pairedItem: { item: 3 } }]);
			expect(requests.map((request) => request.url)).toEqual(['/webhooks/7/deliveries', expect.stringMatching(/\/webhooks$/)]);
		}
	});

	it('a 404 for a subscription that does not exist stays the 404: thrown, or the error item', async () => {
		const thrown = await getDeliveries([notFound, listed([6])]);
		const error = await thrown.run.catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toBe('No route');
		const kept = await getDeliveries([notFound, listed([6])], true);
		expect(jsonOf(await kept.run)).toEqual([expect.objectContaining({ error: 'No route', details: expect.objectContaining({ httpCode: '404' }) })]);
	});

	it('another error is route()\'s own, with no look-up', async () => {
		const forbidden: Answer = { statusCode: 403, body: { error: { code: 'forbidden', message: 'Not yours', details: {} } } };
		const { run, requests } = await getDeliveries([forbidden]);
		await expect(run).rejects.toThrow('Not yours');
		expect(requests).toHaveLength(1);
	});

	it('a look-up that fails is that failure: thrown, or its error item', async () => {
		const down: Answer = { statusCode: 403, body: { error: { code: 'forbidden', message: 'Cannot list', details: {} } } };
		await expect((await getDeliveries([notFound, down])).run).rejects.toThrow('Cannot list');
		expect(jsonOf(await (await getDeliveries([notFound, down], true)).run)).toEqual([expect.objectContaining({ error: 'Cannot list' })]);
	});

	it('a redelivery: no log when the log answers 404 too, named with the delivery; nothing redelivered', async () => {
		const { context } = paginationContext([notFound, listed([7]), notFound], { webhookId: '7', deliveryId: 'dlv_1' });
		const routing = deliveryLogRoute({ method: 'POST', url: '=/webhooks/{{$parameter.webhookId}}/deliveries', prepare: [pathDeliveryId], after: markRedelivered }, true);
		expect(jsonOf(await runRouting(routing, context, '/webhooks/7/deliveries'))).toEqual([{ redelivered: false, ...noLog, deliveryId: 'dlv_1' }]);
	});
});

it('pathDeliveryId adds the delivery, encoded as one segment, and redeliver', async () => {
	const { context } = paginationContext([], { deliveryId: ' dlv a/b ' });
	const request = { url: '/webhooks/7/deliveries' };
	await pathDeliveryId.call(context, request, 0);
	expect(request.url).toBe('/webhooks/7/deliveries/dlv%20a%2Fb/redeliver');
});

it('markRedelivered marks the service\'s answer', async () => {
	expect(await markRedelivered({ delivery_id: 'dlv_1' } as IDataObject)).toEqual({ redelivered: true, delivery_id: 'dlv_1' });
});

it('eventKindsAnswer: one record { name, description? } per kind in data; an answer without a list as it came', () => {
	expect(eventKindsAnswer(['post.created', { event: 'feed.synced', description: 'Synced' }])).toEqual({
		data: [{ name: 'post.created' }, { name: 'feed.synced', description: 'Synced' }],
	});
	expect(eventKindsAnswer({ data: [] })).toEqual({ data: [] });
	expect(eventKindsAnswer({ ok: true })).toEqual({ ok: true });
});
