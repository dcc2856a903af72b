/**
 * Catch-up after n8n was away, in a real n8n with the stand-in in its `live` shape (the one with a delivery log):
 * a workflow of the webhook trigger and a Pin node acts on one post; n8n stops; 30 posts come over two feeds, one
 * sync at a time, so the first 10 deliveries fail (one attempt each) and the service disables the subscription,
 * and the other 20 posts make no delivery at all. n8n starts again, and then
 * - the workflow is re-activated (unpublished and published), or
 * - the example "Re-enable disabled webhook subscriptions" runs once (a second n8n and stand-in):
 * every one of the 30 posts is pinned exactly once and passed on by the trigger once, per feed in the order the
 * posts were made (the order in which the trigger passed them on), the posts never delivered marked `caught_up`;
 * the test delivery that asks for the catch-up (test deliveries off, as a workflow that pins every post has them)
 * is acted on by nothing; a retry of the delivery acted on before the outage, sent while the catch-up runs, pins
 * nothing. Then a feed with a pinned post, 150 posts and 5 stored 3 hours late during each outage, in both listing
 * orders: publishing again, the example, the subscription set active at the service followed by one new post, and
 * the same with the first delivery's look back meeting feed pages that answer 503 past the retries (put off) and one
 * more post once the service recovers, and the same again with n8n restarted between (what the look back owes is in
 * n8n's database), each act on every post of the gap and of those deliveries once, nothing before it again, no
 * execution failed; Send Test to a workflow with the defaults runs it once, its item marked test; and a trigger with a
 * feed filter whose first delivery after the subscription is set active at the service is another feed's (ignored):
 * the gap of its feed is caught up, the other feed's post acted on by nothing.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { e2eSuite, pinNewPosts, recordTiming, REPO_ROOT, sleep, waitFor, webhookPath, type E2eContext } from './lib';
import { node, workflow } from './lib/workflow';
import { failingFeedPages, ownerGet, ownerSend, subscriptionAt, syncOne, type Made } from './lib/subscriptions';

type Fake = NonNullable<E2eContext['backend']['fake']>;

const EXAMPLE = path.join(REPO_ROOT, 'examples', 're-enable-disabled-subscriptions.json');
const TRIGGER = 'On New Posts';
const ROUNDS = 15;
/** The post of the stand-in's test delivery (`POST /webhooks/{id}/test`), which the catch-up is asked by. */
const SAMPLE_POST_ID = 0;

/**
 * The stand-in's clock near the real time, so that its times and n8n's agree; one attempt per delivery (no retries),
 * so that 10 deliveries that fail are what disables the subscription.
 */
const BACKEND = { clock: { start: new Date().toISOString(), mode: 'running' }, webhooks: { retryDelaysMs: [], timeoutMs: 5000, disableAfter: 10 } };

/** The service's delivery log of a subscription (GET /webhooks/{id}/deliveries), newest first. */
async function deliveryLog(ctx: E2eContext, id: number) {
	const { data } = await ownerGet<{ data: Array<{ id: string; event: string; status: string; created_at: string }> }>(ctx, `/webhooks/${id}/deliveries?per_page=100`);
	return data;
}

/** The Pin node's requests at the service, in the order they came: the posts acted on. */
function pins(fake: Fake): Array<{ postId: number; feedId: number }> {
	return fake.control.requests
		.list({ method: 'POST' })
		.sort((a, b) => a.seq - b.seq)
		.map((request) => /^\/feeds\/(\d+)\/posts\/(\d+)\/pin$/.exec(request.path))
		.filter((match): match is RegExpExecArray => match !== null)
		.map((match) => ({ feedId: Number(match[1]), postId: Number(match[2]) }));
}

/** Two feeds of one source each, for the posts of the test alone. */
function twoFeeds(fake: Fake, tag: string): Array<{ feedId: number; sourceId: number }> {
	return ['a', 'b'].map((letter) => {
		const { feedId, sourceIds } = fake.control.seedFeed({
			posts: 0,
			name: `Catch-up ${tag} ${letter}`,
			sources: [{ platform: 'Twitter', term: `#catchup${tag}${letter}`, term_type: 'hashtag' }],
		});
		return { feedId, sourceId: sourceIds[0] };
	});
}

/**
 * One post acted on while n8n runs, then the outage: n8n stopped, 30 posts over the two feeds, alternating. Returns
 * the first post's delivery and the 30 posts in the order they were made.
 */
