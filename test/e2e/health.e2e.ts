/**
 * The webhook trigger's test listening and subscription health in a real n8n:
 * - "Listen for test event" shows the test delivery the trigger requests, against a service that
 *   sends it before it answers the request (while n8n is still inside the trigger's create());
 * - a subscription the service disabled while n8n was away: the example workflow
 *   "Re-enable disabled webhook subscriptions" finds this n8n's disabled subscriptions and brings
 *   them back, leaving other URLs' subscriptions alone; deliveries then run the workflow again.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { SEEDED } from '../fake-service';
import { e2eSuite, node, recordTiming, REPO_ROOT, waitFor, webhookPath, workflow } from './lib';

const trigger = workflow('E2E health', [], {
	first: node(
		'socialAggregatorTrigger',
		{ events: ['post.created'], output: 'eachPost', options: { allowHttp: true } },
		{ name: 'On Events' },
	),
});

const EXAMPLE = path.join(REPO_ROOT, 'examples', 're-enable-disabled-subscriptions.json');

describe('Social Aggregator Trigger: test event and subscription health in a real n8n', () => {
	let workflowId = '';
	let exampleId = '';
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n }) => {
			workflowId = await n8n.importWorkflow(trigger);
			exampleId = await n8n.importWorkflow(EXAMPLE);
			await n8n.publish(workflowId);
			return { webhooks: [webhookPath(trigger, 'On Events')], published: [workflowId] };
		},
	});
	const liveUrl = () => ctx.n8n.webhookUrl(webhookPath(trigger, 'On Events'));
	const subscriptions = async () => {
		const fake = ctx.backend.fake!;
		const response = await fetch(`${ctx.backend.url}/webhooks?per_page=100`, {
			headers: { Authorization: `Bearer ${fake.control.keys.owner}` },
		});
		return ((await response.json()) as { data: Array<{ id: number; url: string; status: string }> }).data;
	};

	it('"Listen for test event" shows the test delivery that the service sends before answering the request', async () => {
		const fake = ctx.backend.fake;
		assert.ok(fake, 'this test needs test/fake-service');
		fake.control.webhooks.setTestDelivery('beforeAnswer');
		const before = (await ctx.n8n.executions(workflowId)).length;
		const started = Date.now();
		const answer = await ctx.n8n.rest<{ waitingForWebhook?: boolean }>('POST', `/rest/workflows/${workflowId}/run`, {
			triggerToStartFrom: { name: 'On Events' },
		});
		assert.equal(answer.waitingForWebhook, true, JSON.stringify(answer));
		const executions = await ctx.n8n.waitForExecutions(workflowId, before + 1, { timeoutMs: 30_000 });
		recordTiming('listen for test event until the test delivery is shown', Date.now() - started);
		const manual = executions.find((execution) => execution.mode === 'manual');
		assert.ok(manual, `no manual execution: ${JSON.stringify(executions)}`);
		const items = (await ctx.n8n.execution(manual.id)).items('On Events');
		assert.equal(items.length, 1);
		assert.equal(items[0].test, true);
		const tests = fake.control.webhooks.deliveries({ event: 'post.created' }).filter((d) => d.url.includes('/webhook-test/'));
		assert.equal(tests.length, 1);
		assert.deepEqual(tests[0].attempts.map((attempt) => attempt.status), [200], 'the test delivery was refused');
		assert.equal(items[0].event_id, tests[0].id);
	});

	it('the example workflow re-enables this n8n’s disabled subscription and leaves other URLs’ alone', async () => {
		const fake = ctx.backend.fake!;
		const ours = (await subscriptions()).find((s) => s.url === liveUrl());
		assert.ok(ours, 'the trigger has no subscription');
		// The service gave up on this n8n: 10 failed deliveries.
		fake.control.webhooks.setStatus(ours.id, 'disabled');
		fake.control.webhooks.setStatus(SEEDED.webhooks.acmeActive, 'disabled');
		const sync = fake.control.syncFeed(SEEDED.feeds.brandMentions, { newPosts: 1, sourceId: SEEDED.sources.twitterAcme });
		assert.equal(sync.deliveries.filter((id) => fake.control.webhooks.deliveries().find((d) => d.id === id)?.url === liveUrl()).length, 0);

		const run = await ctx.n8n.runManually(exampleId);
		run.assertSuccess();
		assert.deepEqual(run.items('Re-Enable').map((item) => item.id), [ours.id]);
		const after = await subscriptions();
		assert.equal(after.find((s) => s.id === ours.id)?.status, 'active');
		assert.equal(after.find((s) => s.id === SEEDED.webhooks.acmeActive)?.status, 'disabled', 'another URL’s subscription was touched');

		const before = (await ctx.n8n.executions(workflowId)).length;
		fake.control.syncFeed(SEEDED.feeds.brandMentions, { newPosts: 2, sourceId: SEEDED.sources.twitterAcme });
		await fake.control.webhooks.settle();
		const executions = await ctx.n8n.waitForExecutions(workflowId, before + 1);
		await waitFor('the new execution to be a webhook run', () => executions[0].mode === 'webhook');
		assert.equal((await ctx.n8n.execution(executions[0].id)).items('On Events').length, 2);
	});
});
