/**
 * Catch-up over a gap, in a real n8n with the stand-in in its `live` shape (the one with a delivery log), two cases
 * the first catch-up file leaves out. Each outage: n8n away as the service sees it (the stand-in's
 * `webhooks.setUnreachable`: every attempt a refused connection; catch-up.e2e.ts stops n8n itself), 10 posts whose
 * deliveries fail (the service disables the subscription), then the posts of the gap, synced while it was disabled (no
 * delivery); n8n reachable again.
 *
 * - The test delivery carries the newest posts of the gap as its sample (SERVICE-NOTES.md: a test delivery "may be
 *   real, recent posts of a feed ... which were not delivered by it"; the stand-in's `setTestSample('newestPosts')`).
 *   With *Include Test Deliveries* on (the default) its items run the workflow, marked `test`; a Filter lets only the
 *   other items reach the Pin node. Publishing again and the Re-Enable example, over gaps of 10 and of 150 posts:
 *   every post of the failed deliveries and of the gap acted on exactly once as a real item (the sample posts too),
 *   the test items seen by the trigger and by nothing after the Filter, no execution failed.
 * - A list that moves while the catch-up reads it: a gap of 250 posts (three pages), one of them pinned, and right
 *   after the catch-up's first read of the feed's page 1, its two newest posts deleted, the two after them rejected
 *   and the pinned one unpinned, in both listing orders. The catch-up reads the feed with no status filter, so a
 *   rejected post stays in the list: every post of the gap but the deleted ones exactly once, the rejected included;
 *   the deleted ones at most once (read before they went, a pin of them answers 404); nothing twice.
 * - Max Age: the trigger refuses deliveries older than 30 minutes. An outage three hours ago: the failed deliveries
 *   are not sent again (the trigger would refuse each with 422, and the service counts refusals towards disabling);
 *   their posts and the gap's are read from the feed: every one acted on once, no delivery refused, the subscription
 *   active with no failure counted. Run first, while the stand-in's clock is still three hours behind.
 *
 * One n8n for the file, its own (ownServer), beside the stand-in whose clock starts three hours behind.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { e2eSuite, recordTiming, REPO_ROOT, waitFor, webhookPath, type E2eContext, type ExecutionSummary } from './lib';
import { node, workflow } from './lib/workflow';
import { subscriptionAt } from './lib/subscriptions';

type Fake = NonNullable<E2eContext['backend']['fake']>;
interface Feed {
	feedId: number;
	sourceId: number;
}

const EXAMPLE = path.join(REPO_ROOT, 'examples', 're-enable-disabled-subscriptions.json');
const TRIGGER = 'On New Posts';
/** Failed deliveries in a row that make the service disable a subscription (the stand-in's `disableAfter`). */
const FAILED = 10;

/** The trigger's Max Age (minutes), and how far behind the real time the stand-in's clock starts (ms). */
const MAX_AGE_MINUTES = 30;
const CLOCK_BEHIND_MS = 3 * 3_600_000;

/**
 * The stand-in's clock three hours behind the real time for the first case (Max Age), then moved to it; one attempt
 * per delivery (no retries), so that 10 deliveries that fail are what disables the subscription.
 */
const BACKEND = {
	clock: { start: new Date(Date.now() - CLOCK_BEHIND_MS).toISOString(), mode: 'running' },
	webhooks: { retryDelaysMs: [], timeoutMs: 5000, disableAfter: FAILED },
};

/**
 * The trigger (test deliveries included, the default), a Filter that lets through only the items that are not a test
 * delivery's, and a Pin node: the pins at the service are the posts acted on. A pin of a post deleted meanwhile answers
 * 404, which the Pin node passes on as an error item rather than failing the execution (its request is still counted).
 */
function pinRealPosts(name: string) {
	const options = { allowHttp: true, maxAge: MAX_AGE_MINUTES };
	const first = node('socialAggregatorTrigger', { events: ['post.created'], output: 'eachPost', options }, { name: TRIGGER });
	const realOnly = node(
		'n8n-nodes-base.filter',
		{
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
				conditions: [
					{
						id: '3c1b7a52-5d0e-4f7a-9a1c-6e2b8d4f0a11',
						leftValue: '={{ $json.test !== true }}',
						rightValue: '',
						operator: { type: 'boolean', operation: 'true', singleValue: true },
					},
				],
				combinator: 'and',
			},
			options: {},
		},
		{ name: 'Real Posts Only', typeVersion: 2.2 },
	);
	const pin = node(
		'socialAggregator',
		{ resource: 'post', operation: 'pin', feedId: { __rl: true, mode: 'id', value: '={{ $json.feed.id }}' }, postId: '={{ $json.id }}' },
		{ name: 'Pin', onError: 'continueRegularOutput' },
	);
	return workflow(name, [realOnly, pin], { first });
}

