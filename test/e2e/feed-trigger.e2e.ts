/**
 * The Social Aggregator Feed Trigger in a real n8n, polled by n8n's own scheduler (mode `trigger`,
 * its memory n8n's poll state): published before `n8n start`, its first poll records where the feed
 * stands and starts nothing; a poll with nothing new is one or two requests and starts nothing; 250 posts
 * added between two polls start one execution with all 250, once, oldest first, read over 3 pages;
 * posts added while n8n is stopped come once after it starts again, and nothing is repeated; a second
 * workflow on a feed with a pinned post, in both legal listing orders (pinned first then by platform
 * time; by storing): 150 posts and 5 stored 3 hours after they were published, added between two
 * polls, each emitted once, and the poll after emits nothing (its requests printed).
 *
 * Polls every 10 seconds: six poll times, "every minute at second 0", "… at second 10", … (n8n
 * refuses poll times under a minute, one cron at a time; see poll.e2e.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { e2eSuite, everyTenSeconds, nextPoll, node, recordTiming, waitFor, workflow, type ExecutionResult } from './lib';

const HOUR = 3_600_000;
const NODE_NAME = 'New Feed Posts';

describe('Social Aggregator Feed Trigger polled by a real n8n', () => {
	let workflowId = '';
	let feedId = 0;
	let orderWorkflowId = '';
	let orderFeedId = 0;
	const ctx = e2eSuite({
		start: true,
		ownServer: true,
		beforeStart: async ({ n8n, backend }) => {
			const fake = backend.fake!;
			feedId = fake.control.seedFeed({ posts: 40, name: 'E2E feed trigger' }).feedId;
			// A feed whose pinned post was published two days ago: listed first, or far down, by the order.
			orderFeedId = fake.control.seedFeed({ posts: 40, name: 'E2E feed trigger, any order' }).feedId;
			const [old] = fake.control.syncFeed(orderFeedId, { newPosts: 1, publishedBeforeMs: 48 * HOUR }).posts;
			fake.control.setPinned(Number(old.id), true);
			orderWorkflowId = await n8n.importWorkflow(
				workflow('E2E new feed posts in any order', [], {
					first: node(
						'socialAggregatorFeedTrigger',
						{
							feedIds: [String(orderFeedId)],
							simplify: false,
							pollTimes: everyTenSeconds(),
						},
						{ name: NODE_NAME },
					),
				}),
			);
			await n8n.publish(orderWorkflowId);
			const trigger = workflow('E2E new feed posts by polling', [], {
				first: node(
					'socialAggregatorFeedTrigger',
					{
						feedIds: [String(feedId)],
						simplify: false,
						pollTimes: everyTenSeconds(),
					},
					{ name: NODE_NAME },
				),
			});
			workflowId = await n8n.importWorkflow(trigger);
			await n8n.publish(workflowId);
			return { published: [workflowId, orderWorkflowId] };
		},
	});
	const polls = () =>
		ctx.backend.fake!.control.requests.list({ method: 'GET' }).filter((request) => request.path === `/feeds/${feedId}/posts`);
	/** Post ids a sync adds now, oldest first. */
	const addPosts = (count: number) =>
		ctx.backend
			.fake!.control.syncFeed(feedId, { newPosts: count })
			.posts.map((post) => Number(post.id))
			.sort((a, b) => a - b);

	const nextFeedPoll = async (of = polls) => await nextPoll(of);

	async function executions(n: number): Promise<ExecutionResult[]> {
		const found = await ctx.n8n.waitForExecutions(workflowId, n, { timeoutMs: 40_000 });
		assert.equal(found.length, n, `expected ${n} execution(s), got ${found.length}`);
		for (const execution of found) {
			assert.equal(execution.status, 'success');
			assert.equal(execution.mode, 'trigger');
		}
		return await Promise.all(found.map(async (execution) => await ctx.n8n.execution(execution.id)));
	}
	const ids = (execution: ExecutionResult) => execution.items(NODE_NAME).map((item) => Number(item.id));

	it('records where the feed stands at activation and starts nothing', async () => {
		assert.ok(ctx.backend.fake, 'this test needs test/fake-service');
		const first = polls();
		assert.ok(first.length >= 1, 'the activation poll did not reach the service');
		assert.deepEqual(first[0].query, { page: '1', per_page: '100' });
		assert.equal((await ctx.n8n.executions(workflowId)).length, 0);
	});

	it('a scheduled poll with nothing new is one request and starts nothing', async () => {
		const started = Date.now();
		const requests = await nextFeedPoll();
		recordTiming('wait for a scheduled Feed Trigger poll', Date.now() - started);
		process.stderr.write(`[e2e] requests of a Feed Trigger poll with nothing new: ${requests}\n`);
		assert.equal(requests, 1);
		assert.equal((await ctx.n8n.executions(workflowId)).length, 0);
	});

	it('250 posts added between two polls start one execution with all of them, once, oldest first, over 3 pages', async () => {
		await nextFeedPoll();
		const added = addPosts(250);
		const before = polls().length;
		const started = Date.now();
		const [execution] = await executions(1);
		recordTiming('250 new feed posts until the Feed Trigger workflow ran', Date.now() - started);
		assert.deepEqual(ids(execution), added);
		assert.ok(execution.items(NODE_NAME).every((item) => item.feed_id === feedId));
		assert.deepEqual(
			polls()
				.slice(before)
				.map((request) => request.query.page),
			['1', '2', '3'],
		);
		// The polls after it emit nothing again: page 1 (its count unchanged) and one page of the sweep.
		const quiet = await nextFeedPoll();
		process.stderr.write(`[e2e] requests of a quiet Feed Trigger poll, ${40 + 250} posts in the window: ${quiet}\n`);
		assert.ok(quiet <= 2, `a quiet poll sent ${quiet} requests`);
		assert.equal((await ctx.n8n.executions(workflowId)).length, 1);
	});

	it('posts added while n8n is stopped come once after it starts again; nothing is repeated', async () => {
		await nextFeedPoll();
		const port = ctx.n8n.port;
		await ctx.n8n.stop();
		const added = addPosts(7);
		const restarted = Date.now();
		await ctx.n8n.start({ port, published: [workflowId] });
		const [newest, burst] = await executions(2);
		recordTiming('n8n restart until the Feed Trigger emitted the posts added while it was stopped', Date.now() - restarted);
		assert.deepEqual(ids(newest), added);
		assert.equal(ids(burst).length, 250);
		// Two more polls: nothing new, nothing started.
		await nextFeedPoll();
		const quiet = await nextFeedPoll();
		assert.ok(quiet <= 2, `a quiet poll sent ${quiet} requests`);
		assert.equal((await ctx.n8n.executions(workflowId)).length, 2);
	});

	it('a manual run ("Fetch Test Event") shows the newest posts without touching the memory', async () => {
		const stored = async () =>
			JSON.stringify((await ctx.n8n.rest<{ staticData?: unknown }>('GET', `/rest/workflows/${workflowId}`)).staticData);
		const memory = await stored();
		assert.match(memory, /"floor":\d+/);
		const run = await ctx.n8n.runManually(workflowId);
		run.assertSuccess();
		const shown = run.items(NODE_NAME).map((item) => Number(item.id));
		assert.equal(shown.length, 5);
		assert.deepEqual(shown, [...shown].sort((a, b) => a - b));
		assert.equal(await stored(), memory);
	});

	for (const order of ['pinnedThenPlatform', 'stored'] as const) {
		it(`${order}: a pinned post, 150 posts and 5 stored 3 hours late added between two polls: each once; the next poll emits nothing`, async () => {
			const fake = ctx.backend.fake!;
			const orderPolls = () => fake.control.requests.list({ method: 'GET' }).filter((request) => request.path === `/feeds/${orderFeedId}/posts`);
			const emitted = async (executions: Array<{ id: string }>) =>
				(await Promise.all(executions.map(async ({ id }) => (await ctx.n8n.execution(id)).items(NODE_NAME)))).flat().map((item) => Number(item.id));
			fake.control.setPostOrder(order);
			await nextFeedPoll(orderPolls);
			const before = await ctx.n8n.executions(orderWorkflowId);
			const ids = (posts: Array<Record<string, unknown>>) => posts.map((post) => Number(post.id));
			const added = [
				...ids(fake.control.syncFeed(orderFeedId, { newPosts: 150 }).posts),
				...ids(fake.control.syncFeed(orderFeedId, { newPosts: 5, publishedBeforeMs: 3 * HOUR }).posts),
			].sort((a, b) => a - b);
			let found: number[] = [];
			await waitFor(
				'every added post emitted',
				async () => {
					const runs = (await ctx.n8n.executions(orderWorkflowId)).filter((run) => !before.some((old) => old.id === run.id));
					found = await emitted(runs);
					return found.length >= added.length;
				},
				{ timeoutMs: 60_000, intervalMs: 1000 },
			);
			await nextFeedPoll(orderPolls);
			const afterOne = await ctx.n8n.executions(orderWorkflowId);
			found = await emitted(afterOne.filter((run) => !before.some((old) => old.id === run.id)));
			assert.deepEqual([...found].sort((a, b) => a - b), added, 'every post once, no other');
			const quiet = await nextFeedPoll(orderPolls);
			const listed = fake.control.requests.list({ method: 'GET' }).filter((request) => request.path === `/feeds/${orderFeedId}/posts`).at(-1);
			process.stderr.write(`[e2e] ${order}: requests of the Feed Trigger poll after the 155 posts, nothing new: ${quiet} (last page asked ${String(listed?.query.page)})\n`);
			assert.ok(quiet >= 1 && quiet <= 2, `a quiet poll took ${quiet} requests`);
			assert.equal((await ctx.n8n.executions(orderWorkflowId)).length, afterOne.length, 'the poll after emitted posts again');
		});
	}
});
