/**
 * Return All under the service's documented limit, 60 requests a minute, from a service that
 * sends no Retry-After (SPEC.md does not promise one), in a real n8n: two 5,000-post Return
 * Alls in a row (100 pages) complete with every post once. The node waits the documented
 * minute with one request while the others wait with it, so each window's end costs at most
 * PAGE_CONCURRENCY answers of 429.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { KEYS } from '../fake-service';
import { PAGE_CONCURRENCY } from '../../nodes/shared/requestGate';
import { e2eSuite, node, recordTiming, workflow } from './lib';

const POSTS = 5000;

describe('Return All under 60 requests a minute without Retry-After, in a real n8n', () => {
	let workflowId = '';
	let feedId = 0;
	// The run is stored and read back through n8n's REST API: `n8n execute` would print
	// 10,000 posts to a pipe, more than it reliably flushes before it exits.
	const ctx = e2eSuite({
		start: true,
		backend: { limits: { enabled: true, windowScale: 1, retryAfter: false } },
		beforeStart: async ({ n8n, backend }) => {
			const fake = backend.fake;
			assert.ok(fake, 'this test needs test/fake-service');
			feedId = fake.control.seedFeed({ posts: POSTS, name: 'A big wall' }).feedId;
			// A key of its own at the documented default: 60 a minute.
			fake.control.rateLimits.set(KEYS.manager, { requestsPerHour: 10_000, burstPerMinute: 60 });
			const key = await n8n.importCredential({ name: 'Default-limit key', data: { apiKey: KEYS.manager, baseUrl: backend.url } });
			const credentials = { socialAggregatorApi: { id: key.id, name: key.name } };
			const returnAll = { resource: 'post', operation: 'getAll', feedId: { __rl: true, mode: 'id', value: String(feedId) }, returnAll: true };
			workflowId = await n8n.importWorkflow(
				workflow('E2E two Return Alls under 60 a minute, no Retry-After', [
					node('socialAggregator', returnAll, { name: 'First', credentials }),
					node('socialAggregator', returnAll, { name: 'Second', credentials, executeOnce: true }),
				]),
			);
		},
	});

	it('two 5,000-post Return Alls in a row: every post once, at most PAGE_CONCURRENCY 429s per window end', async () => {
		const fake = ctx.backend.fake!;
		fake.control.requests.clear();
		const run = await ctx.n8n.runManually(workflowId, { timeoutMs: 420_000 });
		run.assertSuccess();
		recordTiming('two 5,000-post Return Alls under 60/minute without Retry-After (workflow run)', run.runMs);

		for (const name of ['First', 'Second']) {
			const posts = run.items(name);
			assert.equal(posts.length, POSTS, `${name}: ${posts.length} posts`);
			assert.equal(new Set(posts.map((post) => post.id)).size, POSTS, `${name}: a post came twice`);
		}

		const requests = fake.control.requests.list({ keyId: 'key_acme-manager' });
		assert.equal(requests.filter((r) => r.status === 200).length, 100, 'each page answered once');
		const limited = requests.filter((r) => r.status === 429);
		assert.ok(limited.length > 0, 'the limit never bit');
		assert.ok(limited.every((r) => r.status === 429 && r.path === `/feeds/${feedId}/posts`));
		// Window ends: 429s less than 10 s apart belong to one.
		const ends: number[] = [];
		let last = -Infinity;
		for (const at of limited.map((r) => Date.parse(r.time)).sort((a, b) => a - b)) {
			if (at - last > 10_000) ends.push(0);
			ends[ends.length - 1]++;
			last = at;
		}
		assert.ok(ends.every((count) => count <= PAGE_CONCURRENCY), `429s per window end: ${ends.join(', ')}`);
		console.log(`# 429s per window end: ${ends.join(', ')}; run ${run.runMs} ms`);
	});
});
