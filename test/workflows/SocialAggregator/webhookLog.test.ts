/**
 * Webhook › Get Deliveries, Redeliver and Get Event Kinds, run as workflow JSON through n8n-core against the fake
 * service in both legal shapes: live, the delivery log is there; spec, its routes answer 404 as from a service that
 * keeps no log, which the node says in an item (not a failed run), and the event kinds come as bare names.
 */
import { SEEDED, SHAPES } from '../../fake-service';
import { useFakeService, type NodeRun } from '../support';
import { runNode, sent } from './helpers';

const fake = useFakeService();

const HOOK = SEEDED.webhooks.acmeActive;
const EVENT_NAMES = ['post.created', 'social_account.expiring', 'social_account.expired'];

function outputOf(run: NodeRun) {
	expect(run.error).toBeUndefined();
	for (const item of run.items) expect(item.pairedItem).toEqual({ item: 0 });
	return run.items.map((item) => item.json);
}

/** `count` deliveries to the seeded sink subscription (each answered 200), oldest first. */
async function deliveries(count: number) {
	for (let i = 0; i < count; i++) fake.control.syncFeed(SEEDED.feeds.brandMentions, { newPosts: 1 });
	await fake.control.webhooks.settle();
	return fake.control.webhooks.deliveries({ webhookId: HOOK });
}

/** A subscription whose receiver refuses every attempt, with one failed delivery. */
async function failingSubscription() {
	const created = await runNode(fake, {
		resource: 'webhook',
		operation: 'create',
		url: 'http://127.0.0.1:9/refused',
		events: ['post.created'],
		options: { allowHttp: true },
	});
	const id = Number(created.items[0].json.id);
	fake.control.syncFeed(SEEDED.feeds.brandMentions, { newPosts: 1 });
	await fake.control.webhooks.settle();
	return id;
}

const noLog = (webhookId: number) => ({
	deliveryLogOffered: false,
	webhookId,
	message: `The service keeps no delivery log for webhook ${webhookId}: it answers 404 to GET /webhooks/${webhookId}/deliveries although the subscription exists, so there are no deliveries to list or redeliver. Posts a paused or disabled subscription missed can be read with Post › Get Many.`,
});

