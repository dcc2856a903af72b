/**
 * The Social Aggregator Trigger in a real n8n: published before `n8n start`, it registers its
 * webhook with the fake service on activation; a feed sync delivers a signed `post.created`,
 * which runs the workflow once with the new posts; a forged delivery is refused and runs nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SEEDED } from '../fake-service';
import { e2eSuite, fakeServiceAvailable, node, webhookPath, workflow } from './lib';

const trigger = workflow('E2E post.created', [], {
	first: node(
		'socialAggregatorTrigger',
		{ events: ['post.created'], output: 'eachPost', options: { allowHttp: true } },
		{ name: 'On New Posts' },
	),
});

describe('Social Aggregator Trigger in a real n8n', { skip: !fakeServiceAvailable() && 'needs test/fake-service' }, () => {
	let workflowId = '';
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n }) => {
			workflowId = await n8n.importWorkflow(trigger);
			await n8n.publish(workflowId);
			return { webhooks: [webhookPath(trigger, 'On New Posts')], published: [workflowId] };
		},
	});

	it('runs once per signed post.created delivery, with its posts, and never on a forged one', async () => {
		const fake = ctx.backend.fake!;
		const sync = fake.control.syncFeed(SEEDED.feeds.brandMentions, { newPosts: 3 });
		await fake.control.webhooks.settle();
		const url = ctx.n8n.webhookUrl(webhookPath(trigger, 'On New Posts'));
		const ours = fake.control.webhooks.deliveries().filter((d) => d.url === url && sync.deliveries.includes(d.id));
		assert.ok(ours.length > 0, 'the service delivered nothing to the trigger');
		const executions = await ctx.n8n.waitForExecutions(workflowId, ours.length);
		assert.ok(executions.every((execution) => execution.status === 'success'));

		const forged = await fake.control.webhooks.deliver({
			url,
			signature: `sha256=${'0'.repeat(64)}`,
		});
		assert.equal(forged.status, 401);

		const ids: unknown[] = [];
		for (const execution of executions) ids.push(...(await ctx.n8n.execution(execution.id)).items('On New Posts').map((item) => item.id));
		assert.deepEqual(ids.sort(), sync.posts.map((post) => post.id).sort());
		assert.equal((await ctx.n8n.executions(workflowId)).length, ours.length, 'the forged delivery ran the workflow');
	});
});