async function actOnOneThenGoAway(ctx: E2eContext, workflowId: string, url: string, feeds: Array<{ feedId: number; sourceId: number }>) {
	const fake = ctx.backend.fake!;
	// The span is counted back from n8n's clock: the stand-in's runs at the real time (it started at the file's load).
	fake.control.clock.set(new Date());
	const subscription = await subscriptionAt(ctx, url);
	assert.ok(subscription, 'the trigger has no subscription');
	const first = await syncOne(fake, feeds[0], subscription.id);
	assert.ok(first.deliveryId, 'the first post made no delivery');
	await ctx.n8n.waitForExecutions(workflowId, 1);
	await waitFor('the first post to be pinned', () => (pins(fake).length === 1 ? true : undefined), { timeoutMs: 20_000 });
	assert.deepEqual(pins(fake), [{ feedId: first.feedId, postId: first.postId }]);

	await ctx.n8n.stop();
	const made: Made[] = [];
	for (let round = 0; round < ROUNDS; round++) {
		for (const feed of feeds) made.push(await syncOne(fake, feed, subscription.id));
	}
	const after = await subscriptionAt(ctx, url);
	assert.equal(after?.status, 'disabled', `the subscription is ${after?.status} after the outage`);
	const log = await deliveryLog(ctx, subscription.id);
	const failed = log.filter((entry) => entry.status === 'failed');
	assert.ok(failed.length >= 10, `the log holds ${failed.length} failed deliveries`);
	assert.deepEqual(
		made.map((post) => post.delivered),
		made.map((_, index) => index < 10),
		'the first 10 posts had a delivery (failed), the other 20 none',
	);
	return { subscriptionId: subscription.id, first, made };
}

/** A post the trigger passed on: in which execution, when the trigger ended there, at which place of its output. */
interface Emitted {
	postId: number;
	feedId: number;
	executionId: string;
	/** When the trigger node of that execution ended (n8n's run data): when the workflow got the post. */
	emittedAt: number;
	index: number;
	item: Record<string, unknown>;
}

/** Every post the trigger passed on, over all executions of the workflow, in the order the workflow got them. */
async function emitted(ctx: E2eContext, workflowId: string): Promise<Emitted[]> {
	const out: Emitted[] = [];
	for (const summary of await ctx.n8n.executions(workflowId)) {
		const execution = await ctx.n8n.execution(summary.id);
		const task = execution.taskData(TRIGGER);
		const emittedAt = task.startTime + task.executionTime;
		execution.items(TRIGGER).forEach((item, index) => {
			if (item.test === true) return;
			const feed = item.feed as { id?: unknown } | undefined;
			out.push({ postId: Number(item.id), feedId: Number(feed?.id), executionId: summary.id, emittedAt, index, item });
		});
	}
	return out.sort((a, b) => a.emittedAt - b.emittedAt || a.index - b.index);
}

/**
 * Waits until the 31 posts were pinned (and a few seconds more for any copy), then checks each post pinned once and
 * passed on by the trigger once; returns the posts in the order the trigger passed them on: by the end of the trigger
 * node in each execution, then by place in its output (the Pin node sends an execution's requests at once, so their
 * order at the service says nothing).
 */
async function assertEachOnceInOrder(ctx: E2eContext, workflowId: string, first: Made, made: Made[], started: number, label: string) {
	const fake = ctx.backend.fake!;
	const expected = [first, ...made];
	const ofPosts = () => pins(fake).filter((pin) => pin.postId !== SAMPLE_POST_ID);
	try {
		await waitFor(`${expected.length} pins`, () => (ofPosts().length >= expected.length ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 });
	} catch (error) {
		const seen = new Set(pins(fake).map((pin) => pin.postId));
		const missing = expected.filter((post) => !seen.has(post.postId)).map((post) => `${post.postId}${post.delivered ? ' (delivered)' : ''}`);
		process.stderr.write(`[catch-up] n8n log:\n${ctx.n8n.logs().split('\n').filter((line) => /Social Aggregator|catch-up|error/i.test(line)).slice(-60).join('\n')}\n`);
		throw new Error(`${(error as Error).message}; missing: ${missing.join(', ')}`);
	}
	recordTiming(`${label}: start of the catch-up until every post of the gap was acted on`, Date.now() - started);
	// A copy acted on a second time would come within moments of the first.
	await sleep(3000);
	const counts = new Map<number, number>();
	for (const pin of ofPosts()) counts.set(pin.postId, (counts.get(pin.postId) ?? 0) + 1);
	const twice = [...counts].filter(([, count]) => count > 1).map(([id]) => id);
	assert.deepEqual(twice, [], 'posts acted on more than once');
	const ids = (list: Array<{ postId: number }>) => list.map((post) => post.postId).sort((a, b) => a - b);
	assert.deepEqual([...counts.keys()].sort((a, b) => a - b), ids(expected), 'the posts acted on are the 31 posts made');

	const passedOn = await emitted(ctx, workflowId);
	assert.deepEqual(ids(passedOn), ids(expected), 'the trigger passed on each of the 31 posts once');
	return passedOn;
}

