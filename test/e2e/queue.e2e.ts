/**
 * The webhook trigger in n8n's queue mode: PostgreSQL and Redis (Debian's packages), a main
 * process, 2 workers and 2 webhook processes (A and B), the packed package in each. The node after
 * the trigger pins each delivered post; its requests to the service are the side effects counted,
 * and n8n's executions are counted in PostgreSQL.
 * - one delivery to A, the same bytes to B, to A after A restarts, then two copies at once to A
 *   and B: the posts are pinned once;
 * - a fresh delivery sent to A and B at the same instant, many times: how often the remaining race
 *   (two workers checking at once) lets a duplicate through is measured and printed;
 * - a delivery that starts the workflow at a webhook process is answered `{"received":true,"id":…}`
 *   as `application/json`;
 * - the action node's Return All of a 2,000-post feed runs in a worker with every post once;
 * - the Feed Trigger polls from main (its memory is n8n's poll state, saved by main): activation starts
 *   nothing, 250 posts added between two polls run once in a worker, oldest first, and posts added while
 *   main is stopped come once after it starts again, nothing repeated;
 * - an outage of webhook process A (the subscription's address) until the service disables the subscription, posts
 *   stored meanwhile, the subscription set active at the service: the first delivery's look back (in a worker) meets
 *   feed pages answering 503 past the retries and is put off (owed in the workflow's static data); the service
 *   recovers; the next delivery, at webhook process B: every post of the gap and both deliveries' pinned once, each
 *   failed delivery sent again once;
 * - A and B both away until the subscription is disabled, then a re-enable at the service and deliveries to A and to
 *   B within a minute, each the first its process receives (both look back): every post pinned once, each failed
 *   delivery sent again once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { SEEDED } from '../fake-service';
import { node, pinNewPosts, postSigned, recordTiming, sleep, startBackend, waitFor, webhookPath, workflow, type Backend } from './lib';
import { QueueCluster } from './lib/queue';
import { failingFeedPages, ownerSend, subscriptionAt, syncOne, type Made } from './lib/subscriptions';

const FEED = SEEDED.feeds.brandMentions;

// Only this feed: the 2,000-post feed of the Return All test starts nothing.
const trigger = pinNewPosts('E2E queue post.created', { feedIds: [String(FEED)] });

const FEED_TRIGGER = 'New Feed Posts';
/** The Feed Trigger polling every 10 seconds (six once-a-minute poll times, as in poll.e2e.ts). */
const feedTrigger = (feedId: number) =>
	workflow('E2E queue feed trigger', [], {
		first: node(
			'socialAggregatorFeedTrigger',
			{
				feedIds: [String(feedId)],
				simplify: false,
				pollTimes: { item: [0, 10, 20, 30, 40, 50].map((second) => ({ mode: 'custom', cronExpression: `${second} * * * * *` })) },
			},
			{ name: FEED_TRIGGER },
		),
	});

