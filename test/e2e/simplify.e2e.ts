/**
 * Simplify in a real n8n, through the packed package: on and off for each operation that has it, the
 * simplified item's fields exactly as docs/answers.md's "Simplified output" lists them, and Profile › Look Up's
 * Exact Matches Only and grouped layout.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { INodeParameters } from 'n8n-workflow';

import { SEEDED } from '../fake-service';
import { e2eSuite, node, workflow } from './lib';

const FEED_POST = ['id', 'platform', 'poster_name', 'message', 'posted_at', 'url', 'like_count', 'comment_count', 'moderation_status'];
const FOUND_POST = ['id', 'feed_id', ...FEED_POST.slice(1)];
const DATA_POST = ['platform', 'platform_id', 'poster_name', 'message', 'posted_at', 'url', 'like_count', 'comment_count'];
const PROFILE = ['platform', 'handle', 'url', 'follower_count', 'post_count', 'term', 'exact_match'];

const feedId = { __rl: true, mode: 'id', value: String(SEEDED.feeds.brandMentions) };
const cases: Record<string, { type: string; parameters: INodeParameters }> = {
	'Get Many': { type: 'socialAggregator', parameters: { resource: 'post', operation: 'getAll', feedId, limit: 5 } },
	'Get Many, Simplify off': { type: 'socialAggregator', parameters: { resource: 'post', operation: 'getAll', feedId, limit: 5, simplify: false } },
	Search: { type: 'socialAggregator', parameters: { resource: 'post', operation: 'search', query: 'acme', limit: 5 } },
	'Search, Simplify off': { type: 'socialAggregator', parameters: { resource: 'post', operation: 'search', query: 'acme', limit: 5, simplify: false } },
	Get: { type: 'socialAggregator', parameters: { resource: 'post', operation: 'get', feedId, postId: String(SEEDED.firstPostId) } },
	'Get, Simplify on': { type: 'socialAggregator', parameters: { resource: 'post', operation: 'get', feedId, postId: String(SEEDED.firstPostId), simplify: true } },
	'Data Search': { type: 'socialAggregatorData', parameters: { resource: 'post', operation: 'search', term: '#acme', platforms: ['Twitter', 'Instagram'], limit: 3 } },
	'Data Search, Simplify off': {
		type: 'socialAggregatorData',
		parameters: { resource: 'post', operation: 'search', term: '#acme', platforms: ['Twitter', 'Instagram'], limit: 3, simplify: false },
	},
	'Look Up': { type: 'socialAggregatorData', parameters: { resource: 'profile', operation: 'lookUp', term: 'nasa, fizzbuzz', platforms: ['Twitter'] } },
	'Look Up, Simplify off': {
		type: 'socialAggregatorData',
		parameters: { resource: 'profile', operation: 'lookUp', term: 'nasa, fizzbuzz', platforms: ['Twitter'], simplify: false },
	},
	'Look Up, Exact Matches Only': {
		type: 'socialAggregatorData',
		parameters: { resource: 'profile', operation: 'lookUp', term: 'nasa, fizzbuzz', platforms: ['Twitter'], options: { exactMatchesOnly: true } },
	},
	'Look Up, grouped': {
		type: 'socialAggregatorData',
		parameters: { resource: 'profile', operation: 'lookUp', term: 'nasa, fizzbuzz', platforms: ['Twitter'], layout: 'groups' },
	},
	'Look Up, grouped, Simplify off': {
		type: 'socialAggregatorData',
		parameters: { resource: 'profile', operation: 'lookUp', term: 'nasa, fizzbuzz', platforms: ['Twitter'], layout: 'groups', simplify: false },
	},
};

describe('Simplify in a real n8n', () => {
	const ctx = e2eSuite();

	it('on and off for each operation, the documented fields; Exact Matches Only; the grouped layout', async () => {
		const batch = await ctx.n8n.runBatch(
			Object.entries(cases).map(([name, { type, parameters }]) => workflow(`E2E simplify: ${name}`, [node(type, parameters, { name: 'Node' })])),
		);
		const items = (name: string) => {
			const result = batch.result(`E2E simplify: ${name}`);
			result.assertSuccess();
			const out = result.items('Node');
			assert.ok(out.length > 0, `${name}: no items`);
			return out;
		};
		const keysOf = (name: string) => items(name).map((item) => Object.keys(item));
		const every = (name: string, keys: string[]) => assert.deepEqual(keysOf(name), items(name).map(() => keys), name);

		every('Get Many', FEED_POST);
		every('Search', FOUND_POST);
		every('Get, Simplify on', FEED_POST);
		every('Data Search', DATA_POST);
		every('Look Up', PROFILE);
		for (const raw of ['Get Many, Simplify off', 'Search, Simplify off', 'Get']) {
			for (const post of items(raw)) assert.ok('external_id' in post && 'external_created_at' in post, `${raw}: not raw`);
		}
		for (const post of items('Data Search, Simplify off')) assert.ok('post_created_at' in post && !('posted_at' in post));
		for (const name of ['Get Many', 'Search', 'Data Search']) {
			for (const post of items(name)) assert.ok(Buffer.byteLength(JSON.stringify(post)) <= 400, `${name}: ${JSON.stringify(post)}`);
		}

		// The simplified values are the raw ones, renamed and flattened.
		const [simple] = items('Get, Simplify on');
		const [raw] = items('Get');
		assert.equal(simple.posted_at, raw.external_created_at);
		assert.equal(simple.poster_name, (raw.poster as Record<string, unknown>).display_name);

		const profiles = items('Look Up');
		assert.deepEqual(
			profiles.map((p) => [p.term, p.handle, p.exact_match]),
			[
				['nasa', 'nasa', true],
				['fizzbuzz', 'fizzbuzz_official', false],
				['fizzbuzz', 'thefizzbuzz', false],
			],
		);
		assert.deepEqual(items('Look Up, Exact Matches Only'), [profiles[0]]);
		const [rawProfile] = items('Look Up, Simplify off');
		assert.deepEqual(Object.keys(rawProfile).sort(), ['exact_match', 'handle', 'metrics', 'platform', 'term', 'url']);
		const groups = items('Look Up, grouped');
		assert.deepEqual(groups.map((g) => [g.term, (g.profiles as unknown[]).length]), [['nasa', 1], ['fizzbuzz', 2]]);
		// Simplify off: the groups as the service answered them.
		const answered = items('Look Up, grouped, Simplify off');
		assert.deepEqual(answered.map((g) => Object.keys(g).sort()), [['exact_match', 'platform', 'profiles', 'term'], ['exact_match', 'platform', 'profiles', 'term']]);
		const [first] = answered[0].profiles as Array<Record<string, unknown>>;
		assert.equal(first.handle, 'nasa');
		assert.equal(typeof first.metrics, 'object');
	});
});
