/**
 * Validly signed deliveries of shapes nobody expected, in a real n8n: one case of each class.
 * A delivery whose `event` is an object gets a 2xx (ignored, with its reason), never n8n's 500,
 * and is remembered only once handled; ids 0 and 1e400 each run the workflow with their post and
 * are answered naming them; two deliveries whose numeric ids differ only past 2^53
 * run the workflow twice, each with its id exactly as the service wrote it. A delivery that starts
 * the workflow is answered with JSON naming it (`{"received":true,"id":…}`, `application/json`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { e2eSuite, node, postSigned, webhookPath, workflow } from './lib';

const trigger = workflow('E2E odd deliveries', [], {
	first: node('socialAggregatorTrigger', { events: ['post.created'], output: 'eachPost', options: { allowHttp: true } }, { name: 'On New Posts' }),
});

describe('validly signed deliveries of any shape, in a real n8n', () => {
	let workflowId = '';
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n }) => {
			workflowId = await n8n.importWorkflow(trigger);
			await n8n.publish(workflowId);
			return { webhooks: [webhookPath(trigger, 'On New Posts')], published: [workflowId] };
		},
	});
	const url = () => ctx.n8n.webhookUrl(webhookPath(trigger, 'On New Posts'));
	/** The subscription the trigger registered: its id signs the deliveries sent by hand. */
	async function subscription(): Promise<number> {
		const fake = ctx.backend.fake!;
		const response = await fetch(`${fake.url}/webhooks?per_page=100`, { headers: { Authorization: `Bearer ${fake.control.keys.owner}` } });
		const list = ((await response.json()) as { data: Array<{ id: number; url: string }> }).data;
		const found = list.find((entry) => entry.url === url());
		assert.ok(found, 'the trigger registered no subscription');
		return found.id;
	}

	it('an event that is an object: a 2xx with the reason it was ignored, not a 500, passing nothing on; its retry is a duplicate', async () => {
		const fake = ctx.backend.fake!;
		const body = '{"id":"e2e-object-event","event":{"toString":1},"data":{"posts":[{"id":1}]}}';
		const webhookId = await subscription();
		const first = await fake.control.webhooks.deliver({ webhookId, body });
		assert.equal(first.status, 200, first.responseBody);
		assert.deepEqual(JSON.parse(first.responseBody), { received: true, ignored: 'event (none) is not selected' });
		// The first delivery this n8n receives looks back for a gap even when its filters ignore it: an execution that
		// runs only the look back, its trigger passing nothing on. Handled once that execution ran.
		const runs = await ctx.n8n.waitForExecutions(workflowId, 1);
		for (const run of runs) assert.deepEqual((await ctx.n8n.execution(run.id)).items('On New Posts'), []);
		const retry = await fake.control.webhooks.deliver({ webhookId, body });
		assert.equal(retry.status, 200);
		assert.deepEqual(JSON.parse(retry.responseBody), { received: true, duplicate: true });
		assert.equal((await ctx.n8n.executions(workflowId)).length, 1);
	});

	it('ids 0 and 1e400 (a number JSON.parse reads as Infinity): each answered naming it, each run passing its post on', async () => {
		const fake = ctx.backend.fake!;
		const webhookId = await subscription();
		for (const [id, expected] of [['0', 0], ['1e400', '1e400']] as const) {
			const before = (await ctx.n8n.executions(workflowId)).length;
			const body = `{"id":${id},"event":"post.created","occurred_at":"${new Date().toISOString()}","data":{"feed":{"id":1},"posts":[{"id":9,"message":"zero"}]}}`;
			const sent = await fake.control.webhooks.deliver({ webhookId, body });
			assert.equal(sent.status, 200, sent.responseBody);
			assert.deepEqual(JSON.parse(sent.responseBody), { received: true, id: expected });
			const runs = await ctx.n8n.waitForExecutions(workflowId, before + 1);
			const items = (await ctx.n8n.execution(runs[0].id)).items('On New Posts');
			assert.deepEqual(items.map((item) => item.event_id), [expected], `the run of delivery ${id}`);
		}
	});

	it('numeric ids that differ only past 2^53: two runs, each with its exact id', async () => {
		const fake = ctx.backend.fake!;
		const body = (id: string) => `{"id":${id},"event":"post.created","data":{"feed":{"id":1},"posts":[{"id":7,"message":"hello"}]}}`;
		const webhookId = await subscription();
		const before = new Set((await ctx.n8n.executions(workflowId)).map((execution) => execution.id));
		for (const id of ['12345678901234567890', '12345678901234567891']) {
			const sent = await fake.control.webhooks.deliver({ webhookId, body: body(id) });
			assert.equal(sent.status, 200, sent.responseBody);
		}
		const executions = (await ctx.n8n.waitForExecutions(workflowId, before.size + 2)).filter((execution) => !before.has(execution.id));
		assert.equal(executions.length, 2);
		const ids = await Promise.all(executions.map(async (e) => (await ctx.n8n.execution(e.id)).items('On New Posts')[0].event_id));
		assert.deepEqual([...ids].sort(), ['12345678901234567890', '12345678901234567891']);
	});

	it('a delivery that starts the workflow is answered 200 with JSON naming it; an id written as text stays text', async () => {
		const fake = ctx.backend.fake!;
		const webhookId = await subscription();
		const body = '{"id":"0123","event":"post.created","data":{"feed":{"id":1},"posts":[{"id":8,"message":"ack"}]}}';
		const before = (await ctx.n8n.executions(workflowId)).length;
		const { status, contentType, text } = await postSigned(fake, webhookId, url(), body);
		assert.equal(status, 200, text);
		assert.match(contentType, /^application\/json/);
		assert.deepEqual(JSON.parse(text), { received: true, id: '0123' });
		const executions = await ctx.n8n.waitForExecutions(workflowId, before + 1);
		const items = (await ctx.n8n.execution(executions[0].id)).items('On New Posts');
		assert.deepEqual(items.map((item) => item.event_id), ['0123']);
	});
});
