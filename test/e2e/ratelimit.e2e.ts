/**
 * Return All under a tight rate limit, in a real n8n: the fake service's minute is scaled to one
 * second and the key may make 2 requests a "minute", so most pages are first answered 429 with
 * Retry-After. The Social Aggregator node reads every page of a 450-post feed and the Data node
 * every page of two platforms; both complete, with every item exactly once, and no page that
 * succeeded is asked for again (a retry resumes at the page that failed).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { KEYS } from '../fake-service';
import { e2eSuite, node, recordTiming, workflow } from './lib';

const POSTS = 450;
const BURST_PER_SECOND = 2;

describe('Return All against a tight rate limit in a real n8n', () => {
	// A service that says when to retry: the spec shape's 429 carries Retry-After (the live one none: ratelimit-no-retry-after).
	const ctx = e2eSuite({ backend: { shapes: 'spec', limits: { enabled: true, windowScale: 1 / 60 } } });

	it('completes with every item, each once, after waiting out the 429s', async () => {
		const fake = ctx.backend.fake;
		assert.ok(fake, 'this test needs test/fake-service');
		const { feedId, postCount } = fake.control.seedFeed({ posts: POSTS, name: 'Rate-limited wall' });
		assert.equal(postCount, POSTS);
		// a key of its own, so that only this workflow's requests count against the limit
		fake.control.rateLimits.set(KEYS.manager, { requestsPerHour: 10_000, burstPerMinute: BURST_PER_SECOND });
		const limited = await ctx.n8n.importCredential({ name: 'Rate-limited key', data: { apiKey: KEYS.manager, baseUrl: ctx.backend.url } });
		const credentials = { socialAggregatorApi: { id: limited.id, name: limited.name } };

		const run = await ctx.n8n.run(
			workflow('E2E Return All under a rate limit', [
				node(
					'socialAggregator',
					{ resource: 'post', operation: 'getAll', feedId: { __rl: true, mode: 'id', value: String(feedId) }, returnAll: true, simplify: false },
					{ name: 'All Posts', credentials },
				),
				node(
					'socialAggregatorData',
					{ resource: 'post', operation: 'search', term: '#acme', platforms: ['Twitter', 'Bluesky'], returnAll: true, output: 'posts' },
					{ name: 'All Data Posts', credentials, executeOnce: true },
				),
			]),
			{ timeoutMs: 300_000 },
		);
		run.assertSuccess();
		recordTiming('Return All under a 2-per-second rate limit (workflow run)', run.runMs);

		const requests = fake.control.requests.list({ keyId: 'key_acme-manager' });
		const limitedAnswers = requests.filter((request) => request.status === 429);
		assert.ok(limitedAnswers.length >= 3, `expected the rate limit to bite, got ${limitedAnswers.length} 429s`);

		const posts = run.items('All Posts');
		assert.equal(posts.length, POSTS);
		assert.equal(new Set(posts.map((post) => post.id)).size, POSTS, 'a post came twice');
		assert.ok(posts.every((post) => post.feed_id === feedId));
		const pages = requests.filter((request) => request.path === `/feeds/${feedId}/posts` && request.status === 200).map((request) => request.query.page);
		assert.equal(new Set(pages).size, pages.length, `a page that succeeded was fetched again: ${pages.join(', ')}`);

		const dataPosts = run.items('All Data Posts');
		const count = (platform: string) => dataPosts.filter((post) => post.platform === platform).length;
		// the fake's default streams: 2 × page size + 7 posts (Twitter pages of 20, Bluesky of 25)
		assert.equal(count('Twitter'), 2 * 20 + 7);
		assert.equal(count('Bluesky'), 2 * 25 + 7);
		assert.equal(new Set(dataPosts.map((post) => `${String(post.platform)}:${String(post.platform_id)}`)).size, dataPosts.length);
		const rounds = requests.filter((request) => request.path === '/data/posts' && request.status === 200);
		assert.equal(rounds.length, 3, 'one request per round, as deep as the deepest platform');
	});
});