/** Per feed, the posts in the order the trigger passed them on are in the order they were made. */
function assertInOrderPerFeed(passedOn: Emitted[]) {
	for (const feedId of new Set(passedOn.map((post) => post.feedId))) {
		const ofFeed = passedOn.filter((post) => post.feedId === feedId);
		const order = ofFeed.map((post) => post.postId);
		const detail = ofFeed.map((post) => `${post.postId}@${post.executionId}${post.item.caught_up === true ? ' caught up' : ''}`).join(', ');
		assert.deepEqual(order, [...order].sort((a, b) => a - b), `feed ${feedId}: posts passed on out of order (post@execution): ${detail}`);
	}
}

/** Each post of the outage passed on once; those never delivered marked caught_up, with their catch-up event ID. */
function assertCaughtUpMarks(passedOn: Emitted[], made: Made[]) {
	for (const post of made) {
		const seen = passedOn.filter((emission) => emission.postId === post.postId).map((emission) => emission.item);
		assert.equal(seen.length, 1, `post ${post.postId} is in ${seen.length} trigger outputs`);
		if (!post.delivered) {
			assert.equal(seen[0].caught_up, true, `post ${post.postId}, never delivered, is not marked caught_up`);
			assert.equal(seen[0].event_id, `catch-up:${post.feedId}:${post.postId}`);
		} else {
			assert.notEqual(seen[0].caught_up, true, `post ${post.postId} came in its own delivery, not caught up`);
		}
	}
}

/**
 * The delivery acted on before the outage, sent again by the service while the catch-up runs (once the service has
 * sent the oldest failed delivery again, before the posts of the gap were acted on): the trigger answers it 200, and
 * nothing after the trigger acts on it (checked with the pins and the trigger's output once the catch-up is over).
 */
async function retryDuringCatchUp(ctx: E2eContext, workflowId: string, deliveryId: string, oldestFailed: Made): Promise<void> {
	const fake = ctx.backend.fake!;
	await waitFor(
		'the catch-up to send the oldest failed delivery again',
		() => ((fake.control.webhooks.deliveries().find((d) => d.id === oldestFailed.deliveryId)?.attempts.length ?? 0) >= 2 ? true : undefined),
		{ timeoutMs: 30_000, intervalMs: 50 },
	);
	const running = (await ctx.n8n.executions(workflowId)).filter((execution) => execution.status === 'running').length;
	const pinnedBefore = pins(fake).length;
	const retried = await fake.control.webhooks.redeliver(deliveryId);
	assert.equal(retried.attempts.at(-1)?.status, 200, `the retry was answered ${String(retried.attempts.at(-1)?.status)} (${String(retried.attempts.at(-1)?.error)})`);
	process.stderr.write(`[catch-up] the retry of ${deliveryId} was answered while ${running} execution(s) ran, ${pinnedBefore} of 31 posts pinned\n`);
	assert.ok(pinnedBefore < 31, 'the catch-up was over before the retry came');
}

/** The test delivery that asked for the catch-up is no post of the user's: nothing acts on it, no run fails on it. */
async function assertOnlyPostsActedOn(ctx: E2eContext, workflowId: string) {
	const sample = pins(ctx.backend.fake!).filter((pin) => pin.postId === SAMPLE_POST_ID);
	const failed = (await ctx.n8n.executions(workflowId)).filter((execution) => execution.status !== 'success');
	assert.deepEqual(
		{ samplePostsPinned: sample.length, failedExecutions: failed.map((execution) => execution.id) },
		{ samplePostsPinned: 0, failedExecutions: [] },
		'the sample post of the test delivery that started the catch-up reached the Pin node',
	);
}

