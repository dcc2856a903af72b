/**
 * The Social Aggregator Trigger in a real n8n: published before `n8n start`, it registers its
 * webhook with the fake service on activation; a feed sync delivers one signed `post.created`,
 * which runs the workflow exactly once, with the delivered posts as items, however often the
 * service retries it, also after n8n restarts between the delivery and its retry (the node
 * after the trigger acts once), also for a delivery its execution did not wait on n8n's database
 * for; a forged or unsigned delivery is refused with 401 and runs nothing;
 * a delivery that starts the workflow is answered `{"received":true,"id":…}` as JSON.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SEEDED } from '../fake-service';
import { e2eSuite, pinNewPosts, postSigned, recordTiming, sleep, webhookPath } from './lib';

const trigger = pinNewPosts('E2E post.created');

const pins = (fake: NonNullable<ReturnType<typeof e2eSuite>['backend']['fake']>) =>
	fake.control.requests.list({ method: 'POST' }).filter((request) => /\/posts\/[^/]+\/pin$/.test(request.path));

describe('Social Aggregator Trigger in a real n8n', () => {
	let workflowId = '';
	const ctx = e2eSuite({
		start: true,
		ownServer: true,
		beforeStart: async ({ n8n }) => {
			workflowId = await n8n.importWorkflow(trigger);
			await n8n.publish(workflowId);
			return { webhooks: [webhookPath(trigger, 'On New Posts')], published: [workflowId] };
		},
	});
	const url = () => ctx.n8n.webhookUrl(webhookPath(trigger, 'On New Posts'));

	it('registered its URL with the service on activation', () => {
		const fake = ctx.backend.fake;
		assert.ok(fake, 'this test needs test/fake-service');
		const subscriptions = fake.control.requests.list({ method: 'POST', path: '/webhooks' });
		assert.equal(subscriptions.length, 1);
		assert.deepEqual(subscriptions[0].body, { url: url(), subscribed_events: ['post.created'] });
		assert.equal(subscriptions[0].status, 201);
	});

	it('runs exactly once for a signed post.created delivery, with the delivered posts as its items', async () => {
		const fake = ctx.backend.fake!;
		// one source, so one delivery (a sync sends one per source that got posts)
		const sync = fake.control.syncFeed(SEEDED.feeds.brandMentions, { newPosts: 3, sourceId: SEEDED.sources.twitterAcme });
		await fake.control.webhooks.settle();
		const ours = fake.control.webhooks.deliveries({ event: 'post.created' }).filter((d) => d.url === url());
		assert.equal(ours.length, 1, 'the service should have delivered once to the trigger');
		const [delivery] = ours;
		assert.ok(sync.deliveries.includes(delivery.id));
		assert.equal(delivery.state, 'succeeded');
		assert.deepEqual(delivery.attempts.map((attempt) => attempt.status), [200]);

		const executions = await ctx.n8n.waitForExecutions(workflowId, 1);
		assert.equal(executions.length, 1);
		assert.equal(executions[0].status, 'success');
		assert.equal(executions[0].mode, 'webhook');

		const body = JSON.parse(delivery.body) as {
			id: string;
			event: string;
			occurred_at: string;
			data: { feed: unknown; source: unknown; posts: Array<Record<string, unknown>> };
		};
		const items = (await ctx.n8n.execution(executions[0].id)).items('On New Posts');
		assert.deepEqual(
			items,
			body.data.posts.map((post) => ({
				...post,
				feed: body.data.feed,
				source: body.data.source,
				event: 'post.created',
				event_id: body.id,
				occurred_at: body.occurred_at,
			})),
		);
		assert.deepEqual(
			items.map((item) => item.id),
			sync.posts.map((post) => post.id),
		);
		assert.deepEqual(
			items.map((item) => (item.source as { id: number }).id),
			[SEEDED.sources.twitterAcme, SEEDED.sources.twitterAcme, SEEDED.sources.twitterAcme],
		);
	});

	it('runs once however often the service retries the same delivery', async () => {
		const fake = ctx.backend.fake!;
		const [delivery] = fake.control.webhooks.deliveries({ event: 'post.created' }).filter((d) => d.url === url());
		for (let i = 0; i < 3; i++) {
			await fake.control.webhooks.redeliver(delivery.id);
			await fake.control.webhooks.settle();
		}
		const again = fake.control.webhooks.deliveries({ event: 'post.created' }).find((d) => d.id === delivery.id)!;
		assert.deepEqual(
			again.attempts.map((attempt) => attempt.status),
			[200, 200, 200, 200],
			'every copy of the delivery should be accepted',
		);
		await sleep(1500);
		assert.equal((await ctx.n8n.executions(workflowId)).length, 1, 'a retried delivery ran the workflow again');
		assert.equal(pins(fake).length, 3, 'each delivered post is pinned once');
	});

	it('acts once on a delivery retried after n8n restarts (the same bytes again)', async () => {
		const fake = ctx.backend.fake!;
		const [delivery] = fake.control.webhooks.deliveries({ event: 'post.created' }).filter((d) => d.url === url());
		const port = ctx.n8n.port;
		await ctx.n8n.stop();
		const restarted = Date.now();
		await ctx.n8n.start({ port, webhooks: [webhookPath(trigger, 'On New Posts')] });
		recordTiming('n8n restart until the trigger answers', Date.now() - restarted);
		await fake.control.webhooks.redeliver(delivery.id);
		await fake.control.webhooks.settle();
		const again = fake.control.webhooks.deliveries({ event: 'post.created' }).find((d) => d.id === delivery.id)!;
		assert.equal(again.attempts.at(-1)?.status, 200);
		// The new process has no memory of the delivery: it starts an execution, whose trigger passes nothing on.
		const executions = await ctx.n8n.waitForExecutions(workflowId, 2);
		const retried = await ctx.n8n.execution(executions[0].id);
		assert.equal(executions[0].status, 'success');
		assert.deepEqual(retried.items('On New Posts'), []);
		assert.ok(!retried.nodesRun.includes('Pin'), `the node after the trigger ran again: ${retried.nodesRun.join(', ')}`);
		assert.equal(pins(fake).length, 3, 'a post was pinned again after the restart');
	});

	it('acts once on a delivery claimed in memory (it occurred well after the trigger began here), retried after a restart', async () => {
		const fake = ctx.backend.fake!;
		// More than 30 s (the margin for the service's clock) after this process's first execution of the
		// trigger, by a service clock in step with n8n's: the delivery's execution does not wait for n8n's database.
		await sleep(31_000);
		fake.control.clock.set(new Date());
		const pinned = pins(fake).length;
		fake.control.syncFeed(SEEDED.feeds.brandMentions, { newPosts: 2, sourceId: SEEDED.sources.twitterAcme });
		await fake.control.webhooks.settle();
		const delivery = fake.control.webhooks.deliveries({ event: 'post.created' }).filter((d) => d.url === url()).at(-1)!;
		assert.deepEqual(delivery.attempts.map((attempt) => attempt.status), [200]);
		await ctx.n8n.waitForExecutions(workflowId, 3);
		assert.equal(pins(fake).length, pinned + 2);
		// n8n stops as soon as that execution is done: the record written after it must be in the database.
		const port = ctx.n8n.port;
		await ctx.n8n.stop();
		await ctx.n8n.start({ port, webhooks: [webhookPath(trigger, 'On New Posts')] });
		await fake.control.webhooks.redeliver(delivery.id);
		await fake.control.webhooks.settle();
		const executions = await ctx.n8n.waitForExecutions(workflowId, 4);
		assert.deepEqual((await ctx.n8n.execution(executions[0].id)).items('On New Posts'), []);
		assert.equal(pins(fake).length, pinned + 2, 'a post was pinned again after the restart');
	});

	it('refuses a forged delivery with 401 and runs nothing', async () => {
		const fake = ctx.backend.fake!;
		const forged = await fake.control.webhooks.deliver({ url: url(), event: 'post.created', signature: `sha256=${'0'.repeat(64)}` });
		assert.equal(forged.status, 401);
		const unsigned = await fake.control.webhooks.deliver({ url: url(), event: 'post.created', signature: null });
		assert.equal(unsigned.status, 401);
		await sleep(1000);
		assert.equal((await ctx.n8n.executions(workflowId)).length, 4, 'a forged delivery ran the workflow');
	});

	it('answers a delivery that starts the workflow with JSON naming it (application/json)', async () => {
		const fake = ctx.backend.fake!;
		const [delivery] = fake.control.webhooks.deliveries({ event: 'post.created' }).filter((d) => d.url === url());
		const id = `${delivery.id}_ack`;
		const body = JSON.stringify({ ...(JSON.parse(delivery.body) as Record<string, unknown>), id });
		const { status, contentType, text } = await postSigned(fake, delivery.webhookId, url(), body);
		assert.equal(status, 200, text);
		assert.match(contentType, /^application\/json/);
		assert.deepEqual(JSON.parse(text), { received: true, id });
		await ctx.n8n.waitForExecutions(workflowId, 5);
	});
});
