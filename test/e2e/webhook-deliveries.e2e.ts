/**
 * Webhook › Get Deliveries, Redeliver and Get Event Kinds and Post › Moderate Many in a real n8n against the
 * stand-in, in both of its legal shapes (one n8n start, the shape switched between runs): live, the delivery log
 * lists the subscription's deliveries, a failed one is found by its status and redelivered (the same ID and body,
 * signed, at the receiver); spec, the log's routes answer 404 as from a service that keeps no log, and the run still
 * succeeds, each log operation saying so in an item that a Filter node after it branches on. The bulk action
 * answers a count (a delete 204) live and a result per post in spec; both come out as the same summary.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';

import { SEEDED } from '../fake-service';
import type { FakeService } from '../fake-service';
import { e2eSuite, node, recordTiming, workflow, type NodeInput } from './lib';

/** The subscription the test creates: the seeded ones are 1 and 2, so the stand-in gives it 3 after each reset. */
const WEBHOOK_ID = 3;
const FEED = SEEDED.feeds.brandMentions;
const once = { executeOnce: true };
const sa = (name: string, parameters: Record<string, unknown>, extra: Partial<NodeInput> = {}) =>
	node('socialAggregator', parameters as NodeInput['parameters'], { name, ...once, ...extra });
const feedById = { __rl: true, mode: 'id', value: String(FEED) };

/** A webhook receiver on loopback: answers 500 while `failing`, else 200; keeps each delivery's raw body and signature. */
class Receiver {
	failing = false;
	received: Array<{ raw: string; signature: string }> = [];
	url = '';
	private readonly server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			if (!this.failing) {
				this.received.push({ raw: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-socialaggregator-signature'] ?? req.headers['x-service-signature']) });
			}
			res.writeHead(this.failing ? 500 : 200).end();
		});
	});

	async listen(): Promise<void> {
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
	}

	async close(): Promise<void> {
		await new Promise((resolve) => this.server.close(resolve));
	}

	idsReceived(): string[] {
		return this.received.map((delivery) => (JSON.parse(delivery.raw) as { id: string }).id);
	}
}

/** Posts of the seeded feed picked once: the stand-in's reset brings them back to these states before each shape. */
function pickPosts(fake: FakeService) {
	const inState = (status: string, count: number) => {
		const ids: number[] = [];
		for (let id = SEEDED.firstPostId; ids.length < count; id++) {
			const post = fake.control.getPost(id);
			if (post?.feed_id === FEED && post.moderation_status === status) ids.push(id);
		}
		return ids;
	};
	return { held: inState('moderated', 2), shown: inState('public', 2), elsewhere: SEEDED.firstPostId + 130 };
}

function logWorkflow(posts: ReturnType<typeof pickPosts>) {
	const hook = String(WEBHOOK_ID);
	return workflow('E2E webhook log and bulk moderation', [
		sa('Send Test', { resource: 'webhook', operation: 'sendTest', webhookId: hook }),
		sa('Redeliver Test', { resource: 'webhook', operation: 'redeliver', webhookId: hook, deliveryId: "={{ $('Send Test').first().json.delivery_id }}" }),
		sa('Deliveries', { resource: 'webhook', operation: 'getDeliveries', webhookId: hook, limit: 5 }),
		sa('Event Kinds', { resource: 'webhook', operation: 'getEventKinds' }),
		sa('Approve Many', { resource: 'post', operation: 'moderateMany', feedId: feedById, bulkAction: 'approve', postIds: [...posts.held, posts.elsewhere].join(', ') }),
		sa('Delete Many', { resource: 'post', operation: 'moderateMany', feedId: feedById, bulkAction: 'delete', postIds: posts.shown.join(', ') }),
		sa('Failed Deliveries', { resource: 'webhook', operation: 'getDeliveries', webhookId: hook, returnAll: true, deliveryFilters: { status: 'failed' } }),
		// What a workflow builder adds after a delivery-log read: go on only where the service keeps a log.
		node(
			'n8n-nodes-base.filter',
			{
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{
							id: '0d8f7f0e-6a51-4f0e-9a55-7f3c2f1b9e01',
							leftValue: '={{ $json.deliveryLogOffered !== false }}',
							rightValue: '',
							operator: { type: 'boolean', operation: 'true', singleValue: true },
						},
					],
					combinator: 'and',
				},
				options: {},
			},
			{ name: 'Logged Failures', typeVersion: 2.2 },
		),
		node('socialAggregator', { resource: 'webhook', operation: 'redeliver', webhookId: hook, deliveryId: '={{ $json.id }}' }, { name: 'Redeliver Failed' }),
	]);
}