/**
 * One post acted on, n8n away while 30 posts come over two new feeds (the subscription disabled after 10 failed
 * deliveries), n8n started again: what the test then repairs.
 */
async function outage(ctx: E2eContext, trigger: ReturnType<typeof pinNewPosts>, workflowId: string, tag: string) {
	const fake = ctx.backend.fake;
	assert.ok(fake, 'this test needs test/fake-service');
	assert.equal(fake.control.shapes(), 'live', 'the delivery log is offered in the live shape only');
	const url = ctx.n8n.webhookUrl(webhookPath(trigger, TRIGGER));
	const gone = await actOnOneThenGoAway(ctx, workflowId, url, twoFeeds(fake, tag));
	await ctx.n8n.start({ port: ctx.n8n.port, webhooks: [webhookPath(trigger, TRIGGER)], published: [workflowId] });
	process.stderr.write(`[catch-up] after the start: subscription ${JSON.stringify(await subscriptionAt(ctx, url))}\n`);
	return { url, ...gone };
}

describe('Catch-up after n8n was away: the workflow re-activated', () => {
	const trigger = pinNewPosts('E2E catch-up (re-activation)', { includeTestDeliveries: false });
	let workflowId = '';
	const ctx = e2eSuite({
		start: true,
		ownServer: true,
		backend: BACKEND,
		beforeStart: async ({ n8n }) => {
			workflowId = await n8n.importWorkflow(trigger);
			await n8n.publish(workflowId);
			return { webhooks: [webhookPath(trigger, TRIGGER)], published: [workflowId] };
		},
	});

	it('acts on each of the 30 posts once, in order per feed, the undelivered ones caught up; a retry during it pins nothing', async () => {
		const { url, subscriptionId, first, made } = await outage(ctx, trigger, workflowId, 'r');
		const started = Date.now();
		await ctx.n8n.rest('POST', `/rest/workflows/${workflowId}/deactivate`, {});
		await ctx.n8n.publish(workflowId);
		const reactivated = await subscriptionAt(ctx, url);
		process.stderr.write(`[catch-up] after re-activation: subscription ${JSON.stringify(reactivated)} (was ${subscriptionId})\n`);

		assert.equal(reactivated?.id, subscriptionId, 'the re-activation replaced the subscription: its delivery log is gone, so is the gap');
		await retryDuringCatchUp(ctx, workflowId, first.deliveryId!, made[0]);

		const passedOn = await assertEachOnceInOrder(ctx, workflowId, first, made, started, 're-activation');
		assertCaughtUpMarks(passedOn, made);
		assert.equal(passedOn.filter((post) => post.postId === first.postId).length, 1, 'the retried delivery reached the workflow again');
		await assertOnlyPostsActedOn(ctx, workflowId);
		assertInOrderPerFeed(passedOn);
	});
});

describe('Catch-up after n8n was away: the example "Re-enable disabled webhook subscriptions"', () => {
	const trigger = pinNewPosts('E2E catch-up (example)', { includeTestDeliveries: false });
	let workflowId = '';
	let exampleId = '';
	const ctx = e2eSuite({
		start: true,
		ownServer: true,
		backend: BACKEND,
		beforeStart: async ({ n8n }) => {
			workflowId = await n8n.importWorkflow(trigger);
			exampleId = await n8n.importWorkflow(EXAMPLE);
			await n8n.publish(workflowId);
			return { webhooks: [webhookPath(trigger, TRIGGER)], published: [workflowId] };
		},
	});

	it('one run of the example catches up: each of the 30 posts acted on once, in order per feed', async () => {
		const { url, subscriptionId, first, made } = await outage(ctx, trigger, workflowId, 'x');
		const started = Date.now();
		const run = await ctx.n8n.runManually(exampleId);
		run.assertSuccess();
		process.stderr.write(`[catch-up] Re-Enable: ${JSON.stringify(run.items('Re-Enable'))}\n`);
		assert.deepEqual(run.items('Re-Enable').map((item) => [item.id, item.catchUpRequested]), [[subscriptionId, true]]);
		assert.equal((await subscriptionAt(ctx, url))?.status, 'active');
		await retryDuringCatchUp(ctx, workflowId, first.deliveryId!, made[0]);

		const passedOn = await assertEachOnceInOrder(ctx, workflowId, first, made, started, 'the example');
		assertCaughtUpMarks(passedOn, made);
		assert.equal(passedOn.filter((post) => post.postId === first.postId).length, 1, 'the retried delivery reached the workflow again');
		await assertOnlyPostsActedOn(ctx, workflowId);
		assertInOrderPerFeed(passedOn);
	});
});

