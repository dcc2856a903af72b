/**
 * The Social Aggregator Feed Trigger in a real n8n at the volumes real feeds have, the fake's clock moved between
 * polls so that days pass in seconds:
 *
 * - An event wall: 25 hours of 500 posts an hour (12,500) there when the trigger is published, then 2 more hours,
 *   167 posts between polls: every new post exactly once, each poll at most ceil(new/100) + 2 requests.
 * - A source that syncs once a day: 600 posts stored each morning, published over the day before, for 3 days, on a
 *   feed that had such a sync before the trigger was published: every post of the 3 days exactly once, none from
 *   before; a sync's poll at most ceil(600/100) + 2 requests, a quiet poll at most 2.
 * - Two polls of one trigger at once: page 1 answered after 15 s, past the next poll time: every post once.
 *
 * The three triggers poll every 10 seconds, three seconds apart; the cases run at once. The clock moves for all three
 * feeds: a feed's memory holds whatever time passes between its polls.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { e2eSuite, everyTenSeconds, nextPoll, node, pollsAtRest, waitFor, workflow } from './lib';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NODE_NAME = 'New Feed Posts';

// The three cases watch three feeds and run at once: each waits on its own trigger's polls.
describe('Social Aggregator Feed Trigger at the volumes real feeds have', { concurrency: true }, () => {
	const feeds = { wall: 0, daily: 0, overlap: 0 };
	const workflows = { wall: '', daily: '', overlap: '' };
	let beforeTrigger: number[] = [];
	const trigger = (name: string, feedId: number, offset: number) =>
		workflow(name, [], {
			first: node('socialAggregatorFeedTrigger', { feedIds: [String(feedId)], simplify: false, pollTimes: everyTenSeconds(offset) }, { name: NODE_NAME }),
		});
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n, backend }) => {
			const fake = backend.fake!;
			feeds.wall = fake.control.seedFeed({ posts: 12_500, spacingMs: HOUR / 500, name: 'E2E event wall' }).feedId;
			feeds.daily = fake.control.seedFeed({ posts: 40, name: 'E2E synced once a day' }).feedId;
			beforeTrigger = fake.control.syncFeed(feeds.daily, { newPosts: 600, publishedOverMs: DAY }).posts.map((post) => Number(post.id));
			feeds.overlap = fake.control.seedFeed({ posts: 40, name: 'E2E polls at once' }).feedId;
			workflows.wall = await n8n.importWorkflow(trigger('E2E event wall', feeds.wall, 0));
			workflows.daily = await n8n.importWorkflow(trigger('E2E daily sync', feeds.daily, 3));
			workflows.overlap = await n8n.importWorkflow(trigger('E2E polls at once', feeds.overlap, 6));
			const published = Object.values(workflows);
			for (const id of published) await n8n.publish(id);
			return { published };
		},
	});
	const feedPolls = (feedId: number) => () =>
		ctx.backend.fake!.control.requests.list({ method: 'GET' }).filter((request) => request.path === `/feeds/${feedId}/posts`);
	/** Every post ID the workflow's executions emitted, with repeats. */
	async function emitted(workflowId: string): Promise<number[]> {
		const runs = await ctx.n8n.executions(workflowId);
		for (const run of runs) assert.equal(run.status, 'success', `execution ${run.id} ${run.status}`);
		const items = await Promise.all(runs.map(async ({ id }) => (await ctx.n8n.execution(id)).items(NODE_NAME)));
		return items.flat().map((item) => Number(item.id));
	}
	/** Waits until every one of `expected` was emitted, then checks that each was once and nothing else was. */
	async function exactlyOnce(workflowId: string, expected: number[], what: string): Promise<void> {
		let seen: number[] = [];
		await waitFor(`${what}: every post emitted`, async () => {
			seen = await emitted(workflowId);
			return expected.every((id) => seen.includes(id));
		}, { timeoutMs: 60_000, intervalMs: 1000 });
		const repeated = seen.length - new Set(seen).size;
		const wanted = new Set(expected);
		const strangers = seen.filter((id) => !wanted.has(id));
		assert.equal(repeated, 0, `${what}: ${repeated} emissions repeated a post`);
		assert.deepEqual(strangers.slice(0, 10), [], `${what}: ${strangers.length} posts emitted that are not new`);
	}

	it('an event wall, 25 hours of 500 an hour there, then 2 hours: every new post once, each poll at most ceil(new/100) + 2 requests', async () => {
		const fake = ctx.backend.fake!;
		const polls = feedPolls(feeds.wall);
		await nextPoll(polls);
		const fresh: number[] = [];
		const costs: string[] = [];
		for (let step = 0; step < 6; step++) {
			await pollsAtRest(polls);
			fake.control.clock.advance(20 * MINUTE);
			const added = fake.control.syncFeed(feeds.wall, { newPosts: 167, publishedOverMs: 20 * MINUTE }).posts.map((post) => Number(post.id));
			fresh.push(...added);
			const requests = await nextPoll(polls);
			costs.push(`${added.length} new: ${requests}`);
			assert.ok(requests <= Math.ceil(added.length / 100) + 2, `a poll over ${added.length} new posts sent ${requests} requests`);
		}
		await exactlyOnce(workflows.wall, fresh, 'event wall');
		process.stderr.write(`[e2e] event wall: ${fresh.length} new posts each once; requests per poll (${costs.join(', ')})\n`);
	});

	it('a source that syncs once a day, 600 posts a day for 3 days: every post once, none from before; quiet polls at most 2 requests', async () => {
		const fake = ctx.backend.fake!;
		const polls = feedPolls(feeds.daily);
		await nextPoll(polls);
		const synced: number[] = [];
		const costs: string[] = [];
		// Each morning a day after the last sync (the one before the trigger included).
		fake.control.clock.advance(6 * HOUR);
		for (let day = 0; day < 3; day++) {
			await pollsAtRest(polls);
			fake.control.clock.advance(18 * HOUR);
			synced.push(...fake.control.syncFeed(feeds.daily, { newPosts: 600, publishedOverMs: DAY }).posts.map((post) => Number(post.id)));
			const syncPoll = await nextPoll(polls);
			assert.ok(syncPoll <= Math.ceil(600 / 100) + 2, `the poll after a sync of 600 sent ${syncPoll} requests`);
			fake.control.clock.advance(6 * HOUR);
			const quiet = await nextPoll(polls);
			assert.ok(quiet <= 2, `a quiet poll sent ${quiet} requests`);
			costs.push(`sync ${syncPoll}, quiet ${quiet}`);
		}
		await exactlyOnce(workflows.daily, synced, 'daily sync');
		const old = new Set(beforeTrigger);
		assert.equal((await emitted(workflows.daily)).filter((id) => old.has(id)).length, 0, 'a post from before the trigger was published was emitted');
		process.stderr.write(`[e2e] daily sync: ${synced.length} posts each once, none of the ${beforeTrigger.length} from before; requests per day (${costs.join('; ')})\n`);
	});

	it('two polls of one trigger at once (page 1 answered past the next poll time): every post once', async () => {
		const fake = ctx.backend.fake!;
		const polls = feedPolls(feeds.overlap);
		await nextPoll(polls);
		const added = fake.control.syncFeed(feeds.overlap, { newPosts: 30 }).posts.map((post) => Number(post.id));
		fake.control.faults.add({ path: `/feeds/${feeds.overlap}/posts`, query: { page: '1' }, kind: 'delay', delayMs: 15_000, count: 1 });
		await exactlyOnce(workflows.overlap, added, 'overlapping polls');
		// The polls after the slow one, and the one it outlasted, emit nothing again.
		await nextPoll(polls);
		await nextPoll(polls);
		await exactlyOnce(workflows.overlap, added, 'overlapping polls, later');
		const pageOnes = polls().filter((request) => request.query.page === '1').length;
		process.stderr.write(`[e2e] overlapping polls: ${added.length} posts each once; ${pageOnes} page-1 reads in all\n`);
	});
});