describe('the webhook delivery log, redelivery, event kinds and bulk moderation in a real n8n, in both shapes', () => {
	const receiver = new Receiver();
	let workflowId = '';
	let posts: ReturnType<typeof pickPosts>;
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n, backend }) => {
			await receiver.listen();
			posts = pickPosts(backend.fake!);
			workflowId = await n8n.importWorkflow(logWorkflow(posts));
		},
	});
	after(async () => await receiver.close());

	/**
	 * The stand-in in a shape, from its seed: the receiver's subscription with one delivery that failed for good (its
	 * six attempts answered 500), then the receiver answering again. Its secret, to check signatures with.
	 */
	async function prepare(shapes: 'live' | 'spec'): Promise<{ secret: string; failed: string }> {
		const fake = ctx.backend.fake!;
		fake.control.reset();
		fake.control.setShapes(shapes);
		const created = await fetch(`${ctx.backend.url}/webhooks`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${fake.control.keys.owner}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({ url: receiver.url, subscribed_events: ['post.created'] }),
		});
		const subscription = ((await created.json()) as { data: { id: number; secret: string } }).data;
		assert.equal(subscription.id, WEBHOOK_ID);
		receiver.failing = true;
		fake.control.syncFeed(FEED, { newPosts: 1, sourceId: SEEDED.sources.twitterAcme });
		await fake.control.webhooks.settle();
		const [failed] = fake.control.webhooks.deliveries({ webhookId: WEBHOOK_ID });
		assert.equal(failed.state, 'failed');
		receiver.failing = false;
		receiver.received = [];
		return { secret: subscription.secret, failed: failed.id };
	}

	const signed = (secret: string, raw: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

	it('live: the log lists the deliveries, the failed one is found by status and redelivered signed, with the test delivery', async () => {
		const fake = ctx.backend.fake!;
		const { secret, failed } = await prepare('live');
		const started = Date.now();
		const run = await ctx.n8n.runManually(workflowId);
		recordTiming('webhook log and bulk moderation, live shape (manual run, wall)', Date.now() - started);
		await fake.control.webhooks.settle();
		assert.equal(run.status, 'success', JSON.stringify(run.error));

		const test = run.items('Send Test')[0].delivery_id as string;
		assert.deepEqual(run.items('Redeliver Test'), [{ redelivered: true, delivery_id: test, event: 'post.created' }]);
		// Newest first; the test delivery may still be on its way again when the log is read.
		const [latest, earlier] = run.items('Deliveries');
		assert.equal(run.items('Deliveries').length, 2);
		assert.deepEqual([latest.id, latest.event], [test, 'post.created']);
		assert.ok(['succeeded', 'pending'].includes(String(latest.status)), String(latest.status));
		assert.deepEqual([earlier.id, earlier.event, earlier.status, earlier.attempts], [failed, 'post.created', 'failed', 6]);
		assert.deepEqual(
			run.items('Event Kinds').map((kind) => [kind.name, typeof kind.description]),
			[
				['post.created', 'string'],
				['social_account.expiring', 'string'],
				['social_account.expired', 'string'],
			],
		);
		assert.deepEqual(run.items('Failed Deliveries').map((d) => d.id), [failed]);
		assert.deepEqual(run.items('Redeliver Failed'), [{ redelivered: true, delivery_id: failed, event: 'post.created' }]);

		// At the receiver: the test delivery twice, the failed one once more, each with its own ID, body and signature.
		assert.deepEqual([...receiver.idsReceived()].sort(), [test, test, failed].sort());
		const [original] = fake.control.webhooks.deliveries({ webhookId: WEBHOOK_ID }).filter((d) => d.id === failed);
		const again = receiver.received.find((delivery) => delivery.raw === original.body);
		assert.ok(again, 'the failed delivery came again with its body unchanged');
		assert.equal(again.signature, signed(secret, again.raw));

		assert.deepEqual(run.items('Approve Many'), [{ action: 'approve', ids: [...posts.held, posts.elsewhere], count: 2 }]);
		assert.deepEqual(run.items('Delete Many'), [{ action: 'delete', ids: posts.shown, count: 2 }]);
		for (const id of posts.held) assert.equal(fake.control.getPost(id)?.moderation_status, 'public');
		for (const id of posts.shown) assert.equal(fake.control.getPost(id)?.deleted, true);
		const bulk = fake.control.requests.list({ method: 'POST', path: `/feeds/${FEED}/posts/bulk` });
		assert.deepEqual(
			bulk.map((request) => [request.body, request.status]),
			[
				[{ action: 'approve', ids: [...posts.held, posts.elsewhere] }, 200],
				[{ action: 'delete', ids: posts.shown }, 204],
			],
		);
	});

	it('spec: a service that keeps no delivery log is an item that says so, not a failed run; nothing is redelivered', async () => {
		const fake = ctx.backend.fake!;
		const { failed } = await prepare('spec');
		const started = Date.now();
		const run = await ctx.n8n.runManually(workflowId);
		recordTiming('webhook log and bulk moderation, spec shape (manual run, wall)', Date.now() - started);
		await fake.control.webhooks.settle();
		assert.equal(run.status, 'success', JSON.stringify(run.error));

		const test = run.items('Send Test')[0].delivery_id as string;
		const noLog = {
			deliveryLogOffered: false,
			webhookId: WEBHOOK_ID,
			message: `The service keeps no delivery log for webhook ${WEBHOOK_ID}: it answers 404 to GET /webhooks/${WEBHOOK_ID}/deliveries although the subscription exists, so there are no deliveries to list or redeliver. Posts a paused or disabled subscription missed can be read with Post › Get Many.`,
		};
		assert.deepEqual(run.items('Redeliver Test'), [{ redelivered: false, ...noLog, deliveryId: test }]);
		assert.deepEqual(run.items('Deliveries'), [noLog]);
		assert.deepEqual(run.items('Failed Deliveries'), [noLog]);
		// The Filter stops there: nothing to redeliver, and the run still ends well.
		assert.deepEqual(run.items('Logged Failures'), []);
		assert.ok(!run.nodesRun.includes('Redeliver Failed'));
		// The test delivery once, the failed one never again.
		assert.deepEqual(receiver.idsReceived(), [test]);
		assert.ok(!receiver.idsReceived().includes(failed));
		const logRoutes = fake.control.requests.list().filter((request) => request.path.includes('/deliveries'));
		assert.ok(logRoutes.length > 0 && logRoutes.every((request) => request.status === 404));

		assert.deepEqual(run.items('Event Kinds'), [{ name: 'post.created' }, { name: 'social_account.expiring' }, { name: 'social_account.expired' }]);
		const [approved] = run.items('Approve Many');
		assert.deepEqual([approved.action, approved.ids, approved.count, approved.failedIds], ['approve', [...posts.held, posts.elsewhere], 2, [posts.elsewhere]]);
		assert.equal((approved.results as unknown[]).length, 3);
		const [deleted] = run.items('Delete Many');
		assert.deepEqual([deleted.action, deleted.ids, deleted.count, deleted.failedIds], ['delete', posts.shown, 2, []]);
		for (const id of posts.shown) assert.equal(fake.control.getPost(id)?.deleted, true);
	});
});