describe('Catch-up of a feed with a pinned post and posts stored late, however the subscription comes back', () => {
	// A workflow that pins every post turns test deliveries off: a test delivery still looks back.
	const trigger = pinNewPosts('E2E catch-up (any order)', { includeTestDeliveries: false });
	/** Defaults only: what Send Test shows a user. */
	const plain = workflow('E2E Send Test', [], { first: node('socialAggregatorTrigger', { events: ['post.created'], options: { allowHttp: true } }, { name: TRIGGER }) });
	let workflowId = '';
	let plainId = '';
	let exampleId = '';
	const ctx = e2eSuite({
		start: true,
		ownServer: true,
		backend: BACKEND,
		beforeStart: async ({ n8n }) => {
			workflowId = await n8n.importWorkflow(trigger);
			plainId = await n8n.importWorkflow(plain);
			exampleId = await n8n.importWorkflow(EXAMPLE);
			await n8n.publish(workflowId);
			await n8n.publish(plainId);
			return { webhooks: [webhookPath(trigger, TRIGGER), webhookPath(plain, TRIGGER)], published: [workflowId, plainId] };
		},
	});

	it('Send Test to a published workflow with the defaults: one execution, its item marked test', async () => {
		const fake = ctx.backend.fake!;
		const subscription = await subscriptionAt(ctx, ctx.n8n.webhookUrl(webhookPath(plain, TRIGGER)));
		assert.ok(subscription, 'the plain workflow has no subscription');
		assert.equal(await ownerSend(ctx, 'POST', `/webhooks/${subscription.id}/test`), 202);
		await fake.control.webhooks.settle();
		const [execution] = await ctx.n8n.waitForExecutions(plainId, 1);
		await sleep(3000);
		assert.equal((await ctx.n8n.executions(plainId)).length, 1, 'Send Test started more than one execution');
		const items = (await ctx.n8n.execution(execution.id)).items(TRIGGER);
		assert.ok(items.length >= 1 && items.every((item) => item.test === true), `the items of a test delivery: ${JSON.stringify(items).slice(0, 300)}`);
	});

	/** One outage: n8n stopped, 10 posts whose deliveries fail (the subscription disabled), then 150 posts and 5 stored 3 hours late. */
	async function outage(feed: { feedId: number; sourceId: number }, subscriptionId: number): Promise<number[]> {
		const fake = ctx.backend.fake!;
		// Near the real time, never back: a post stored later must not have been stored earlier.
		if (Date.now() > fake.control.clock.now().getTime()) fake.control.clock.set(new Date());
		await ctx.n8n.stop();
		const failed: number[] = [];
		for (let n = 0; n < 10; n++) failed.push((await syncOne(fake, feed, subscriptionId)).postId);
		const url = ctx.n8n.webhookUrl(webhookPath(trigger, TRIGGER));
		assert.equal((await subscriptionAt(ctx, url))?.status, 'disabled');
		fake.control.clock.advance(2000);
		const burst = fake.control.syncFeed(feed.feedId, { newPosts: 150, sourceId: feed.sourceId }).posts.map((post) => Number(post.id));
		// The stand-in dates a sync's posts a second apart up to its newest: the clock moves past them, as a service's would.
		fake.control.clock.advance(152_000);
		const late = fake.control.syncFeed(feed.feedId, { newPosts: 5, sourceId: feed.sourceId, publishedBeforeMs: 3 * 3_600_000 }).posts.map((post) => Number(post.id));
		await fake.control.webhooks.settle();
		await ctx.n8n.start({ port: ctx.n8n.port, webhooks: [webhookPath(trigger, TRIGGER), webhookPath(plain, TRIGGER)], published: [workflowId, plainId] });
		return [...failed, ...burst, ...late];
	}

	/** Every post of `expected` pinned exactly once since `pinnedBefore`, and nothing else. */
	async function assertGapOnce(expected: number[], pinnedBefore: number, label: string, started: number) {
		const fake = ctx.backend.fake!;
		const since = () => pins(fake).slice(pinnedBefore).map((pin) => pin.postId);
		try {
			await waitFor(`${expected.length} pins (${label})`, () => (new Set(since()).size >= expected.length ? true : undefined), { timeoutMs: 120_000, intervalMs: 500 });
		} catch (error) {
			const seen = new Set(since());
			throw new Error(`${(error as Error).message}; ${expected.filter((id) => !seen.has(id)).length} missing, e.g. ${expected.filter((id) => !seen.has(id)).slice(0, 5).join(', ')}`);
		}
		recordTiming(`${label}: until each of ${expected.length} posts of the gap was acted on`, Date.now() - started);
		await sleep(4000);
		const counts = new Map<number, number>();
		for (const id of since()) counts.set(id, (counts.get(id) ?? 0) + 1);
		const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
		assert.deepEqual(sorted([...counts.keys()]), sorted(expected), `${label}: the posts acted on are those of the gap`);
		assert.deepEqual([...counts].filter(([, n]) => n > 1), [], `${label}: posts acted on twice`);
	}

	it('publishing again, the Re-Enable example, and the subscription set active at the service: each post of the gap once, nothing before it again', async () => {
		const fake = ctx.backend.fake!;
		assert.equal(fake.control.shapes(), 'live', 'the delivery log is offered in the live shape only');
		const url = ctx.n8n.webhookUrl(webhookPath(trigger, TRIGGER));
		const [feed] = twoFeeds(fake, 'p');
		// History, one post of which is pinned (published two days ago, listed first by the live order).
		fake.control.syncFeed(feed.feedId, { newPosts: 40, sourceId: feed.sourceId, publishedBeforeMs: 6 * 3_600_000 });
		const [old] = fake.control.syncFeed(feed.feedId, { newPosts: 1, sourceId: feed.sourceId, publishedBeforeMs: 48 * 3_600_000 }).posts;
		fake.control.setPinned(Number(old.id), true);
		await fake.control.webhooks.settle();
		await waitFor('the history acted on', () => (pins(fake).length >= 41 ? true : undefined), { timeoutMs: 60_000 });
		const subscriptionId = (await subscriptionAt(ctx, url))!.id;

		/** The subscription set active at the service, then one new post: the post its delivery carries. */
		const activeAtService = async () => {
			assert.equal(await ownerSend(ctx, 'PATCH', `/webhooks/${subscriptionId}`, { status: 'active' }), 200);
			fake.control.clock.advance(2000);
			const [post] = fake.control.syncFeed(feed.feedId, { newPosts: 1, sourceId: feed.sourceId }).posts;
			await fake.control.webhooks.settle();
			return Number(post.id);
		};
		/**
		 * Set active at the service with feed pages answering 503 past the retries: the first delivery's execution runs with
		 * its own post, its look back put off; then `meanwhile` (a restart, say); the service recovers; one more post.
		 */
		const failingLookBack = async (meanwhile: () => Promise<void>) => {
			const failing = failingFeedPages(fake);
			const first = await activeAtService();
			await waitFor('the first delivery\'s post acted on', () => (pins(fake).some((pin) => pin.postId === first) ? true : undefined), { timeoutMs: 90_000, intervalMs: 500 });
			await failing.givenUp();
			await meanwhile();
			failing.remove();
			fake.control.clock.advance(2000);
			const [next] = fake.control.syncFeed(feed.feedId, { newPosts: 1, sourceId: feed.sourceId }).posts;
			await fake.control.webhooks.settle();
			return [first, Number(next.id)];
		};
		/** The posts made by coming back (their deliveries' own), beside the gap's. */
		const ways: Array<{ label: string; order: 'pinnedThenPlatform' | 'stored'; comeBack: () => Promise<number[]> }> = [
			{
				label: 'published again',
				order: 'pinnedThenPlatform',
				comeBack: async () => {
					await ctx.n8n.rest('POST', `/rest/workflows/${workflowId}/deactivate`, {});
					await ctx.n8n.publish(workflowId);
					return [];
				},
			},
			{
				label: 'the Re-Enable example',
				order: 'stored',
				comeBack: async () => {
					const run = await ctx.n8n.runManually(exampleId);
					run.assertSuccess();
					// The plain workflow's subscription, disabled by the same outage, is re-enabled beside it.
					assert.ok(run.items('Re-Enable').some((item) => item.id === subscriptionId), 'the example did not re-enable the subscription');
					return [];
				},
			},
			{
				label: 'set active at the service, then one new post',
				order: 'pinnedThenPlatform',
				comeBack: async () => [await activeAtService()],
			},
			{
				label: 'set active at the service; the first delivery looks back into feed pages that answer 503 past the retries; the service recovers; one more post',
				order: 'stored',
				comeBack: async () => await failingLookBack(async () => undefined),
			},
			{
				label: 'set active at the service; the first delivery looks back into feed pages that answer 503; n8n restarted; the service recovers; one more post',
				order: 'pinnedThenPlatform',
				comeBack: async () =>
					await failingLookBack(async () => {
						// What the look back owes is saved with its execution's end: a deploy after that.
						await waitFor('no execution running', async () => ((await ctx.n8n.executions(workflowId)).every((run) => run.status !== 'running') ? true : undefined), { timeoutMs: 60_000, intervalMs: 500 });
						await ctx.n8n.stop();
						await ctx.n8n.start({ port: ctx.n8n.port, webhooks: [webhookPath(trigger, TRIGGER), webhookPath(plain, TRIGGER)], published: [workflowId, plainId] });
					}),
			},
		];
		for (const way of ways) {
			fake.control.setPostOrder(way.order);
			const gap = await outage(feed, subscriptionId);
			const pinnedBefore = pins(fake).length;
			const started = Date.now();
			const executionsBefore = await ctx.n8n.executions(workflowId);
			const newPosts = await way.comeBack();
			assert.equal((await subscriptionAt(ctx, url))?.status, 'active', `${way.label}: the subscription is not active`);
			await assertGapOnce([...gap, ...newPosts], pinnedBefore, `${way.label} (${way.order})`, started);
			const failed = (await ctx.n8n.executions(workflowId)).filter((run) => !executionsBefore.some((old) => old.id === run.id) && run.status !== 'success');
			assert.deepEqual(failed.map((run) => run.status), [], `${way.label}: executions that did not succeed`);
			process.stderr.write(`[catch-up] ${way.label}, ${way.order} order: ${gap.length} posts of the gap acted on once each\n`);
		}
		fake.control.setPostOrder(null);
	});

	it('a feed filter, the first delivery after the subscription is set active at the service for another feed: the gap of the chosen feed caught up', async () => {
		const fake = ctx.backend.fake!;
		const [chosen, other] = twoFeeds(fake, 'f');
		const filtered = pinNewPosts('E2E catch-up (feed filter)', { includeTestDeliveries: false, feedIds: [String(chosen.feedId)] });
		const filteredId = await ctx.n8n.importWorkflow(filtered);
		await ctx.n8n.publish(filteredId);
		const url = ctx.n8n.webhookUrl(webhookPath(filtered, TRIGGER));
		const subscriptionId = (await subscriptionAt(ctx, url))!.id;
		if (Date.now() > fake.control.clock.now().getTime()) fake.control.clock.set(new Date());
		await ctx.n8n.stop();
		const failed: number[] = [];
		for (let n = 0; n < 10; n++) failed.push((await syncOne(fake, chosen, subscriptionId)).postId);
		assert.equal((await subscriptionAt(ctx, url))?.status, 'disabled');
		fake.control.clock.advance(2000);
		const gap = fake.control.syncFeed(chosen.feedId, { newPosts: 20, sourceId: chosen.sourceId }).posts.map((post) => Number(post.id));
		fake.control.clock.advance(22_000);
		await fake.control.webhooks.settle();
		const path = webhookPath(filtered, TRIGGER);
		await ctx.n8n.start({ port: ctx.n8n.port, webhooks: [path, webhookPath(trigger, TRIGGER), webhookPath(plain, TRIGGER)], published: [filteredId, workflowId, plainId] });
		const pinnedBefore = pins(fake).length;
		const started = Date.now();
		assert.equal(await ownerSend(ctx, 'PATCH', `/webhooks/${subscriptionId}`, { status: 'active' }), 200);
		// The first delivery after it is another feed's: the trigger ignores it, and still looks back.
		fake.control.clock.advance(2000);
		const [ignored] = fake.control.syncFeed(other.feedId, { newPosts: 1, sourceId: other.sourceId }).posts;
		await fake.control.webhooks.settle();
		await assertGapOnce([...failed, ...gap], pinnedBefore, 'feed filter, another feed\'s delivery first', started);
		assert.ok(!pins(fake).some((pin) => pin.postId === Number(ignored.id)), 'the other feed\'s post was acted on');
	});
});
