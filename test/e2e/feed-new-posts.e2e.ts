/**
 * The Social Aggregator Feed Trigger in a real n8n: a post is new when it first shows in what the trigger watches.
 *
 * - Status Public on a feed whose new posts wait for review: 9 posts synced, approved over three polls in orders that
 *   are not theirs (the newest three, then the oldest three, then two between) and one rejected: each approved post is
 *   emitted once, by the poll after its approval, the rejected one never.
 * - A list that moves while it is read: 250 posts between two polls (three pages) and, right after the next poll has
 *   read page 1, two of its posts deleted, two rejected and the pinned one unpinned, in both legal listing orders:
 *   every other post emitted exactly once; the ones removed at most once (they may have been read before).
 *
 * Both triggers poll every 10 seconds (six once-a-minute poll times), five seconds apart.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { e2eSuite, everyTenSeconds, nextPoll, node, waitFor, workflow, type ExecutionSummary } from './lib';

const NODE_NAME = 'New Public Posts';

describe('Social Aggregator Feed Trigger: a post is new when it first shows', () => {
	let approvalFeed = 0;
	let approvalWorkflow = '';
	let movingFeed = 0;
	let movingWorkflow = '';
	const trigger = (name: string, feedId: number, offset: number) =>
		workflow(name, [], {
			first: node(
				'socialAggregatorFeedTrigger',
				{ feedIds: [String(feedId)], status: 'public', simplify: false, pollTimes: everyTenSeconds(offset) },
				{ name: NODE_NAME },
			),
		});
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n, backend }) => {
			const fake = backend.fake!;
			approvalFeed = fake.control.seedFeed({ posts: 40, name: 'E2E posts approved late' }).feedId;
			movingFeed = fake.control.seedFeed({ posts: 40, name: 'E2E a list that moves' }).feedId;
			approvalWorkflow = await n8n.importWorkflow(trigger('E2E approved posts', approvalFeed, 0));
			movingWorkflow = await n8n.importWorkflow(trigger('E2E posts while the list moves', movingFeed, 5));
			await n8n.publish(approvalWorkflow);
			await n8n.publish(movingWorkflow);
			return { published: [approvalWorkflow, movingWorkflow] };
		},
	});
	const feedPolls = (feedId: number) => () =>
		ctx.backend.fake!.control.requests.list({ method: 'GET' }).filter((request) => request.path === `/feeds/${feedId}/posts`);
	const postIds = (posts: Array<Record<string, unknown>>) => posts.map((post) => Number(post.id)).sort((a, b) => a - b);
	/** The post ids each execution emitted, one list per execution, of the executions not in `before`. */
	async function emittedSince(workflowId: string, before: ExecutionSummary[]): Promise<number[][]> {
		const runs = (await ctx.n8n.executions(workflowId)).filter((run) => !before.some((old) => old.id === run.id));
		for (const run of runs) assert.equal(run.status, 'success', `execution ${run.id} ${run.status}`);
		const items = await Promise.all(runs.map(async ({ id }) => (await ctx.n8n.execution(id)).items(NODE_NAME)));
		return items.map((list) => list.map((item) => Number(item.id)));
	}

	it('Status Public: posts approved over polls in a moderator’s order are each emitted once, by the poll after their approval; the rejected one never', async () => {
		const fake = ctx.backend.fake!;
		const polls = feedPolls(approvalFeed);
		await nextPoll(polls);
		const waiting = postIds(fake.control.syncFeed(approvalFeed, { newPosts: 9, mix: 'moderated' }).posts);
		await nextPoll(polls);
		assert.equal((await ctx.n8n.executions(approvalWorkflow)).length, 0, 'posts waiting for review were emitted');
		fake.control.setPostStatus(waiting[5], 'rejected');
		const rounds = [waiting.slice(6), waiting.slice(0, 3), [waiting[4], waiting[3]]];
		for (const approved of rounds) {
			const before = await ctx.n8n.executions(approvalWorkflow);
			for (const id of approved) fake.control.setPostStatus(id, 'public');
			// The poll after the approval (the one that begins next) emits them: they are there once the one after begins.
			await nextPoll(polls);
			await waitFor('the approved posts emitted', async () => (await emittedSince(approvalWorkflow, before)).length > 0, { timeoutMs: 30_000, intervalMs: 500 });
			assert.deepEqual(await emittedSince(approvalWorkflow, before), [[...approved].sort((a, b) => a - b)]);
		}
		// Nothing again: a quiet poll starts nothing.
		const all = await ctx.n8n.executions(approvalWorkflow);
		await nextPoll(polls);
		await nextPoll(polls);
		assert.equal((await ctx.n8n.executions(approvalWorkflow)).length, all.length, 'a post was emitted again');
		assert.equal(all.length, 3);
	});

	for (const order of ['pinnedThenPlatform', 'stored'] as const) {
		it(`${order}: posts deleted, rejected and unpinned while a poll reads pull others onto a page already read; every other post emitted once`, async () => {
			const fake = ctx.backend.fake!;
			const polls = feedPolls(movingFeed);
			fake.control.setPostOrder(order);
			await nextPoll(polls);
			const before = await ctx.n8n.executions(movingWorkflow);
			const burst = postIds(fake.control.syncFeed(movingFeed, { newPosts: 250 }).posts);
			const pinned = burst[120];
			fake.control.setPinned(pinned, true);
			// Page 1 holds the pinned post (pinned first) and the newest ones: each poll's page 1 is read before page 2.
			const [deleted, rejected] = [burst.slice(-2), burst.slice(-4, -2)];
			const path = `/feeds/${movingFeed}/posts`;
			fake.control.postChanges.add({ path, query: { page: '1' }, action: 'delete', postIds: deleted });
			fake.control.postChanges.add({ path, query: { page: '1' }, action: 'reject', postIds: rejected });
			fake.control.postChanges.add({ path, query: { page: '1' }, action: 'unpin', postIds: [pinned] });
			const removed = [...deleted, ...rejected];
			const expected = burst.filter((id) => !removed.includes(id));
			let emitted: number[] = [];
			await waitFor(
				'every post that stayed emitted',
				async () => {
					emitted = (await emittedSince(movingWorkflow, before)).flat();
					return expected.every((id) => emitted.includes(id));
				},
				{ timeoutMs: 60_000, intervalMs: 1000 },
			);
			assert.deepEqual(fake.control.postChanges.list(), [], 'the list did not move while a poll read it');
			await nextPoll(polls);
			await nextPoll(polls);
			emitted = (await emittedSince(movingWorkflow, before)).flat();
			assert.equal(new Set(emitted).size, emitted.length, 'a post was emitted twice');
			assert.deepEqual(
				emitted.filter((id) => !removed.includes(id)).sort((a, b) => a - b),
				expected,
			);
			assert.ok(emitted.every((id) => burst.includes(id)), 'a post not of the burst was emitted');
			process.stderr.write(`[e2e] ${order}: ${expected.length} posts emitted once over ${(await emittedSince(movingWorkflow, before)).length} executions; of the 4 removed while read, ${emitted.length - expected.length} emitted before\n`);
		});
	}
});