describe('Social Aggregator Trigger in n8n queue mode (main, 2 workers, 2 webhook processes)', () => {
	let cluster: QueueCluster;
	let backend: Backend;
	let workflowId = '';
	let returnAllId = '';
	let bigFeed = 0;
	let polledFeed = 0;
	let feedTriggerId = '';
	const triggerPath = webhookPath(trigger, 'On New Posts');

	before(
		async () => {
			const started = Date.now();
			// Rate limits are another test's subject; here they would only slow the pins down.
			backend = await startBackend({ limits: { enabled: false } });
			const fake = backend.fake!;
			bigFeed = fake.control.seedFeed({ posts: 2000, name: 'Two thousand posts' }).feedId;
			polledFeed = fake.control.seedFeed({ posts: 40, name: 'Polled by the Feed Trigger' }).feedId;
			cluster = await QueueCluster.create();
			const n8n = cluster.n8n;
			n8n.redactor.add(backend.apiKey);
			await n8n.importCredential({ name: 'Social Aggregator (e2e)', data: { apiKey: backend.apiKey, baseUrl: backend.url } });
			workflowId = await n8n.importWorkflow(trigger);
			returnAllId = await n8n.importWorkflow(
				workflow('E2E queue Return All', [
					node(
						'socialAggregator',
						{ resource: 'post', operation: 'getAll', feedId: { __rl: true, mode: 'id', value: String(bigFeed) }, returnAll: true },
						{ name: 'All Posts' },
					),
				]),
			);
			feedTriggerId = await n8n.importWorkflow(feedTrigger(polledFeed));
			await n8n.publish(workflowId);
			await n8n.publish(feedTriggerId);
			await cluster.startMain({ published: [workflowId, feedTriggerId] });
			await Promise.all([
				cluster.startProcess('worker', 1),
				cluster.startProcess('worker', 2),
				cluster.startProcess('webhook', 1),
				cluster.startProcess('webhook', 2),
			]);
			for (const index of [1, 2]) await waitForTrigger(index);
			recordTiming('queue mode: PostgreSQL, Redis, main, 2 workers, 2 webhook processes ready', Date.now() - started);
		},
		{ timeout: 600_000 },
	);

	after(
		async () => {
			await cluster?.stop();
			await backend?.close();
		},
		{ timeout: 120_000 },
	);

	/** Until webhook process `index` knows the trigger: an unsigned POST gets 401, not 404. */
	async function waitForTrigger(index: number): Promise<void> {
		await waitFor(
			`the trigger at webhook process ${index}`,
			async () => (await fetch(cluster.webhookUrl(triggerPath, index), { method: 'POST', body: '{}' })).status === 401,
			{ timeoutMs: 60_000, intervalMs: 200 },
		);
	}

	const pins = () =>
		backend.fake!.control.requests.list({ method: 'POST' }).filter((request) => /\/posts\/[^/]+\/pin$/.test(request.path));
	const pinsOf = (postId: number) => pins().filter((request) => request.path.endsWith(`/posts/${postId}/pin`)).length;
	const executionCount = async () =>
		Number(await cluster.psql('n8n', `SELECT count(*) FROM execution_entity WHERE "workflowId" = '${workflowId}'`));
	async function settledExecutions(count: number): Promise<number> {
		return await waitFor(
			`${count} finished executions in PostgreSQL`,
			async () => {
				const finished = Number(
					await cluster.psql('n8n', `SELECT count(*) FROM execution_entity WHERE "workflowId" = '${workflowId}' AND finished AND status = 'success'`),
				);
				return finished >= count ? finished : undefined;
			},
			{ timeoutMs: 60_000, intervalMs: 200 },
		);
	}

	/** Sends raw bytes, signed with the subscription's secret, to webhook process `index`. */
	async function send(index: number, body: string, webhookId: number): Promise<number | null> {
		const result = await backend.fake!.control.webhooks.deliver({ url: cluster.webhookUrl(triggerPath, index), body, webhookId });
		return result.status;
	}

	let delivery: { id: string; body: string; webhookId: number };
	let postIds: number[] = [];

	it('one delivery to webhook process A runs in a worker and pins its posts once', async () => {
		const fake = backend.fake!;
		const sync = fake.control.syncFeed(FEED, { newPosts: 3, sourceId: SEEDED.sources.twitterAcme });
		await fake.control.webhooks.settle();
		const ours = fake.control.webhooks
			.deliveries({ event: 'post.created' })
			.filter((d) => sync.deliveries.includes(d.id) && d.url === cluster.webhookUrl(triggerPath, 1));
		assert.equal(ours.length, 1, 'the subscription should point at webhook process A');
		const [sent] = ours;
		assert.deepEqual(sent.attempts.map((a) => a.status), [200]);
		delivery = sent;
		postIds = sync.posts.map((post) => Number(post.id));
		assert.equal(await settledExecutions(1), 1);
		await waitFor('the pins', () => pins().length >= 3);
		assert.deepEqual(postIds.map(pinsOf), [1, 1, 1]);
		assert.match(cluster.output('worker-1') + cluster.output('worker-2'), /Worker started execution/);
	});

	it('the same bytes to webhook process B: an execution, nothing pinned again', async () => {
		assert.equal(await send(2, delivery.body, delivery.webhookId), 200);
		assert.equal(await settledExecutions(2), 2);
		await sleep(500);
		assert.deepEqual(postIds.map(pinsOf), [1, 1, 1]);
	});

	it('the same bytes to A after A restarts: nothing pinned again', async () => {
		await cluster.stopProcess('webhook', 1);
		await cluster.startProcess('webhook', 1);
		await waitForTrigger(1);
		assert.equal(await send(1, delivery.body, delivery.webhookId), 200);
		assert.equal(await settledExecutions(3), 3);
		await sleep(500);
		assert.deepEqual(postIds.map(pinsOf), [1, 1, 1]);
	});

	it('two copies at once to A and B: nothing pinned again', async () => {
		const statuses = await Promise.all([send(1, delivery.body, delivery.webhookId), send(2, delivery.body, delivery.webhookId)]);
		assert.deepEqual(statuses, [200, 200]);
		// A webhook process counts a delivery handled only once its execution ran, and here that runs in a worker: each
		// copy starts an execution, whose check in PostgreSQL passes nothing on.
		assert.equal(await settledExecutions(5), 5);
		await sleep(500);
		assert.deepEqual(postIds.map(pinsOf), [1, 1, 1]);
	});

	it('a fresh delivery, two copies at once to A and B: its posts are pinned once', async () => {
		const fake = backend.fake!;
		const sync = fake.control.syncFeed(FEED, { newPosts: 2, sourceId: SEEDED.sources.twitterAcme });
		// The service's own attempt goes to A; copies of the same bytes reach A and B at once.
		const [sent] = fake.control.webhooks
			.deliveries({ event: 'post.created' })
			.filter((d) => sync.deliveries.includes(d.id) && d.url === cluster.webhookUrl(triggerPath, 1));
		const copies = await Promise.all([send(1, sent.body, sent.webhookId), send(2, sent.body, sent.webhookId)]);
		assert.deepEqual(copies, [200, 200]);
		await fake.control.webhooks.settle();
		await sleep(2000);
		assert.deepEqual(sync.posts.map((post) => pinsOf(Number(post.id))), [1, 1]);
	});

	it('a delivery that starts the workflow at webhook process B is answered JSON naming it, once enqueued', async () => {
		const fake = backend.fake!;
		const template = JSON.parse(delivery.body) as { data: { feed: unknown; source: unknown } };
		const id = `dlv_ack_${Date.now()}`;
		const page = await fetch(`${backend.url}/feeds/${FEED}/posts?per_page=100&page=2`, { headers: { Authorization: `Bearer ${backend.apiKey}` } });
		const post = ((await page.json()) as { data: Array<Record<string, unknown>> }).data.reverse().find((p) => pinsOf(Number(p.id)) === 0)!;
		const body = JSON.stringify({ id, event: 'post.created', occurred_at: new Date().toISOString(), data: { ...template.data, posts: [post] } });
		const { status, contentType, text } = await postSigned(fake, delivery.webhookId, cluster.webhookUrl(triggerPath, 2), body);
		assert.equal(status, 200, text);
		assert.match(contentType, /^application\/json/);
		assert.deepEqual(JSON.parse(text), { received: true, id });
		await waitFor('the pin', () => pinsOf(Number(post.id)) === 1);
	});

	it('a fresh delivery sent to A and B at the same instant: measures how often both act (the remaining race)', async () => {
		const template = JSON.parse(delivery.body) as { data: { feed: unknown; source: unknown; posts: Array<Record<string, unknown>> } };
		const feedPosts: Array<Record<string, unknown>> = [];
		for (const page of [1, 2]) {
			const response = await fetch(`${backend.url}/feeds/${FEED}/posts?per_page=100&page=${page}`, {
				headers: { Authorization: `Bearer ${backend.apiKey}` },
			});
			feedPosts.push(...((await response.json()) as { data: Array<Record<string, unknown>> }).data);
		}
		const trials = Number(process.env.E2E_RACE_TRIALS ?? 40);
		const chosen = feedPosts.filter((post) => pinsOf(Number(post.id)) === 0).slice(0, trials);
		assert.equal(chosen.length, trials);
		const before = await executionCount();
		const pinsBefore = pins().length;
		for (const [i, post] of chosen.entries()) {
			const body = JSON.stringify({
				id: `dlv_race_${i}_${Date.now()}`,
				event: 'post.created',
				occurred_at: new Date().toISOString(),
				data: { feed: template.data.feed, source: template.data.source, posts: [post] },
			});
			const statuses = await Promise.all([send(1, body, delivery.webhookId), send(2, body, delivery.webhookId)]);
			assert.deepEqual(statuses, [200, 200]);
		}
		await settledExecutions(before + 2 * trials);
		await sleep(1000);
		const acted = chosen.map((post) => pinsOf(Number(post.id)));
		const duplicates = acted.filter((count) => count > 1).length;
		const missed = acted.filter((count) => count === 0).length;
		process.stderr.write(
			`[e2e] race: ${trials} deliveries, each sent to A and B at the same instant: ${duplicates} acted on twice (${((100 * duplicates) / trials).toFixed(1)}%), ${missed} never\n`,
		);
		assert.equal(missed, 0, 'a delivery was never acted on');
		assert.equal(pins().length - pinsBefore, acted.reduce((a, b) => a + b, 0));
	});

	it('Return All of a 2,000-post feed runs in a worker with every post once', async () => {
		const started = Date.now();
		const run = await cluster.n8n.runManually(returnAllId, { timeoutMs: 300_000 });
		run.assertSuccess();
		const posts = run.items('All Posts');
		assert.equal(posts.length, 2000);
		assert.equal(new Set(posts.map((post) => post.id)).size, 2000);
		recordTiming('queue mode: Return All of 2,000 posts in a worker', Date.now() - started);
		const executionId = Number(
			await cluster.psql('n8n', `SELECT id FROM execution_entity WHERE "workflowId" = '${returnAllId}' ORDER BY id DESC LIMIT 1`),
		);
		assert.match(
			cluster.output('worker-1') + cluster.output('worker-2'),
			new RegExp(`Worker (started|finished) execution ${executionId} `),
			'the Return All did not run in a worker',
		);
	});
	it('the Feed Trigger polls from main: activation starts nothing; 250 new posts run once in a worker, oldest first; a restart of main loses and repeats nothing', async () => {
		const fake = backend.fake!;
		const polls = () => fake.control.requests.list({ method: 'GET' }).filter((request) => request.path === `/feeds/${polledFeed}/posts`);
		const addPosts = (count: number) =>
			fake.control
				.syncFeed(polledFeed, { newPosts: count })
				.posts.map((post) => Number(post.id))
				.sort((a, b) => a - b);
		/** Waits for a scheduled poll to begin and end; answers its requests. */
		const nextPoll = async () => {
			const before = polls().length;
			await waitFor('a scheduled Feed Trigger poll', () => polls().length > before, { timeoutMs: 25_000, intervalMs: 50 });
			await sleep(2000);
			return polls().length - before;
		};
		const runs = async (count: number) => {
			const found = await cluster.n8n.waitForExecutions(feedTriggerId, count, { timeoutMs: 60_000 });
			assert.equal(found.length, count, `expected ${count} Feed Trigger execution(s), got ${found.length}`);
			for (const execution of found) assert.equal(execution.status, 'success');
			return found;
		};
		const ids = async (executionId: string) =>
			(await cluster.n8n.execution(executionId)).items(FEED_TRIGGER).map((item) => Number(item.id));

		assert.ok(polls().length >= 1, 'the activation poll did not reach the service');
		assert.equal(await nextPoll(), 1, 'a poll with nothing new should be one request');
		assert.equal((await cluster.n8n.executions(feedTriggerId)).length, 0);

		const burst = addPosts(250);
		const [first] = await runs(1);
		assert.deepEqual(await ids(first.id), burst);
		assert.match(cluster.output('worker-1') + cluster.output('worker-2'), new RegExp(`Worker (started|finished) execution ${first.id} `));

		await nextPoll();
		const port = cluster.n8n.port;
		await cluster.n8n.stop();
		const added = addPosts(7);
		await cluster.startMain({ port, published: [workflowId, feedTriggerId] });
		const [newest] = await runs(2);
		assert.deepEqual(await ids(newest.id), added);
		await nextPoll();
		// A quiet poll reads page 1 and at most one page more (docs/exactly-once.md#feed-trigger-memory), whatever the list's size.
		const quiet = await nextPoll();
		assert.ok(quiet >= 1 && quiet <= 2, `a quiet poll cost ${quiet} requests`);
		assert.equal((await cluster.n8n.executions(feedTriggerId)).length, 2, 'a poll after the restart emitted posts again');
	});

	// The catch-up in queue mode: whether a delivery looks back is decided in the webhook process that receives it (its
	// first since it started, here), what a look back owes is in the workflow's static data, written by the worker.
	const feed = { feedId: FEED, sourceId: SEEDED.sources.twitterAcme };
	const hookUrl = (index: number) => cluster.webhookUrl(triggerPath, index);
	const unfinished = async () =>
		Number(await cluster.psql('n8n', `SELECT count(*) FROM execution_entity WHERE "workflowId" = '${workflowId}' AND status IN ('new', 'running')`));
	/** Until every execution of the trigger's workflow has ended (a copy acted on twice would have by then). */
	const allFinished = async () =>
		await waitFor('every execution of the trigger workflow to end', async () => ((await unfinished()) === 0 ? true : undefined), { timeoutMs: 90_000, intervalMs: 250 });
	const staticData = async () => await cluster.psql('n8n', `SELECT "staticData" FROM workflow_entity WHERE id = '${workflowId}'`);
	/** The service's deliveries of the subscription go to webhook process `index` (a load balancer's choice). */
	const routeTo = async (subscriptionId: number, index: number) =>
		assert.equal(await ownerSend({ backend }, 'PATCH', `/webhooks/${subscriptionId}`, { url: hookUrl(index) }), 200);
	/** One new post whose delivery the service sends to webhook process B; A again after it. */
	async function syncAtB(subscriptionId: number): Promise<Made> {
		await routeTo(subscriptionId, 2);
		try {
			return await syncOne(backend.fake!, feed, subscriptionId);
		} finally {
			await routeTo(subscriptionId, 1);
		}
	}
	/** Which worker ran the execution of delivery `id` (its log line), if one said so. */
	const workerOf = async (id: string) => {
		const executionId = await cluster.psql('n8n', `SELECT "executionId" FROM execution_data WHERE data LIKE '%${id}%' ORDER BY "executionId" LIMIT 1`);
		return ['worker-1', 'worker-2'].find((name) => new RegExp(`Worker started execution ${executionId} `).test(cluster.output(name)));
	};
	/** The trigger's lines in the workers' and webhook processes' logs, for a failure's message. */
	const triggerLog = () =>
		['worker-1', 'worker-2', 'webhook-1', 'webhook-2']
			.flatMap((name) => cluster.output(name).split('\n').filter((line) => /Social Aggregator/.test(line)).slice(-20).map((line) => `${name}: ${line.slice(0, 400)}`))
			.join('\n');
	/** Runs a case; on a failure, says what the trigger logged. */
	const withTriggerLog = async (run: () => Promise<void>) => {
		try {
			await run();
		} catch (error) {
			process.stderr.write(`[e2e] the trigger's log lines:\n${triggerLog()}\n`);
			throw error;
		}
	};
	const redeliveries = (subscriptionId: number, id: string) =>
		backend.fake!.control.requests.list({ method: 'POST' }).filter((request) => request.path === `/webhooks/${subscriptionId}/deliveries/${id}/redeliver`).length;

	/**
	 * An outage of the webhook processes `down`: stopped while posts come one at a time until the service disables the
	 * subscription (six attempts a delivery: two deliveries), then `whileDisabled` posts in one sync, which the disabled
	 * subscription delivers to no one; the processes started again. The failed deliveries and the posts of the gap.
	 */
	async function outage(subscriptionId: number, down: number[], whileDisabled: number): Promise<{ failed: Made[]; gap: number[] }> {
		const fake = backend.fake!;
		await Promise.all(down.map(async (index) => await cluster.stopProcess('webhook', index)));
		const failed: Made[] = [];
		while ((await subscriptionAt({ backend }, hookUrl(1)))?.status !== 'disabled') {
			assert.ok(failed.length < 10, 'ten deliveries failed and the subscription is not disabled');
			failed.push(await syncOne(fake, feed, subscriptionId));
		}
		// Posts of one sync are dated a second apart up to its newest: all after the last failed delivery.
		fake.control.clock.advance(whileDisabled * 1000 + 2000);
		const sync = fake.control.syncFeed(FEED, { newPosts: whileDisabled, sourceId: feed.sourceId });
		await fake.control.webhooks.settle();
		assert.equal(fake.control.webhooks.deliveries({ webhookId: subscriptionId }).filter((d) => sync.deliveries.includes(d.id)).length, 0);
		await Promise.all(
			down.map(async (index) => {
				await cluster.startProcess('webhook', index);
				await waitForTrigger(index);
			}),
		);
		return { failed, gap: sync.posts.map((post) => Number(post.id)) };
	}

	/** Every post pinned once (waited for, then every execution ended), each failed delivery sent again once. */
	async function assertEachOnce(label: string, subscriptionId: number, posts: number[], failed: Made[]) {
		await waitFor(`${label}: ${posts.length} posts pinned`, () => posts.every((id) => pinsOf(id) >= 1), { timeoutMs: 90_000, intervalMs: 250 });
		await allFinished();
		assert.deepEqual(posts.map(pinsOf), posts.map(() => 1), `${label}: pins per post`);
		assert.deepEqual(failed.map((made) => redeliveries(subscriptionId, made.deliveryId!)), failed.map(() => 1), `${label}: redeliveries per failed delivery`);
		const attempts = backend.fake!.control.webhooks.deliveries({ webhookId: subscriptionId }).filter((d) => failed.some((made) => made.deliveryId === d.id));
		assert.deepEqual(attempts.map((d) => d.attempts.at(-1)?.status), failed.map(() => 200), `${label}: the failed deliveries, sent again`);
	}

	it('queue mode: A away until the subscription is disabled, set active at the service; the look back in a worker meets 503 feed pages and is put off; the service recovers; the next delivery at B: every post once, failed deliveries sent again once', async () => await withTriggerLog(async () => {
		const fake = backend.fake!;
		const started = Date.now();
		const subscriptionId = (await subscriptionAt({ backend }, hookUrl(1)))!.id;
		const { failed, gap } = await outage(subscriptionId, [1], 6);
		assert.equal(failed.length, 2, 'two deliveries of six attempts disable the subscription');
		// Retry-After 1: the look back's reads give up within seconds (the nodes' own backoff would take half a minute).
		const failing = failingFeedPages(fake, { path: `/feeds/${FEED}/posts`, retryAfterSeconds: 1 });
		assert.equal(await ownerSend({ backend }, 'PATCH', `/webhooks/${subscriptionId}`, { status: 'active' }), 200);
		const first = await syncOne(fake, feed, subscriptionId);
		await waitFor('the first delivery\'s post pinned', () => pinsOf(first.postId) === 1, { timeoutMs: 60_000, intervalMs: 250 });
		await failing.givenUp();
		await allFinished();
		assert.equal(failing.hits(), failing.attempts, 'the look back was tried more than once while the service failed');
		assert.match(await staticData(), /owedLookBack/, 'the look back put off is not in the workflow\'s static data');
		assert.deepEqual(gap.map(pinsOf), gap.map(() => 0), 'posts of the gap pinned before the service recovered');
		failing.remove();

		const next = await syncAtB(subscriptionId);
		assert.ok(first.deliveryId && next.deliveryId);
		await assertEachOnce('put off in a worker', subscriptionId, [...failed.map((made) => made.postId), ...gap, first.postId, next.postId], failed);
		assert.doesNotMatch(await staticData(), /owedLookBack/, 'the look back is still owed after it was done');
		process.stderr.write(
			`[e2e] queue catch-up put off: ${gap.length} posts of the gap, ${failed.length} failed deliveries; the first delivery ran in ${await workerOf(first.deliveryId)}, the next (at B) in ${await workerOf(next.deliveryId)}\n`,
		);
		recordTiming('queue mode: an outage of A, a look back put off in a worker, caught up at B', Date.now() - started);
	}));

	it('queue mode: A and B away until the subscription is disabled; set active at the service, then deliveries to A and to B within a minute, each looking back: every post once, failed deliveries sent again once', async () => await withTriggerLog(async () => {
		const fake = backend.fake!;
		const started = Date.now();
		const subscriptionId = (await subscriptionAt({ backend }, hookUrl(1)))!.id;
		const { failed, gap } = await outage(subscriptionId, [1, 2], 4);
		assert.equal(await ownerSend({ backend }, 'PATCH', `/webhooks/${subscriptionId}`, { status: 'active' }), 200);
		const atA = await syncOne(fake, feed, subscriptionId);
		const atB = await syncAtB(subscriptionId);
		assert.ok(atA.deliveryId && atB.deliveryId);
		await assertEachOnce('two look backs', subscriptionId, [...failed.map((made) => made.postId), ...gap, atA.postId, atB.postId], failed);
		const lost = ['worker-1', 'worker-2'].filter((name) => /is caught up by another look back/.test(cluster.output(name)));
		process.stderr.write(
			`[e2e] queue catch-up, two look backs: the delivery at A ran in ${await workerOf(atA.deliveryId)}, at B in ${await workerOf(atB.deliveryId)}; a look back found the gap claimed in ${lost.join(', ') || 'no worker'}\n`,
		);
		recordTiming('queue mode: a re-enable, then deliveries at A and B that both look back', Date.now() - started);
	}));
});
