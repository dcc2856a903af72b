/**
 * Simplify in a real n8n, through the packed package: on and off for each operation that has it, the
 * simplified item's fields exactly as README.md's "Simplified output" lists them, version 1 unchanged,
 * and Profile › Look Up's Exact Matches Only and grouped layout.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { INodeParameters } from 'n8n-workflow';

import { SEEDED } from '../fake-service';
import { e2eSuite, node, workflow } from './lib';

const FEED_POST = ['id', 'feed_id', 'platform', 'url', 'message', 'posted_at', 'poster', 'media', 'like_count', 'comment_count', 'moderation_status', 'pinned'];
const DATA_POST = ['platform', 'platform_id', 'url', 'message', 'posted_at', 'poster', 'media', 'like_count', 'comment_count'];
const PROFILE = ['platform', 'handle', 'url', 'follower_count', 'post_count', 'term', 'exact_match'];

const feedId = { __rl: true, mode: 'id', value: String(SEEDED.feeds.brandMentions) };
const cases: Record<string, { type: string; parameters: INodeParameters; typeVersion?: number }> = {
	'Get Many': { type: 'socialAggregator', parameters: { resource: 'post', operation: 'getAll', feedId, limit: 5 } },
	'Get Many, Simplify off': { type: 'socialAggregator', parameters: { resource: 'post', operation: 'getAll', feedId, limit: 5, simplify: false } },
	'Get Many, version 1': { type: 'socialAggregator', typeVersion: 1, parameters: { resource: 'post', operation: 'getAll', feedId, limit: 5 } },
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
	'Look Up, version 1': {
		type: 'socialAggregatorData',
		typeVersion: 1,
		parameters: { resource: 'profile', operation: 'lookUp', term: 'nasa, fizzbuzz', platforms: ['Twitter'] },
	},
};

describe('Simplify in a real n8n', () => {
	const ctx = e2eSuite();

	it('on and off for each operation, the documented fields; Exact Matches Only; version 1 unchanged', async () => {
		const batch = await ctx.n8n.runBatch(
			Object.entries(cases).map(([name, { type, parameters, typeVersion }]) =>
				// Version 1.1 is what the editor adds today; the e2e lib's default is 1.
				workflow(`E2E simplify: ${name}`, [node(type, parameters, { name: 'Node', typeVersion: typeVersion ?? 1.1 })]),
			),
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
		every('Search', FEED_POST);
		every('Get, Simplify on', FEED_POST);
		every('Data Search', DATA_POST);
		every('Look Up', PROFILE);
		for (const raw of ['Get Many, Simplify off', 'Search, Simplify off', 'Get']) {
			for (const post of items(raw)) assert.ok('external_id' in post && 'external_created_at' in post, `${raw}: not raw`);
		}
		for (const post of items('Data Search, Simplify off')) assert.ok('post_created_at' in post && !('posted_at' in post));
		assert.deepEqual(items('Get Many, version 1'), items('Get Many, Simplify off'));

		// The simplified values are the raw ones, renamed and flattened.
		const [simple] = items('Get, Simplify on');
		const [raw] = items('Get');
		assert.equal(simple.posted_at, raw.external_created_at);
		assert.deepEqual(simple.poster, {
			name: (raw.poster as Record<string, unknown>).display_name,
			handle: (raw.poster as Record<string, unknown>).name,
			url: (raw.poster as Record<string, unknown>).url,
		});

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
		// Version 1: the groups exactly as the service answered them.
		const v1 = items('Look Up, version 1');
		assert.deepEqual(v1.map((g) => Object.keys(g).sort()), [['exact_match', 'platform', 'profiles', 'term'], ['exact_match', 'platform', 'profiles', 'term']]);
		const [first] = v1[0].profiles as Array<Record<string, unknown>>;
		assert.equal(first.handle, 'nasa');
		assert.equal(typeof first.metrics, 'object');
	});
});