/** The Pin node's requests at the service, in the order they came: the posts acted on, with the service's answer. */
function pins(fake: Fake): Array<{ postId: number; status: number }> {
	return fake.control.requests
		.list({ method: 'POST' })
		.sort((a, b) => a.seq - b.seq)
		.flatMap((request) => {
			const match = /^\/feeds\/\d+\/posts\/(\d+)\/pin$/.exec(request.path);
			return match ? [{ postId: Number(match[1]), status: request.status }] : [];
		});
}

/** A feed of one source, for one case's posts alone. */
function newFeed(fake: Fake, tag: string): Feed {
	const { feedId, sourceIds } = fake.control.seedFeed({
		posts: 0,
		name: `Catch-up gaps ${tag}`,
		sources: [{ platform: 'Twitter', term: `#gaps${tag.replace(/\W/g, '')}`, term_type: 'hashtag' }],
	});
	return { feedId, sourceId: sourceIds[0] };
}

const ascending = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b);

describe('Catch-up over a gap: a test delivery whose sample is the newest posts of the gap; a list that moves while it is read', () => {
	const trigger = pinRealPosts('E2E catch-up gaps');
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
	const hookUrl = () => ctx.n8n.webhookUrl(webhookPath(trigger, TRIGGER));

	/**
	 * The outage: n8n unreachable; 10 posts synced one at a time, each delivery failing (the subscription disabled);
	 * then `gapSize` posts in one sync, no delivery; n8n reachable again. `beforeStart` runs while n8n is still away.
	 */
	async function outage(
		feed: Feed,
		gapSize: number,
		beforeStart?: (gap: number[]) => void,
		long = false,
	): Promise<{ failed: number[]; gap: number[]; subscriptionId: number }> {
		const fake = ctx.backend.fake!;
		assert.equal(fake.control.shapes(), 'live', 'the delivery log is offered in the live shape only');
		const subscription = await subscriptionAt(ctx, hookUrl());
		assert.equal(subscription?.status, 'active', 'the subscription is not active before the outage');
		const subscriptionId = subscription!.id;
		// Near the real time, never back (a post stored later must not have been stored earlier); `long`: an outage
		// that began while the clock was still behind.
		if (!long && Date.now() > fake.control.clock.now().getTime()) fake.control.clock.set(new Date());
		fake.control.webhooks.setUnreachable(hookUrl(), true);
		const failed: number[] = [];
		for (let n = 0; n < FAILED; n++) {
			fake.control.clock.advance(2000);
			const sync = fake.control.syncFeed(feed.feedId, { newPosts: 1, sourceId: feed.sourceId });
			await fake.control.webhooks.settle();
			const ours = fake.control.webhooks.deliveries({ webhookId: subscriptionId }).filter((d) => sync.deliveries.includes(d.id));
			assert.deepEqual(ours.map((d) => d.state), ['failed'], `post ${n + 1} of the outage: its delivery`);
			failed.push(Number(sync.posts[0].id));
		}
		assert.equal((await subscriptionAt(ctx, hookUrl()))?.status, 'disabled', 'the subscription is not disabled after 10 failed deliveries');
		fake.control.clock.advance(2000);
		const sync = fake.control.syncFeed(feed.feedId, { newPosts: gapSize, sourceId: feed.sourceId });
		assert.deepEqual(fake.control.webhooks.deliveries({ webhookId: subscriptionId }).filter((d) => sync.deliveries.includes(d.id)), [], 'a post of the gap made a delivery');
		// The stand-in dates a sync's posts a second apart up to its newest: the clock moves past them, as a service's would.
		fake.control.clock.advance(gapSize * 1000 + 2000);
		const gap = ascending(sync.posts.map((post) => Number(post.id)));
		if (long) fake.control.clock.set(new Date());
		beforeStart?.(gap);
		await fake.control.webhooks.settle();
		fake.control.webhooks.setUnreachable(hookUrl(), false);
		return { failed, gap, subscriptionId };
	}

	/** The two ways back this file takes: publishing the workflow again, and one run of the Re-Enable example. */
	async function comeBack(way: 'publish' | 'reEnable', subscriptionId: number): Promise<void> {
		if (way === 'publish') {
			await ctx.n8n.rest('POST', `/rest/workflows/${workflowId}/deactivate`, {});
			await ctx.n8n.publish(workflowId);
		} else {
			const run = await ctx.n8n.runManually(exampleId);
			run.assertSuccess();
			assert.deepEqual(
				run.items('Re-Enable').map((item) => [item.id, item.catchUpRequested]),
				[[subscriptionId, true]],
				'the example did not re-enable the subscription, with its catch-up',
			);
		}
		const after = await subscriptionAt(ctx, hookUrl());
		assert.deepEqual([after?.id, after?.status], [subscriptionId, 'active'], `${way}: the subscription`);
	}

	/**
	 * Waits for the executions the catch-up makes (the 10 failed deliveries sent again and the test delivery's), all
	 * finished, nothing left to deliver; returns them with the posts the Pin node acted on meanwhile.
	 */
	async function catchUpOver(before: ExecutionSummary[], pinnedBefore: number, label: string, started: number, runsExpected = FAILED + 1) {
		const fake = ctx.backend.fake!;
		const fresh = async () => (await ctx.n8n.executions(workflowId)).filter((run) => !before.some((old) => old.id === run.id));
		const done = async () => {
			await fake.control.webhooks.settle();
			const runs = await fresh();
			return runs.length >= runsExpected && runs.every((run) => !['new', 'running', 'waiting', 'unknown'].includes(run.status)) ? runs : undefined;
		};
		await waitFor(`${label}: the executions of the catch-up, finished`, done, { timeoutMs: 120_000, intervalMs: 500 });
		// Nothing after them: the last check finds what the one before found.
		const runs = await waitFor(`${label}: no execution after them`, async () => {
			const first = await done();
			const second = first && (await done());
			return first && second && second.length === first.length ? second : undefined;
		}, { timeoutMs: 30_000, intervalMs: 500 });
		recordTiming(`${label}: until the catch-up's executions were over`, Date.now() - started);
		const failedRuns = runs.filter((run) => run.status !== 'success').map((run) => `${run.id} ${run.status}`);
		assert.deepEqual(failedRuns, [], `${label}: executions that did not succeed`);
		const items = await Promise.all(runs.map(async (run) => (await ctx.n8n.execution(run.id)).items(TRIGGER)));
		return { runs, triggerItems: items.flat(), pinned: pins(fake).slice(pinnedBefore) };
	}

	/** How often each post was acted on (pinned). */
	function countPins(pinned: Array<{ postId: number }>): Map<number, number> {
		const counts = new Map<number, number>();
		for (const { postId } of pinned) counts.set(postId, (counts.get(postId) ?? 0) + 1);
		return counts;
	}

	it(`Max Age ${MAX_AGE_MINUTES} min, an outage three hours ago: the failed deliveries are not sent again (refused they would count towards disabling); each of their posts and of the gap acted on once`, async () => {
		const fake = ctx.backend.fake!;
		const label = 'Max Age, published again';
		assert.ok(Date.now() - fake.control.clock.now().getTime() > 2 * 3_600_000, 'the stand-in\'s clock is not behind: this case must run first');
		fake.control.setPostOrder('stored');
		fake.control.webhooks.setTestSample('synthetic');
		const feed = newFeed(fake, 'max age');
		const { failed, gap, subscriptionId } = await outage(feed, 40, undefined, true);
		const deliveriesBefore = new Set(fake.control.webhooks.deliveries({ webhookId: subscriptionId }).map((d) => d.id));
		const requestsBefore = fake.control.requests.list({ method: 'POST' }).length;
		const before = await ctx.n8n.executions(workflowId);
		const pinnedBefore = pins(fake).length;
		const started = Date.now();
		await comeBack('publish', subscriptionId);
		// One execution: the test delivery's, which caught up the posts of the failed deliveries and of the gap.
		const { triggerItems, pinned } = await catchUpOver(before, pinnedBefore, label, started, 1);
		const redelivered = fake.control.requests.list({ method: 'POST' }).slice(requestsBefore).filter((request) => request.path.endsWith('/redeliver'));
		assert.deepEqual(redelivered.map((request) => request.path), [], `${label}: failed deliveries sent again`);
		const refused = fake.control.webhooks
			.deliveries({ webhookId: subscriptionId })
			.flatMap((d) => d.attempts.filter((attempt) => !deliveriesBefore.has(d.id) || Date.parse(attempt.at) >= started - 1000))
			.filter((attempt) => attempt.status !== 200);
		assert.deepEqual(refused.map((attempt) => attempt.status), [], `${label}: deliveries the trigger refused`);
		const subscription = await subscriptionAt(ctx, hookUrl());
		assert.deepEqual([subscription?.status, subscription?.consecutive_failures], ['active', 0], `${label}: the subscription`);

		const expected = ascending([...failed, ...gap]);
		const counts = countPins(pinned);
		assert.deepEqual(expected.filter((id) => !counts.has(id)), [], `${label}: posts never acted on`);
		assert.deepEqual([...counts].filter(([, n]) => n > 1), [], `${label}: posts acted on twice`);
		assert.deepEqual(ascending(counts.keys()), expected, `${label}: the posts acted on are those of the outage`);
		assert.ok(triggerItems.filter((item) => item.test !== true).every((item) => item.caught_up === true), `${label}: items not caught up`);
		process.stderr.write(`[catch-up-gaps] ${label}: ${expected.length} posts (${failed.length} of failed deliveries three hours old) acted on once each, none sent again, none refused\n`);
	});

	const cases = [
		{ way: 'publish', gapSize: 10, order: 'pinnedThenPlatform' },
		{ way: 'reEnable', gapSize: 10, order: 'stored' },
		{ way: 'publish', gapSize: 150, order: 'stored' },
		{ way: 'reEnable', gapSize: 150, order: 'pinnedThenPlatform' },
	] as const;
	for (const { way, gapSize, order } of cases) {
		const label = `${way === 'publish' ? 'published again' : 'the Re-Enable example'}, a gap of ${gapSize}`;
		it(`${label}: the test delivery carries the newest posts of the gap; each post of the gap acted on once as a real item`, async () => {
			const fake = ctx.backend.fake!;
			fake.control.setPostOrder(order);
			fake.control.webhooks.setTestSample('newestPosts');
			const feed = newFeed(fake, `${way} ${gapSize}`);
			const { failed, gap, subscriptionId } = await outage(feed, gapSize);
			const testsBefore = new Set(fake.control.webhooks.deliveries({ webhookId: subscriptionId }).map((d) => d.id));
			const before = await ctx.n8n.executions(workflowId);
			const pinnedBefore = pins(fake).length;
			const started = Date.now();
			await comeBack(way, subscriptionId);
			const { triggerItems, pinned } = await catchUpOver(before, pinnedBefore, label, started);

			// The test delivery the way back asked for: its sample is the newest posts of the gap.
			const tests = fake.control.webhooks
				.deliveries({ webhookId: subscriptionId })
				.filter((d) => !testsBefore.has(d.id))
				.map((d) => JSON.parse(d.body) as { data: { test?: boolean; feed: { id: number }; posts: Array<{ id: number }> } })
				.filter((body) => body.data.test === true);
			assert.equal(tests.length, 1, `${label}: test deliveries sent`);
			const sample = ascending(tests[0].data.posts.map((post) => post.id));
			assert.deepEqual([tests[0].data.feed.id, sample], [feed.feedId, gap.slice(-3)], `${label}: the test delivery's sample is not the newest posts of the gap`);
			// Its items ran the workflow (test deliveries on), marked test: the trigger passed them on.
			const testItems = triggerItems.filter((item) => item.test === true);
			assert.deepEqual(ascending(testItems.map((item) => Number(item.id))), sample, `${label}: the test items the trigger passed on`);

			// Every post of the failed deliveries and of the gap once, as a real item, the sample's too; nothing else.
			const expected = ascending([...failed, ...gap]);
			const real = triggerItems.filter((item) => item.test !== true);
			const realCounts = countPins(real.map((item) => ({ postId: Number(item.id) })));
			assert.deepEqual([...realCounts].filter(([, n]) => n > 1), [], `${label}: posts the trigger passed on twice as real items`);
			assert.deepEqual(ascending(realCounts.keys()), expected, `${label}: the posts the trigger passed on as real items`);
			for (const id of sample) {
				const item = real.find((candidate) => Number(candidate.id) === id)!;
				assert.deepEqual([item.caught_up, item.event_id], [true, `catch-up:${feed.feedId}:${id}`], `${label}: post ${id} of the sample, as a real item`);
			}
			const counts = countPins(pinned);
			const missing = expected.filter((id) => !counts.has(id));
			assert.deepEqual(missing, [], `${label}: posts of the gap never acted on (the sample's are ${sample.join(', ')})`);
			assert.deepEqual([...counts].filter(([, n]) => n > 1), [], `${label}: posts acted on twice`);
			assert.deepEqual(ascending(counts.keys()), expected, `${label}: the posts acted on are those of the gap`);
			assert.deepEqual(pinned.filter((pin) => pin.status !== 200), [], `${label}: pins the service refused`);
			process.stderr.write(`[catch-up-gaps] ${label} (${order} order): ${expected.length} posts acted on once each; the test delivery's sample ${sample.join(', ')} passed on as test items and as real ones\n`);
		});
	}

	for (const order of ['pinnedThenPlatform', 'stored'] as const) {
		it(`${order}: a gap of 250 posts whose list moves while the catch-up reads it (2 deleted, 2 rejected, the pinned one unpinned): every other post once, nothing twice`, async () => {
			const fake = ctx.backend.fake!;
			const label = `a list that moves, ${order}`;
			fake.control.setPostOrder(order);
			fake.control.webhooks.setTestSample('synthetic');
			const feed = newFeed(fake, `moving ${order}`);
			let pinnedPost = 0;
			const { failed, gap, subscriptionId } = await outage(feed, 250, (posts) => {
				pinnedPost = posts[120];
				fake.control.setPinned(pinnedPost, true);
			});
			// Page 1 holds the newest posts in both orders (and the pinned one in the first): changed once the catch-up read it.
			const [deleted, rejected] = [gap.slice(-2), gap.slice(-4, -2)];
			const feedPath = `/feeds/${feed.feedId}/posts`;
			fake.control.postChanges.add({ path: feedPath, query: { page: '1' }, action: 'delete', postIds: deleted });
			fake.control.postChanges.add({ path: feedPath, query: { page: '1' }, action: 'reject', postIds: rejected });
			fake.control.postChanges.add({ path: feedPath, query: { page: '1' }, action: 'unpin', postIds: [pinnedPost] });
			const readsBefore = fake.control.requests.list({ method: 'GET', path: feedPath }).length;
			const before = await ctx.n8n.executions(workflowId);
			const pinnedBefore = pins(fake).length;
			const started = Date.now();
			await comeBack('publish', subscriptionId);
			const { triggerItems, pinned } = await catchUpOver(before, pinnedBefore, label, started);
			assert.deepEqual(fake.control.postChanges.list(), [], `${label}: the list did not move while the catch-up read it`);
			const reads = fake.control.requests.list({ method: 'GET', path: feedPath }).slice(readsBefore);
			const pages = reads.map((request) => request.query.page).join(', ');

			const counts = countPins(pinned);
			const expected = ascending([...failed, ...gap].filter((id) => !deleted.includes(id)));
			const missing = expected.filter((id) => !counts.has(id));
			assert.deepEqual(missing, [], `${label}: posts of the gap never acted on (the catch-up read pages ${pages} of the feed)`);
			assert.deepEqual([...counts].filter(([, n]) => n > 1), [], `${label}: posts acted on twice`);
			assert.deepEqual(ascending([...counts.keys()].filter((id) => !deleted.includes(id))), expected, `${label}: the posts acted on are those of the gap`);
			// A pin of a post deleted meanwhile answers 404; every other pin 200.
			assert.deepEqual(pinned.filter((pin) => pin.status !== 200 && !deleted.includes(pin.postId)), [], `${label}: pins the service refused`);
			const real = triggerItems.filter((item) => item.test !== true);
			const statuses = rejected.map((id) => real.find((item) => Number(item.id) === id)?.moderation_status);
			const deletedActedOn = deleted.filter((id) => counts.has(id)).length;
			process.stderr.write(
				`[catch-up-gaps] ${label}: ${expected.length} posts acted on once each; pages read ${pages}; of the 2 deleted, ${deletedActedOn} acted on (read before they went); the rejected passed on as ${statuses.join(', ')}\n`,
			);
		});
	}
});
