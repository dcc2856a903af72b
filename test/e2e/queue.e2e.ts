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
 *   main is stopped come once after it starts again, nothing repeated.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { SEEDED } from '../fake-service';
import { node, pinNewPosts, postSigned, recordTiming, sleep, startBackend, waitFor, webhookPath, workflow, type Backend } from './lib';
import { QueueCluster } from './lib/queue';

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
});
