/**
 * The Social Aggregator Data Trigger in a real n8n, polled by n8n's own scheduler (mode
 * `trigger`, its memory kept between polls): published before `n8n start`, its first poll at
 * activation records the posts already there and starts nothing; a scheduled poll with
 * nothing new starts nothing; after new posts appear on two platforms the next poll starts the
 * workflow with exactly those posts, and after one more post the poll after that with exactly
 * that one.
 *
 * n8n refuses poll times under a minute, one cron at a time: a single "every minute" would make
 * this test wait up to a minute per poll. The trigger gets six poll times instead, "every
 * minute at second 0", "… at second 10", …, each a valid once-a-minute schedule (the editor
 * offers "Add Poll Time" for this), which together poll every 10 seconds.
 *
 * A second trigger (Max Pages per Poll 3) meets a burst of 4 pages of new posts: the first poll
 * reads 3 pages and holds them, the next reads on from the cursor and emits all 20, once, oldest
 * first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { e2eSuite, node, recordTiming, waitFor, workflow, type ExecutionResult } from './lib';

const TERM = '#e2epoll';
const PLATFORMS = ['Twitter', 'Bluesky'];
const SECONDS = [0, 10, 20, 30, 40, 50];

const trigger = workflow('E2E new posts by polling', [], {
	first: node(
		'socialAggregatorDataTrigger',
		{
			term: TERM,
			platforms: PLATFORMS,
			termType: 'hashtag',
			pollTimes: { item: SECONDS.map((second) => ({ mode: 'custom', cronExpression: `${second} * * * * *` })) },
		},
		{ name: 'New Posts' },
	),
});

// A second trigger, for a burst: 4 pages of new posts over a cap of 3 pages per poll.
const BURST_TERM = '#e2eburst';
const BURST_PAGE = 5;
const burstTrigger = workflow('E2E burst over the page cap', [], {
	first: node(
		'socialAggregatorDataTrigger',
		{
			term: BURST_TERM,
			platforms: ['Bluesky'],
			termType: 'hashtag',
			options: { maxPagesPerPoll: 3 },
			pollTimes: { item: SECONDS.map((second) => ({ mode: 'custom', cronExpression: `${(second + 5) % 60} * * * * *` })) },
		},
		{ name: 'Burst Posts' },
	),
});

type Post = Record<string, unknown>;
const key = (post: Post) => `${String(post.platform)}:${String(post.platform_id)}`;
const sortByKey = (posts: Post[]) => [...posts].sort((a, b) => key(a).localeCompare(key(b)));

describe('Social Aggregator Data Trigger polled by a real n8n', () => {
	let workflowId = '';
	let burstId = '';
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n, backend }) => {
			backend.fake?.control.data.configure('Bluesky', { term: BURST_TERM, termType: 'hashtag', pageSize: BURST_PAGE, totalPosts: 3 });
			workflowId = await n8n.importWorkflow(trigger);
			burstId = await n8n.importWorkflow(burstTrigger);
			await n8n.publish(workflowId);
			await n8n.publish(burstId);
			return { published: [workflowId, burstId] };
		},
	});
	const requestsFor = (term: string) =>
		ctx.backend.fake!.control.requests.list({ method: 'GET', path: '/data/posts' }).filter((request) => request.query.term === term);
	const polls = () => requestsFor(TERM);

	/** When a poll was last seen to end; new posts are added only well before the next one. */
	let lastPollAt = 0;

	/** Waits for the next poll the scheduler makes (a new GET /data/posts) and returns the count. */
	async function nextPoll(after: number): Promise<number> {
		const count = await waitFor('a scheduled poll', () => (polls().length > after ? polls().length : undefined), {
			timeoutMs: 25_000,
			intervalMs: 50,
		});
		lastPollAt = Date.now();
		return count;
	}

	/** Returns at a moment that is at least 4 s away from the next poll (they come every 10 s). */
	async function betweenPolls(): Promise<void> {
		if (Date.now() - lastPollAt > 5_000) await nextPoll(polls().length);
	}

	async function executionNumber(n: number): Promise<ExecutionResult> {
		const executions = await ctx.n8n.waitForExecutions(workflowId, n, { timeoutMs: 30_000 });
		assert.equal(executions.length, n, `expected ${n} execution(s), got ${executions.length}`);
		const newest = executions[0];
		assert.equal(newest.status, 'success');
		assert.equal(newest.mode, 'trigger');
		return await ctx.n8n.execution(newest.id);
	}

	it('records the posts already there at activation and starts nothing', async () => {
		assert.ok(ctx.backend.fake, 'this test needs test/fake-service');
		const first = polls();
		assert.ok(first.length >= 1, 'the activation poll did not reach the service');
		assert.deepEqual(first[0].query, { term: TERM, platforms: PLATFORMS.join(','), term_type: 'hashtag' });
		assert.equal((await ctx.n8n.executions(workflowId)).length, 0);
	});

	it('a scheduled poll with nothing new starts nothing', async () => {
		const started = Date.now();
		await nextPoll(polls().length);
		recordTiming('wait for a scheduled Data Trigger poll', Date.now() - started);
		await new Promise((resolve) => setTimeout(resolve, 1000));
		assert.equal((await ctx.n8n.executions(workflowId)).length, 0);
	});

	it('the next poll after new posts starts the workflow once, with exactly those posts', async () => {
		const fake = ctx.backend.fake!;
		await betweenPolls();
		const seen = polls().length;
		const added = [...fake.control.data.addPosts('Twitter', TERM, 3, 'hashtag'), ...fake.control.data.addPosts('Bluesky', TERM, 2, 'hashtag')];
		const started = Date.now();
		const execution = await executionNumber(1);
		lastPollAt = Date.now();
		recordTiming('new posts until the Data Trigger workflow ran', Date.now() - started);
		assert.ok(polls().length > seen);
		const items = execution.items('New Posts');
		assert.deepEqual(sortByKey(items), sortByKey(added));
		// oldest first, as the trigger promises
		const times = items.map((item) => Date.parse(String(item.post_created_at)));
		assert.deepEqual(times, [...times].sort((a, b) => a - b));
	});

	it('the poll after one more post starts it again with only that post', async () => {
		const fake = ctx.backend.fake!;
		await betweenPolls();
		const added = fake.control.data.addPosts('Bluesky', TERM, 1, 'hashtag');
		const execution = await executionNumber(2);
		assert.deepEqual(execution.items('New Posts').map(key), added.map(key));
		const stored = await ctx.n8n.rest<{ staticData?: Record<string, { seen?: Record<string, string[]> }> }>('GET', `/rest/workflows/${workflowId}`);
		const memory = stored.staticData?.['node:New Posts']?.seen;
		assert.ok(memory && Array.isArray(memory.Twitter) && Array.isArray(memory.Bluesky), `the poll memory was not saved: ${JSON.stringify(stored.staticData)}`);
	});

	it('a burst of 4 pages over a cap of 3 pages per poll: every post emitted once, oldest first, over two polls', async () => {
		const fake = ctx.backend.fake!;
		const burstPolls = () => requestsFor(BURST_TERM);
		assert.equal((await ctx.n8n.executions(burstId)).length, 0);
		// Between two polls of the burst trigger (they come at second 5, 15, …).
		const seen = burstPolls().length;
		await waitFor('a poll of the burst trigger', () => burstPolls().length > seen, { timeoutMs: 25_000, intervalMs: 50 });
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const added = fake.control.data.addPosts('Bluesky', BURST_TERM, 4 * BURST_PAGE, 'hashtag');
		const before = burstPolls().length;
		// The first poll after the burst reads its 3 pages and holds them: no execution yet.
		await waitFor('the poll that meets the burst', () => burstPolls().length >= before + 3, { timeoutMs: 25_000, intervalMs: 50 });
		await new Promise((resolve) => setTimeout(resolve, 1500));
		assert.equal(burstPolls().length, before + 3, 'one poll should stop at 3 pages');
		assert.equal((await ctx.n8n.executions(burstId)).length, 0, 'the held posts should not be emitted yet');
		const executions = await ctx.n8n.waitForExecutions(burstId, 1, { timeoutMs: 30_000 });
		assert.equal(executions.length, 1);
		const items = (await ctx.n8n.execution(executions[0].id)).items('Burst Posts');
		assert.equal(new Set(items.map(key)).size, 4 * BURST_PAGE);
		assert.deepEqual(sortByKey(items).map(key), sortByKey(added).map(key));
		const times = items.map((item) => Date.parse(String(item.post_created_at)));
		assert.deepEqual(times, [...times].sort((a, b) => a - b));
		// The second poll read on from the held cursor, not from the newest page.
		assert.ok(burstPolls()[before + 3].query.cursor, 'the second poll should continue from the cursor');
		await new Promise((resolve) => setTimeout(resolve, 11_000));
		assert.equal((await ctx.n8n.executions(burstId)).length, 1, 'a later poll emitted the burst again');
	});

	it('a poll where a platform failed starts an execution with a status item for it (On Platform Failure, by default)', async () => {
		const fake = ctx.backend.fake!;
		await betweenPolls();
		const before = (await ctx.n8n.executions(workflowId)).length;
		// Twice: the trigger asks a platform once more within the same poll after a transient failure.
		fake.control.data.fail('Twitter', { errorCode: 'platform_error', times: 2, term: TERM, message: 'Twitter is down for the test' });
		const executions = await ctx.n8n.waitForExecutions(workflowId, before + 1, { timeoutMs: 30_000 });
		lastPollAt = Date.now();
		const execution = await ctx.n8n.execution(executions[0].id);
		assert.equal(executions[0].status, 'success');
		assert.deepEqual(execution.items('New Posts'), [
			{ type: 'platform_status', platform: 'Twitter', success: false, error_code: 'platform_error', message: 'Twitter is down for the test', failed_attempts: 2 },
		]);
	});

	it('a manual run ("Fetch Test Event") shows the latest posts without touching the memory', async () => {
		const stored = async () =>
			JSON.stringify((await ctx.n8n.rest<{ staticData?: unknown }>('GET', `/rest/workflows/${workflowId}`)).staticData);
		const memory = await stored();
		const run = await ctx.n8n.runManually(workflowId);
		run.assertSuccess();
		const items = run.items('New Posts');
		assert.ok(items.length > 0 && items.length <= 5, `expected the latest posts, got ${items.length}`);
		for (const item of items) assert.ok(PLATFORMS.includes(String(item.platform)));
		assert.equal(await stored(), memory);
	});
});