describe.each(SHAPES)('in the %s shape', (shapes) => {
	const live = shapes === 'live';
	beforeEach(() => fake.control.setShapes(shapes));

	describe('Get Deliveries', () => {
		test(`with a Limit ${live ? 'outputs the newest deliveries of the log' : 'says in an item that the service keeps no delivery log'}`, async () => {
			const made = await deliveries(3);
			const run = await runNode(fake, { resource: 'webhook', operation: 'getDeliveries', webhookId: String(HOOK), limit: 2 });
			const log = { method: 'GET', path: `/webhooks/${HOOK}/deliveries`, query: { page: '1', per_page: '2' }, body: undefined };
			if (live) {
				expect(run.requests.map(sent)).toEqual([log]);
				expect(outputOf(run)).toEqual(
					[made[2], made[1]].map((d) => expect.objectContaining({ id: d.id, event: 'post.created', status: 'succeeded', attempts: 1, response_status: 200, created_at: d.createdAt })),
				);
			} else {
				// The 404 may be a missing subscription: the list says it exists, so it is the log the service lacks.
				expect(run.requests.map((r) => [r.method, r.path, r.status])).toEqual([
					['GET', log.path, 404],
					['GET', '/webhooks', 200],
				]);
				expect(outputOf(run)).toEqual([noLog(HOOK)]);
			}
		});

		test(`with Return All ${live ? 'pages through the whole log, each delivery once, newest first' : 'is the same one item'}`, async () => {
			const made = await deliveries(130);
			const run = await runNode(fake, { resource: 'webhook', operation: 'getDeliveries', webhookId: String(HOOK), returnAll: true });
			if (live) {
				expect(run.requests.map((r) => r.query)).toEqual([
					{ page: '1', per_page: '100' },
					{ page: '2', per_page: '100' },
				]);
				expect(outputOf(run).map((d) => d.id)).toEqual(made.map((d) => d.id).reverse());
			} else {
				expect(outputOf(run)).toEqual([noLog(HOOK)]);
			}
		});

		test('sends the Status filter as `status`', async () => {
			const id = await failingSubscription();
			await runNode(fake, { resource: 'webhook', operation: 'sendTest', webhookId: String(id) });
			await fake.control.webhooks.settle();
			const run = await runNode(fake, {
				resource: 'webhook',
				operation: 'getDeliveries',
				webhookId: String(id),
				returnAll: true,
				deliveryFilters: { status: 'failed' },
			});
			expect(run.requests[0].query).toEqual({ status: 'failed', page: '1', per_page: '100' });
			if (live) {
				const failed = fake.control.webhooks.deliveries({ webhookId: id });
				expect(failed.map((d) => d.state)).toEqual(['failed', 'failed']);
				expect(outputOf(run).map((d) => [d.id, d.status, d.attempts])).toEqual(failed.reverse().map((d) => [d.id, 'failed', d.attempts.length]));
			} else {
				expect(outputOf(run)).toEqual([noLog(id)]);
			}
		});

		test('of a subscription that does not exist is the 404 error (with Continue On Fail an error item)', async () => {
			const run = await runNode(fake, { resource: 'webhook', operation: 'getDeliveries', webhookId: '999', limit: 5 }, { onError: 'continueRegularOutput' });
			expect(run.requests.map((r) => [r.path, r.status])).toEqual([
				['/webhooks/999/deliveries', 404],
				['/webhooks', 200],
			]);
			expect(run.items).toHaveLength(1);
			expect(run.items[0].json).toMatchObject({
				error: live ? 'Webhook not found' : 'No route for GET /webhooks/999/deliveries',
				details: { httpCode: '404', code: 'not_found' },
			});
			const failed = await runNode(fake, { resource: 'webhook', operation: 'getDeliveries', webhookId: '999', limit: 5 });
			expect(failed.error).toMatchObject({ httpCode: '404' });
			expect(failed.items).toEqual([]);
		});
	});

	describe('Redeliver', () => {
		test(`${live ? 'sends the delivery again, with its ID and signature' : 'says in an item that the service keeps no delivery log: nothing was sent'}`, async () => {
			const [delivery] = await deliveries(1);
			const run = await runNode(fake, { resource: 'webhook', operation: 'redeliver', webhookId: String(HOOK), deliveryId: ` ${delivery.id} ` });
			const redeliver = { method: 'POST', path: `/webhooks/${HOOK}/deliveries/${delivery.id}/redeliver`, query: {}, body: undefined };
			await fake.control.webhooks.settle();
			const [after] = fake.control.webhooks.deliveries({ webhookId: HOOK });
			if (live) {
				expect(run.requests.map(sent)).toEqual([redeliver]);
				expect(run.requests[0].status).toBe(202);
				expect(outputOf(run)).toEqual([{ redelivered: true, delivery_id: delivery.id, event: 'post.created' }]);
				expect(after.attempts).toHaveLength(2);
				expect(after.signature).toBe(delivery.signature);
			} else {
				// A 404 to a redelivery: the subscription exists, and the log answers 404 too, so it is the route.
				expect(run.requests.map((r) => [r.method, r.path, r.status])).toEqual([
					['POST', redeliver.path, 404],
					['GET', '/webhooks', 200],
					['GET', `/webhooks/${HOOK}/deliveries`, 404],
				]);
				expect(outputOf(run)).toEqual([{ redelivered: false, ...noLog(HOOK), deliveryId: delivery.id }]);
				expect(after.attempts).toHaveLength(1);
			}
		});

		test(`of a delivery ${live ? 'not in the log is the 404 error: the log answers, the delivery is missing' : 'the service cannot tell apart from a missing log is the no-log item'}`, async () => {
			const run = await runNode(fake, { resource: 'webhook', operation: 'redeliver', webhookId: String(HOOK), deliveryId: 'dlv_missing' });
			expect(run.requests.map((r) => [r.method, r.path, r.status])).toEqual([
				['POST', `/webhooks/${HOOK}/deliveries/dlv_missing/redeliver`, 404],
				['GET', '/webhooks', 200],
				['GET', `/webhooks/${HOOK}/deliveries`, live ? 200 : 404],
			]);
			if (live) expect(run.error).toMatchObject({ httpCode: '404', message: 'Delivery not found' });
			else expect(outputOf(run)).toEqual([{ redelivered: false, ...noLog(HOOK), deliveryId: 'dlv_missing' }]);
		});

		test('of a subscription that does not exist is the 404 error', async () => {
			const run = await runNode(fake, { resource: 'webhook', operation: 'redeliver', webhookId: '999', deliveryId: 'dlv_1' });
			expect(run.requests.map((r) => [r.method, r.path])).toEqual([
				['POST', '/webhooks/999/deliveries/dlv_1/redeliver'],
				['GET', '/webhooks'],
			]);
			expect(run.error).toMatchObject({ httpCode: '404' });
		});
	});

	test(`Get Event Kinds outputs one item per event ${live ? 'with its description' : 'from the bare names'}`, async () => {
		const run = await runNode(fake, { resource: 'webhook', operation: 'getEventKinds' });
		expect(run.requests.map(sent)).toEqual([{ method: 'GET', path: '/webhook_events', query: {}, body: undefined }]);
		expect(outputOf(run)).toEqual(EVENT_NAMES.map((name) => (live ? { name, description: expect.any(String) } : { name })));
	});
});

