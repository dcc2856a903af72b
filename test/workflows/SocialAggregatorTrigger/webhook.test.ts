import type { IDataObject } from 'n8n-workflow';

import type * as TriggerNode from '../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node';
import type { ProcessedStore } from '../../../nodes/SocialAggregatorTrigger/deliveryMemory';
import { firstTimeItems } from '../../../nodes/SocialAggregatorTrigger/seenDeliveries';
import { SHAPES, start, type FakeService } from '../../fake-service';
import { logLines, triggerHarness, type TriggerHarness, type TriggerMode } from '../harness';
import { credentialsFor } from '../support';
import { Receiver } from './receiver';

const TYPE = 'n8n-nodes-social-aggregator.socialAggregatorTrigger';
const BRAND_FEED = 1;
const TWITTER_SOURCE = 1;

let fake: FakeService;
const receiver = new Receiver();

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
	const response = await fetch(`${fake.url}${path}`, {
		method,
		headers: { Authorization: `Bearer ${fake.control.keys.owner}`, 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function subscriptionsAt(url: string): Promise<Array<{ id: number; status: string; subscribed_events: string[] }>> {
	const list = await api('GET', '/webhooks?per_page=100');
	return list.body.data.filter((w: { url: string }) => w.url === url);
}

// n8n-core and our node share one n8n-workflow, as in n8n: the fresh copies below take the one loaded.
const n8nWorkflow = jest.requireActual<object>('n8n-workflow');
jest.doMock('n8n-workflow', () => n8nWorkflow);

/** The node as a fresh process loads it: its modules anew, nothing remembered. */
function freshNode(): TriggerNode.SocialAggregatorTrigger {
	let node: TriggerNode.SocialAggregatorTrigger | undefined;
	jest.isolateModules(() => {
		const fresh = require('../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node') as typeof TriggerNode;
		node = new fresh.SocialAggregatorTrigger();
	});
	return node!;
}

/** A trigger in a fresh n8n process: only the static data given carries over. */
function trigger(options: { mode?: TriggerMode; parameters?: IDataObject; staticData?: IDataObject } = {}): TriggerHarness {
	const harness = triggerHarness({
		// The harness runs this copy, not the node it loads and caches once per test file.
		nodeTypes: { [TYPE]: freshNode() },
		node: {
			type: TYPE,
			parameters: {
				events: ['post.created'],
				output: 'eachPost',
				...options.parameters,
				options: { allowHttp: true, ...((options.parameters?.options as object) ?? {}) },
			},
		},
		credentials: credentialsFor(fake),
		mode: options.mode ?? 'trigger',
		webhookUrl: receiver.url,
		staticData: options.staticData,
	});
	receiver.trigger = harness;
	return harness;
}

function storedId(harness: TriggerHarness, slot: 'live' | 'test' = 'live'): number {
	const subscriptions = harness.staticData.subscriptions as Record<string, { id: string }> | undefined;
	return Number(subscriptions?.[slot]?.id);
}

function storedSecret(harness: TriggerHarness): string {
	return (harness.staticData.subscriptions as Record<string, { secret: string }>).live.secret;
}

beforeAll(async () => {
	fake = await start({ port: 0, allowHttpWebhooks: true });
	await receiver.start();
});

afterAll(async () => {
	await fake.control.webhooks.settle({ timeoutMs: 5000 }).catch(() => undefined);
	await receiver.stop();
	await fake.close();
});

beforeEach(() => {
	fake.control.reset();
	receiver.clear();
	receiver.trigger = undefined;
	logLines.length = 0;
});

// Every test in both legal shapes of the service's answers (test/fake-service/README.md, Shapes): the live one
// signs in X-SocialAggregator-Signature and has no GET /webhooks/{id}.
describe.each(SHAPES)('in the %s shape', (shapes) => {
	beforeEach(() => fake.control.setShapes(shapes));

	describe('deliveries from the service', () => {
		test('a real signed post.created delivery gives one item per post with feed, source and event id', async () => {
			const harness = trigger();
			expect(await harness.activate()).toBe(true);
			const sync = fake.control.syncFeed(BRAND_FEED, { newPosts: 2, sourceId: TWITTER_SOURCE });
			await fake.control.webhooks.settle();

			const ours = fake.control.webhooks.deliveries({ webhookId: storedId(harness) });
			expect(ours).toHaveLength(1);
			expect(ours[0].state).toBe('succeeded');
			const body = JSON.parse(ours[0].body);
			expect(receiver.received.map((r) => [r.deliveryId, r.status])).toEqual([[body.id, 200]]);

			const items = receiver.items().map((i) => i.json);
			expect(items.map((i) => i.id)).toEqual(sync.posts.map((p) => p.id));
			for (const item of items) {
				expect(item).toMatchObject({
					event: 'post.created',
					event_id: body.id,
					occurred_at: body.occurred_at,
					feed: expect.objectContaining({ id: BRAND_FEED }),
					source: expect.objectContaining({ id: TWITTER_SOURCE }),
				});
			}
		});

		test('one item per delivery keeps the body as sent', async () => {
			const harness = trigger({ parameters: { output: 'eachDelivery' } });
			await harness.activate();
			fake.control.syncFeed(BRAND_FEED, { newPosts: 3, sourceId: TWITTER_SOURCE });
			await fake.control.webhooks.settle();
			const [delivery] = fake.control.webhooks.deliveries({ webhookId: storedId(harness) });
			expect(receiver.items().map((i) => i.json)).toEqual([JSON.parse(delivery.body)]);
		});

		test('tampered body, wrong secret, missing header, truncated signature and another delivery’s signature: 401 and no items', async () => {
			const harness = trigger();
			await harness.activate();
			const webhookId = storedId(harness);
			const secret = storedSecret(harness);
			fake.control.syncFeed(BRAND_FEED, { newPosts: 1, sourceId: TWITTER_SOURCE });
			await fake.control.webhooks.settle();
			const [real] = fake.control.webhooks.deliveries({ webhookId });
			receiver.clear();

			// Bodies never received before, so only the signature can explain a refusal.
			const fresh = (n: number) => {
				const body = JSON.parse(real.body);
				body.id = `dlv_forged_${n}`;
				return JSON.stringify(body);
			};
			const attempts = [
				{ label: 'tampered body', body: real.body.replace('"post.created"', '"post.created" '), signature: real.signature },
				{ label: 'wrong secret', body: fresh(1), secret: 'whsec_not_the_right_one_0000000000000000' },
				{ label: 'missing header', body: fresh(2), signature: null },
				{ label: 'truncated signature', body: fresh(3), signature: real.signature.slice(0, real.signature.length - 8) },
				{ label: 'another delivery’s signature', body: fresh(4), signature: real.signature },
			];
			for (const attempt of attempts) {
				const result = await fake.control.webhooks.deliver({ webhookId, ...attempt });
				expect([attempt.label, result.status]).toEqual([attempt.label, 401]);
			}
			await fake.control.webhooks.settle();
			expect(receiver.received.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
			expect(receiver.items()).toEqual([]);

			// The same fresh body signed with the subscription's secret is accepted: the refusals were the signature's doing.
			const good = await fake.control.webhooks.deliver({ webhookId, body: fresh(1) });
			expect(good.status).toBe(200);
			expect(receiver.items()).toHaveLength(1);

			const logged = JSON.stringify(logLines);
			expect(logged).toContain('401');
			expect(logged).not.toContain(secret);
			expect(logged).not.toContain(real.signature.slice(7));
		});

		test('with Max Age, a signed delivery that occurred longer ago gets 422 and starts nothing; a fresh one runs', async () => {
			const harness = trigger({ parameters: { options: { maxAge: 60 } } });
			await harness.activate();
			const webhookId = storedId(harness);
			const body = (id: string, minutesAgo: number) =>
				JSON.stringify({ id, event: 'post.created', occurred_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(), data: { posts: [{ id: 1 }] } });
			const stale = await fake.control.webhooks.deliver({ webhookId, body: body('dlv_replayed', 61) });
			expect(stale.status).toBe(422);
			expect(JSON.parse(stale.responseBody)).toEqual({ error: { code: 'stale_delivery', message: 'The delivery is older than 60 minutes' } });
			expect(receiver.items()).toEqual([]);
			expect(JSON.stringify(logLines)).toContain('dlv_replayed with 422');

			const fresh = await fake.control.webhooks.deliver({ webhookId, body: body('dlv_fresh', 1) });
			expect(fresh.status).toBe(200);
			expect(receiver.items().map((i) => i.json.event_id)).toEqual(['dlv_fresh']);
			// Refused, not handled: the same delivery is taken once the option allows it.
			harness.setParameters({ options: { allowHttp: true, maxAge: 0 } });
			const again = await fake.control.webhooks.deliver({ webhookId, body: body('dlv_replayed', 61) });
			expect(again.status).toBe(200);
			expect(receiver.items().map((i) => i.json.event_id)).toEqual(['dlv_fresh', 'dlv_replayed']);
		});

		test('a delivery over 5 MB gets 413 before its signature is checked, and starts nothing', async () => {
			const harness = trigger();
			await harness.activate();
			const webhookId = storedId(harness);
			const withMessage = (message: string) => JSON.stringify({ id: 'dlv_big', event: 'post.created', data: { posts: [{ id: 1, message }] } });
			const big = withMessage('x'.repeat(5 * 1024 * 1024));
			const signedBig = await fake.control.webhooks.deliver({ webhookId, body: big });
			const forgedBig = await fake.control.webhooks.deliver({ webhookId, body: big, secret: 'whsec_not_the_right_one_0000000000000000' });
			expect([signedBig.status, forgedBig.status]).toEqual([413, 413]);
			expect(JSON.parse(signedBig.responseBody)).toEqual({ error: { code: 'payload_too_large', message: 'A delivery may hold at most 5 MB' } });
			expect(receiver.items()).toEqual([]);
			expect(logLines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
				expect.stringMatching(/refused a delivery with 413: \d+ bytes, more than the 5242880 bytes/),
				expect.stringMatching(/refused a delivery with 413/),
			]);
			const small = await fake.control.webhooks.deliver({ webhookId, body: withMessage('x') });
			expect(small.status).toBe(200);
		});

		test('the same delivery retried three times is emitted once, also after a restart', async () => {
			const harness = trigger();
			await harness.activate();
			fake.control.syncFeed(BRAND_FEED, { newPosts: 2, sourceId: TWITTER_SOURCE });
			await fake.control.webhooks.settle();
			const [delivery] = fake.control.webhooks.deliveries({ webhookId: storedId(harness) });
			for (let i = 0; i < 3; i++) await fake.control.webhooks.redeliver(delivery.id);
			await fake.control.webhooks.settle();

			// A delivery counts as handled once its execution ran (execute(), which this receiver does not run): until
			// then each copy is emitted again, and the execution's check below passes it on once.
			expect(receiver.received.map((r) => [r.deliveryId, r.status])).toEqual(Array(4).fill([delivery.id, 200]));
			// The first also carries the look back of the first delivery a process receives.
			expect(receiver.received.map((r) => r.items.length)).toEqual([3, 2, 2, 2]);
			expect(receiver.lookedBack()).toEqual([delivery.id]);

			// n8n restarts: the process memory is gone, so webhook() emits the retry again; the execution
			// phase (execute(), over n8n's database, here a list standing in for it) passes it on no more.
			const database: string[] = [];
			const store: ProcessedStore = {
				checkAndRecord: async (ids) => {
					const fresh = ids.filter((id) => !database.includes(id));
					database.push(...fresh);
					return { new: fresh, processed: ids.filter((id) => !fresh.includes(id)) };
				},
			};
			const first = await firstTimeItems(receiver.itemsOf(receiver.received[0]), store, 'wf:node');
			expect(first.items).toHaveLength(2);
			trigger({ staticData: harness.staticData });
			await fake.control.webhooks.redeliver(delivery.id);
			const afterRestart = receiver.received.at(-1)!;
			expect(afterRestart).toMatchObject({ deliveryId: delivery.id, status: 200 });
			expect(receiver.itemsOf(afterRestart)).toHaveLength(2);
			const again = await firstTimeItems(receiver.itemsOf(afterRestart), store, 'wf:node');
			expect(again).toEqual({ items: [], duplicates: [delivery.id] });
			expect(fake.control.webhooks.deliveries({ webhookId: storedId(harness) })[0].attempts).toHaveLength(5);
		});

		test('the fake’s own retries after a failed attempt are emitted once', async () => {
			const harness = trigger();
			await harness.activate();
			// The first attempt reaches no trigger (503), the service retries the same delivery.
			receiver.trigger = undefined;
			fake.control.syncFeed(BRAND_FEED, { newPosts: 1, sourceId: TWITTER_SOURCE });
			await fake.control.webhooks.settle({ fastForward: false, timeoutMs: 50 }).catch(() => undefined);
			receiver.trigger = harness;
			await fake.control.webhooks.settle();
			const [delivery] = fake.control.webhooks.deliveries({ webhookId: storedId(harness) });
			expect(delivery.state).toBe('succeeded');
			expect(delivery.attempts.length).toBeGreaterThanOrEqual(2);
			expect(receiver.items()).toHaveLength(1);
		});
	});

	describe('subscription lifecycle against the service', () => {
		test('create, exists, delete; a subscription already gone is fine', async () => {
			const harness = trigger({ parameters: { events: ['post.created', 'social_account.expiring'] } });
			expect(await harness.checkExists()).toBe(false);
			expect(await harness.create()).toBe(true);
			const id = storedId(harness);
			expect(await subscriptionsAt(receiver.url)).toEqual([
				expect.objectContaining({ id, status: 'active', subscribed_events: ['post.created', 'social_account.expiring'] }),
			]);
			expect(await harness.checkExists()).toBe(true);
			expect(await harness.activate()).toBe(false);

			expect(await harness.delete()).toBe(true);
			expect((await api('GET', `/webhooks/${id}`)).status).toBe(404);
			expect(harness.staticData.subscriptions).toEqual({});

			await harness.create();
			const second = storedId(harness);
			await api('DELETE', `/webhooks/${second}`);
			fake.control.requests.clear();
			expect(await harness.delete()).toBe(true);
			expect(fake.control.requests.list({ method: 'DELETE' }).map((r) => [r.path, r.status])).toEqual([[`/webhooks/${second}`, 404]]);
		});

		test('a disabled subscription is set active again, keeping its id and secret, and asked for the catch-up test delivery', async () => {
			const harness = trigger();
			await harness.activate();
			const old = storedId(harness);
			const oldSecret = storedSecret(harness);
			fake.control.webhooks.setStatus(old, 'disabled');
			fake.control.requests.clear();

			// Found and set right: nothing to create.
			expect(await harness.activate()).toBe(false);
			expect(storedId(harness)).toBe(old);
			expect(storedSecret(harness)).toBe(oldSecret);
			expect(await subscriptionsAt(receiver.url)).toEqual([expect.objectContaining({ id: old, status: 'active' })]);
			const writes = fake.control.requests.list().filter((r) => r.method !== 'GET');
			expect(writes.map((r) => [r.method, r.path])).toEqual([
				['PATCH', `/webhooks/${old}`],
				['POST', `/webhooks/${old}/test`],
			]);
			await fake.control.webhooks.settle();
			// The test delivery reached the trigger: webhook() hands it to the execution with the catch-up signal.
			expect(receiver.received.map((r) => r.status)).toEqual([200]);
			// The test delivery that asks for the catch-up looks back (and, test deliveries on, runs marked test).
			expect(receiver.lookedBack()).toHaveLength(1);
			expect(receiver.items().at(-1)?.json).toMatchObject({ test: true });
			receiver.clear();

			fake.control.syncFeed(BRAND_FEED, { newPosts: 1, sourceId: TWITTER_SOURCE });
			await fake.control.webhooks.settle();
			expect(receiver.received.map((r) => r.status)).toEqual([200]);
			expect(receiver.items()).toHaveLength(1);
		});

		test('unpublished while disabled, the subscription is kept, paused, and publishing again sets it active and asks for the catch-up', async () => {
			const harness = trigger();
			await harness.activate();
			const old = storedId(harness);
			fake.control.webhooks.setStatus(old, 'disabled');
			expect(await harness.delete()).toBe(true);
			expect(await subscriptionsAt(receiver.url)).toEqual([expect.objectContaining({ id: old, status: 'paused' })]);
			fake.control.requests.clear();
			expect(await harness.activate()).toBe(false);
			expect(storedId(harness)).toBe(old);
			expect(fake.control.requests.list().filter((r) => r.method !== 'GET').map((r) => [r.method, r.path])).toEqual([
				['PATCH', `/webhooks/${old}`],
				['POST', `/webhooks/${old}/test`],
			]);
			// An active one is deleted on unpublishing, as before.
			expect(await harness.delete()).toBe(true);
			expect(await subscriptionsAt(receiver.url)).toEqual([]);
		});

		test('with catch-up off, a disabled subscription is set active again and no test delivery is asked for', async () => {
			const harness = trigger({ parameters: { options: { catchUpDays: 0 } } });
			await harness.activate();
			const old = storedId(harness);
			fake.control.webhooks.setStatus(old, 'paused');
			fake.control.requests.clear();
			expect(await harness.activate()).toBe(false);
			expect(storedId(harness)).toBe(old);
			expect(fake.control.requests.list().filter((r) => r.method !== 'GET').map((r) => [r.method, r.path])).toEqual([['PATCH', `/webhooks/${old}`]]);
		});

		test('a subscription with other events is replaced', async () => {
			const harness = trigger();
			await harness.activate();
			const old = storedId(harness);
			harness.setParameters({ events: ['post.created', 'social_account.expired'] });
			expect(await harness.activate()).toBe(true);
			expect(await subscriptionsAt(receiver.url)).toEqual([
				expect.objectContaining({ id: storedId(harness), subscribed_events: ['post.created', 'social_account.expired'] }),
			]);
			expect(storedId(harness)).not.toBe(old);
		});

		test('an orphan at the same URL (its secret lost) is removed before registering', async () => {
			const orphan = await api('POST', '/webhooks', { url: receiver.url, subscribed_events: ['post.created'] });
			expect(orphan.status).toBe(201);
			const harness = trigger();
			fake.control.requests.clear();
			expect(await harness.activate()).toBe(true);

			const calls = fake.control.requests.list({ path: /^\/webhooks/ }).map((r) => `${r.method} ${r.path} ${r.status}`);
			const deleted = calls.indexOf(`DELETE /webhooks/${orphan.body.data.id} 204`);
			expect(deleted).toBeGreaterThanOrEqual(0);
			expect(deleted).toBeLessThan(calls.indexOf('POST /webhooks 201'));
			expect((await subscriptionsAt(receiver.url)).map((w) => w.id)).toEqual([storedId(harness)]);

			// With one subscription at the URL, a sync is delivered once and verifies.
			fake.control.syncFeed(BRAND_FEED, { newPosts: 1, sourceId: TWITTER_SOURCE });
			await fake.control.webhooks.settle();
			expect(receiver.received.map((r) => r.status)).toEqual([200]);
		});

		test('in test mode a test delivery is requested once, shown once, and the test subscription removed afterwards', async () => {
			const harness = trigger({ mode: 'manual', parameters: { options: { includeTestDeliveries: false } } });
			fake.control.requests.clear();
			expect(await harness.activate()).toBe(true);
			const id = storedId(harness, 'test');
			await fake.control.webhooks.settle();

			expect(fake.control.requests.list({ method: 'POST', path: /^\/webhooks\/\d+\/test$/ }).map((r) => r.path)).toEqual([
				`/webhooks/${id}/test`,
			]);
			// The delivery may reach n8n before the secret is saved (then the service retries it): it is shown exactly once.
			const items = receiver.items().map((i) => i.json);
			expect(items).toHaveLength(1);
			expect(items[0]).toMatchObject({ test: true, event: 'post.created', message: 'This is a test delivery' });
			expect(receiver.received.at(-1)?.status).toBe(200);

			expect(await harness.delete()).toBe(true);
			expect((await api('GET', `/webhooks/${id}`)).status).toBe(404);
			expect(await subscriptionsAt(receiver.url)).toEqual([]);
		});

		test('an active workflow ignores test deliveries when they are turned off', async () => {
			const harness = trigger({ parameters: { options: { includeTestDeliveries: false } } });
			await harness.activate();
			expect((await api('POST', `/webhooks/${storedId(harness)}/test`)).status).toBe(202);
			await fake.control.webhooks.settle();
			expect(receiver.received.map((r) => r.status)).toEqual([200]);
			// No test item: only the look back, which execute() takes out; with catch-up off, nothing at all.
			expect(receiver.items()).toEqual([]);
			expect(receiver.lookedBack()).toHaveLength(1);
			harness.setParameters({ options: { allowHttp: true, includeTestDeliveries: false, catchUpDays: 0 } });
			receiver.clear();
			expect((await api('POST', `/webhooks/${storedId(harness)}/test`)).status).toBe(202);
			await fake.control.webhooks.settle();
			expect(receiver.received.map((r) => r.status)).toEqual([200]);
			expect(receiver.items()).toEqual([]);
			expect(receiver.lookedBack()).toEqual([]);
		});

		test('a plain HTTP URL fails activation clearly without the option, before any request', async () => {
			const harness = triggerHarness({
				node: { type: TYPE, parameters: { events: ['post.created'], output: 'eachPost', options: {} } },
				credentials: credentialsFor(fake),
				webhookUrl: receiver.url,
			});
			fake.control.requests.clear();
			await expect(harness.activate()).rejects.toThrow('The webhook URL must use HTTPS');
			expect(fake.control.requests.list({ method: 'POST' })).toEqual([]);
		});
	});
});
