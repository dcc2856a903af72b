/**
 * A key's hourly budget against Return All, in a real n8n, with the stand-in's hour shrunk to 10 s (30 requests an
 * "hour", a burst of 10, no Retry-After), which the stand-in tells in its `X-RateLimit-*` headers (the credential
 * holds only what a user sets):
 * - Feed › Get Many posts, 100 pages: refused after page 1 with the numbers, 1 request sent; with a wait allowed
 *   above the need, every post once, in order; with a wait below it, refused after page 1 and, with Continue On
 *   Fail, page 1's posts output before the error item.
 * - Data › Post › Search, Instagram (3 credits a page, 40 pages) and Twitter (1 credit, 10 pages): with a wait
 *   allowed, 40 requests and 130 credits; without, it stops before the request the budget refuses, naming the 100
 *   credits it paid, its posts kept with Continue On Fail, and the run resumed from the cursor it names spends the
 *   30 credits left: 130 in all; with a wait below the need it stops at the cap with what it fetched.
 * The n8n process keeps its count of the key between runs, as it does for users: each case starts a new "hour".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { INodeParameters } from 'n8n-workflow';

import { KEYS } from '../fake-service';
import { e2eSuite, node, recordTiming, sleep, workflow } from './lib';

const HOUR_S = 10;
const POSTS = 10_000;

describe("Return All against the key's hourly budget, in a real n8n", () => {
	let feedId = 0;
	let credentials = {};
	const ctx = e2eSuite({
		start: true,
		backend: { limits: { enabled: true, windowScale: HOUR_S / 3600, retryAfter: false } },
		beforeStart: async ({ n8n, backend }) => {
			const fake = backend.fake;
			assert.ok(fake, 'this test needs test/fake-service');
			feedId = fake.control.seedFeed({ posts: POSTS, name: 'A wall of 100 pages' }).feedId;
			fake.control.data.configure('Instagram', { pages: 40 });
			fake.control.data.configure('Twitter', { pages: 10 });
			const key = await n8n.importCredential({
				name: 'Key of 30 an hour',
				data: { apiKey: KEYS.manager, baseUrl: backend.url, requestsPerHour: 30, burstPerMinute: 10 },
			});
			credentials = { socialAggregatorApi: { id: key.id, name: key.name } };
		},
	});

	/** A new "hour" at the service and in n8n's count: the last one ended. */
	const newHour = async () => {
		await sleep(HOUR_S * 1000 + 500);
		const fake = ctx.backend.fake!;
		fake.control.rateLimits.clear(KEYS.manager);
		fake.control.rateLimits.set(KEYS.manager, { requestsPerHour: 30, burstPerMinute: 10 });
		fake.control.requests.clear();
		fake.control.data.resetCredits();
	};

	const run = async (name: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
		const id = await ctx.n8n.importWorkflow(workflow(name, [node(parameters.operation === 'search' ? 'socialAggregatorData' : 'socialAggregator', parameters as INodeParameters, { name: 'Read', credentials, ...extra })]));
		return await ctx.n8n.runManually(id, { timeoutMs: 180_000 });
	};
	const feedPosts = (requestOptions: Record<string, unknown> = {}) => ({
		resource: 'post',
		operation: 'getAll',
		feedId: { __rl: true, mode: 'id', value: String(feedId) },
		returnAll: true,
		simplify: false,
		requestOptions,
	});
	const search = (requestOptions: Record<string, unknown> = {}, options: Record<string, unknown> = {}, platforms = ['Instagram', 'Twitter']) => ({
		resource: 'post',
		operation: 'search',
		term: '#budget',
		platforms,
		returnAll: true,
		options,
		requestOptions,
	});
	const searches = () => ctx.backend.fake!.control.requests.list({ path: '/data/posts' });
	const feedRequests = () => ctx.backend.fake!.control.requests.list({ path: `/feeds/${feedId}/posts` });

	it('feed posts: refused after page 1 with the numbers; finished with every post once when the wait is allowed; kept page 1 with a wait below the need', async () => {
		await newHour();
		const refused = await run('E2E budget: refused', feedPosts());
		const error = refused.nodeError('Read');
		assert.ok(error, 'the run did not fail');
		assert.match(String(error.message), /^Return All needs 100 pages, more than the key's rate limit can carry: 99 more requests needed, 29 requests left/);
		assert.match(String(error.description), /at least \d+ so the node waits/);
		assert.equal(feedRequests().length, 1, 'more than page 1 was asked');
		console.log(`# refusal: ${String(error.message)}`);

		await newHour();
		const waited = await run('E2E budget: waits', feedPosts({ budgetWait: 60 }));
		waited.assertSuccess();
		recordTiming(`Return All of 100 pages at 30 requests per ${HOUR_S} s hour (workflow run)`, waited.runMs);
		const posts = waited.items('Read');
		assert.equal(posts.length, POSTS);
		assert.equal(new Set(posts.map((post) => post.id)).size, POSTS, 'a post came twice');
		const times = posts.map((post) => Date.parse(String(post.external_created_at)));
		assert.deepEqual([...times].sort((a, b) => b - a), times, 'not in the service order');
		assert.equal(feedRequests().filter((r) => r.status === 200).length, 100);
		assert.ok(waited.runMs >= 3 * HOUR_S * 1000 - 1000, `finished in ${waited.runMs} ms, sooner than the budget allows`);
		console.log(`# wait: ${waited.runMs} ms for 100 pages; floor ${(100 / 30) * HOUR_S} s`);

		await newHour();
		const kept = await run('E2E budget: cap below the need', feedPosts({ budgetWait: 5 }), { onError: 'continueRegularOutput' });
		kept.assertSuccess();
		const items = kept.items('Read');
		assert.equal(feedRequests().length, 1);
		assert.equal(items.length, 101);
		assert.ok(items.slice(0, 100).every((item) => typeof item.id === 'number'));
		assert.match(String(items[100].error), /more than the key's rate limit and the 5 s of waiting allowed can carry/);
	});

	it('Data API: the credits it names when it stops, plus the resumed run, equal the credits of the run that waits', async () => {
		await newHour();
		const waited = await run('E2E budget: search waits', search({ budgetWait: 60 }));
		waited.assertSuccess();
		const fullCredits = ctx.backend.fake!.control.data.credits().total;
		assert.equal(fullCredits, 40 * 3 + 10);
		assert.equal(searches().filter((r) => r.status === 200).length, 40);
		const full = waited.items('Read').map((post) => `${String(post.platform)}|${String(post.platform_id)}`);
		assert.equal(new Set(full).size, full.length, 'a post came twice');

		await newHour();
		const stopped = await run('E2E budget: search stops', search(), { onError: 'continueRegularOutput' });
		stopped.assertSuccess();
		const items = stopped.items('Read');
		const last = items.at(-1) as { error: string; details: { description: string } };
		assert.match(last.error, /^The key's rate limit allows no more requests now/);
		const named = /spent (\d+) credits \(Instagram 90 \+ Twitter 10\)/.exec(last.details.description);
		assert.ok(named, last.details.description);
		// A burst 429 (10 requests per sixtieth of the hour) is retried and spends nothing; the hour's
		// budget is spent by the 30 answered requests, so a request past it would be a 429 after the last of them.
		const sent = searches();
		assert.equal(sent.filter((r) => r.status !== 429).length, 30, 'not every request the budget allows was answered');
		const lastAnswered = sent.map((r) => r.status).lastIndexOf(200);
		assert.equal(sent.slice(lastAnswered + 1).length, 0, 'a request past the budget was sent');
		assert.equal(ctx.backend.fake!.control.data.credits().total, Number(named[1]));
		const instagram = items.find((item) => item.type === 'platform_status' && item.platform === 'Instagram') as { next_cursor: string };
		assert.ok(instagram?.next_cursor);

		await newHour();
		const resumed = await run('E2E budget: search resumed', search({}, { resumeCursors: { cursor: [{ platform: 'Instagram', cursor: instagram.next_cursor }] } }, ['Instagram']));
		resumed.assertSuccess();
		const resumedCredits = ctx.backend.fake!.control.data.credits().total;
		assert.equal(Number(named[1]) + resumedCredits, fullCredits, 'a page was bought twice or not at all');
		const together = [...items.filter((item) => !('error' in item) && item.type !== 'platform_status'), ...resumed.items('Read')].map(
			(post) => `${String(post.platform)}|${String(post.platform_id)}`,
		);
		assert.deepEqual(together.sort(), [...full].sort());
		console.log(`# credits: ${named[1]} named when it stopped + ${resumedCredits} resumed = ${fullCredits} of the run that waited`);

		await newHour();
		const capped = await run('E2E budget: search cap below the need', search({ budgetWait: 2 }), { onError: 'continueRegularOutput' });
		capped.assertSuccess();
		const cappedItems = capped.items('Read');
		const cappedError = cappedItems.at(-1) as { error: string; details: { description: string } };
		assert.match(cappedError.error, /waiting \d+ s more would pass the 2 s allowed/);
		assert.match(cappedError.details.description, /Stopped after 30 requests fetched \d+ posts and spent 100 credits/);
		assert.ok(cappedItems.length > 1);
	});
});
