/**
 * Answers that cannot be trusted, in a real n8n: one case of each class (a silent loss, a
 * made-up item, a runaway page count, an unclear error) through the packed package, as a
 * user sees it: with Continue On Fail, the error item that takes the item's place (after what was
 * fetched before a list stopped).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { INodeParameters } from 'n8n-workflow';

import { SEEDED } from '../fake-service';
import { e2eSuite, node, workflow } from './lib';

const onError = 'continueRegularOutput';

describe('answers that cannot be trusted, in a real n8n', () => {
	const ctx = e2eSuite();

	it('each class ends in an error item that names the request, the status and what was wrong; nothing made up, nothing lost silently', async () => {
		const fake = ctx.backend.fake;
		assert.ok(fake, 'this test needs test/fake-service');
		const lossFeed = fake.control.seedFeed({ posts: 250 }).feedId;
		const runawayFeed = fake.control.seedFeed({ posts: 120 }).feedId;
		// silent loss: page 2 of 3 without its list
		fake.control.answers.add({ path: `/feeds/${lossFeed}/posts`, query: { page: '2' }, body: { data: null, meta: { page: 2, per_page: 100, total_count: 250, total_pages: 3 } } });
		// made-up item: an empty 200 to a read
		fake.control.answers.add({ path: `/feeds/${SEEDED.feeds.reviews}`, raw: '' });
		// runaway: a page count no list can have
		fake.control.answers.add({ path: `/feeds/${runawayFeed}/posts`, query: { page: '1' }, body: { data: [{ id: 1 }], meta: { page: 1, per_page: 100, total_count: 120, total_pages: 2 ** 53 } } });
		// unclear errors: a body that ends early, a blank error message, a platform failure of objects
		fake.control.injectFault({ kind: 'truncated', method: 'GET', path: '/account', count: 'always' });
		fake.control.injectFault({ kind: 'error', status: 422, method: 'POST', path: '/feeds', message: ' ' });
		fake.control.answers.add({
			path: '/data/posts',
			count: 'always',
			body: { data: [], meta: { total_results: 0, platforms: [{ platform: 'Tumblr', success: false, error_code: { a: 1 }, message: { b: 2 } }] } },
		});
		fake.control.requests.clear();

		const step = (parameters: INodeParameters) => node('socialAggregator', parameters, { name: 'Node', onError });
		const batch = await ctx.n8n.runBatch([
			workflow('E2E silent loss', [step({ resource: 'post', operation: 'getAll', feedId: { __rl: true, mode: 'id', value: String(lossFeed) }, returnAll: true })]),
			workflow('E2E made-up item', [step({ resource: 'feed', operation: 'get', feedId: { __rl: true, mode: 'id', value: String(SEEDED.feeds.reviews) } })]),
			workflow('E2E runaway', [step({ resource: 'post', operation: 'getAll', feedId: { __rl: true, mode: 'id', value: String(runawayFeed) }, returnAll: true })]),
			workflow('E2E body ends early', [step({ resource: 'account', operation: 'get', requestOptions: { maxRetryWait: 5 } })]),
			workflow('E2E blank message', [step({ resource: 'feed', operation: 'create', name: 'X' })]),
			workflow('E2E platform failure of objects', [
				node(
					'socialAggregatorData',
					{ resource: 'post', operation: 'search', term: '#acme', platforms: ['Tumblr'], limit: 5, options: { onPlatformFailure: 'fail', platformRetries: 0 } },
					{ name: 'Node', onError },
				),
			]),
		]);
		const seen = (name: string) => batch.result(name).items('Node');
		// The error item comes last; before it, with Continue On Fail, the items of the pages fetched before the stop.
		const errorOf = (name: string, fetched = 0) => {
			const items = seen(name);
			assert.equal(items.length, fetched + 1, `${name}: ${JSON.stringify(items)}`);
			const kept = items.slice(0, fetched);
			assert.ok(kept.every((item) => item.error === undefined && item.id !== undefined), `${name}: an item before the error is not a record`);
			assert.equal(new Set(kept.map((item) => item.id)).size, fetched, `${name}: an item before the error was output twice`);
			return String(items.at(-1)?.error);
		};

		// Page 1 (100 posts) was fetched before page 2 came without its list: kept, then the error.
		assert.equal(errorOf('E2E silent loss', 100), `The service's answer to GET /feeds/${lossFeed}/posts, page 2 (HTTP 200) cannot be used: \`data\` is null, not a list`);
		assert.equal(errorOf('E2E made-up item'), `The service's answer to GET /feeds/${SEEDED.feeds.reviews} (HTTP 200) cannot be used: the answer is empty`);
		assert.match(errorOf('E2E runaway'), new RegExp(`^The service's answer to GET /feeds/${runawayFeed}/posts, page 1 \\(HTTP 200\\) cannot be used: \`meta\\.total_pages\` is 9007199254740992`));
		const runawayRequests = fake.control.requests.list().filter((r) => r.path === `/feeds/${runawayFeed}/posts`);
		assert.equal(runawayRequests.length, 1, 'a second page was asked');
		assert.match(errorOf('E2E body ends early'), /^The service's answer to GET \/account \(HTTP 200\) could not be read: its body ended before it was complete \(after \d+ attempts\)$/);
		assert.equal(errorOf('E2E blank message'), 'The service answered HTTP 422 to POST /feeds without a readable message');
		assert.equal(errorOf('E2E platform failure of objects'), 'Tumblr failed: no readable reason was given (platform_error)');
		for (const name of ['E2E silent loss', 'E2E made-up item', 'E2E runaway', 'E2E body ends early', 'E2E blank message', 'E2E platform failure of objects']) {
			const text = JSON.stringify(seen(name));
			assert.doesNotMatch(text, /TypeError|\[object Object\]/, name);
		}
	});
});