describe('Redeliver', () => {
	test('an empty Delivery ID is refused before any request; one with a slash stays one path segment', async () => {
		const empty = await runNode(fake, { resource: 'webhook', operation: 'redeliver', webhookId: String(HOOK), deliveryId: '  ' });
		expect(empty.requests).toEqual([]);
		expect(empty.error?.message).toBe('The Delivery ID is empty [item 0]');
		const slashed = await runNode(fake, { resource: 'webhook', operation: 'redeliver', webhookId: String(HOOK), deliveryId: 'dlv_a/../b' });
		expect(slashed.requests[0].path).toBe(`/webhooks/${HOOK}/deliveries/dlv_a%2F..%2Fb/redeliver`);
	});

	test('a redelivery whose connection drops after the service acted is not repeated: check the log first', async () => {
		const [delivery] = await deliveries(1);
		fake.control.injectFault({ kind: 'drop', method: 'POST', path: '/webhooks/:id/deliveries/:delivery/redeliver', when: 'after' });
		const run = await runNode(fake, { resource: 'webhook', operation: 'redeliver', webhookId: String(HOOK), deliveryId: delivery.id });
		expect(run.requests).toHaveLength(1);
		expect(run.error?.description).toContain('The service may have acted on the request');
		expect(run.error?.description).toContain('the delivery log (Webhook › Get Deliveries)');
	});
});

describe('Get Event Kinds', () => {
	test('reads every legal shape as the events dropdown does: objects by name or event, names, in data or not', async () => {
		fake.control.answers.add({
			path: '/webhook_events',
			body: { data: [{ event: 'post.created', description: 'New posts' }, 'feed.synced', { name: 'post.created' }, { description: 'nameless' }] },
		});
		const run = await runNode(fake, { resource: 'webhook', operation: 'getEventKinds' });
		expect(outputOf(run)).toEqual([{ name: 'post.created', description: 'New posts' }, { name: 'feed.synced' }]);
		fake.control.answers.add({ path: '/webhook_events', body: { events: ['post.created'] } });
		expect(outputOf(await runNode(fake, { resource: 'webhook', operation: 'getEventKinds' }))).toEqual([{ name: 'post.created' }]);
	});

	test('an answer without a list is an unusable answer naming the request, not zero items', async () => {
		fake.control.answers.add({ path: '/webhook_events', body: { ok: true } });
		const run = await runNode(fake, { resource: 'webhook', operation: 'getEventKinds' });
		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe("The service's answer to GET /webhook_events (HTTP 200) cannot be used: `data` is missing");
	});
});
