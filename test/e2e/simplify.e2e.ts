/**
 * Simplify in a real n8n, through the packed package: on and off for each operation that has it, the
 * simplified item's fields exactly as docs/answers.md's "Simplified output" lists them, and Profile › Look Up's
 * Exact Matches Only and grouped layout; what a next step takes from a simplified item is there for it by
 * expression (a post's ID and feed for moderation, a Google profile's place ID for a reviews search, in every
 * answer shape the fake gives for it).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { INodeParameters } from 'n8n-workflow';

import { SEEDED } from '../fake-service';
import { e2eSuite, node, workflow, type ExecutionResult, type WorkflowSpec } from './lib';

const FEED_POST = ['id', 'feed_id', 'platform', 'poster_name', 'message', 'posted_at', 'url', 'like_count', 'comment_count', 'moderation_status'];
const DATA_POST = ['platform', 'platform_id', 'poster_name', 'message', 'posted_at', 'url', 'like_count', 'comment_count'];
const PROFILE = ['platform', 'handle', 'platform_id', 'place_id', 'url', 'follower_count', 'post_count', 'term', 'exact_match'];

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
	// One n8n server for the file: each workflow saved and run as the editor's Execute Workflow does.
	const ctx = e2eSuite({ start: true });
	const run = async (spec: WorkflowSpec) => await ctx.n8n.runManually(await ctx.n8n.importWorkflow(spec));

	it('on and off for each operation, the documented fields; Exact Matches Only; the grouped layout', async () => {
		const results = new Map<string, ExecutionResult>();
		for (const [name, { type, parameters }] of Object.entries(cases)) {
			results.set(name, await run(workflow(`E2E simplify: ${name}`, [node(type, parameters, { name: 'Node' })])));
		}
		const items = (name: string) => {
			const result = results.get(name);
			assert.ok(result, `no run of ${name}`);
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
		assert.deepEqual(
			profiles.map((p) => [p.platform_id, p.place_id]),
			profiles.map(() => [null, null]),
		);
		const groups = items('Look Up, grouped');
		assert.deepEqual(groups.map((g) => [g.term, (g.profiles as unknown[]).length]), [['nasa', 1], ['fizzbuzz', 2]]);
		// Simplify off: the groups as the service answered them.
		const answered = items('Look Up, grouped, Simplify off');
		assert.deepEqual(answered.map((g) => Object.keys(g).sort()), [['exact_match', 'platform', 'profiles', 'term'], ['exact_match', 'platform', 'profiles', 'term']]);
		const [first] = answered[0].profiles as Array<Record<string, unknown>>;
		assert.equal(first.handle, 'nasa');
		assert.equal(typeof first.metrics, 'object');
	});

	it('a post of a feed, simplified, is moderated by expression: its ID and its feed', async () => {
		const fake = ctx.backend.fake!;
		fake.control.setPostStatus(SEEDED.firstPostId, 'moderated');
		fake.control.requests.clear();
		const result = await run(
			workflow('E2E simplify: Get Many, then Approve', [
				node('socialAggregator', { resource: 'post', operation: 'getAll', feedId, limit: 1, filters: { status: 'moderated' } }, { name: 'Get Many' }),
				node(
					'socialAggregator',
					{
						resource: 'post',
						operation: 'approve',
						feedId: { __rl: true, mode: 'id', value: '={{ $json.feed_id }}' },
						postId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					},
					{ name: 'Approve' },
				),
			]),
		);
		result.assertSuccess();
		const [post] = result.items('Get Many');
		assert.deepEqual(Object.keys(post), FEED_POST);
		const approved = fake.control.requests.list({ method: 'POST' }).map((r) => `${r.path} ${r.status}`);
		assert.deepEqual(approved, [`/feeds/${SEEDED.feeds.brandMentions}/posts/${String(post.id)}/approve 200`]);
		assert.equal(result.items('Approve')[0].moderation_status, 'public');
	});

	it('Look Up on Google with the defaults, then a reviews search with the first item’s place_id: reviews, whichever field the answer carried the place ID in', async () => {
		const fake = ctx.backend.fake!;
		const chain = workflow('E2E simplify: Look Up, then Reviews', [
			node('socialAggregatorData', { resource: 'profile', operation: 'lookUp', term: 'nasa,esa', platforms: ['Google'] }, { name: 'Look Up' }),
			node(
				'socialAggregatorData',
				{ resource: 'post', operation: 'search', term: '={{ $json.place_id }}', platforms: ['Google'], termType: 'reviews' },
				{ name: 'Reviews', executeOnce: true },
			),
		]);
		// The live groups (the place ID as the handle), the flat profiles with place_id, and with it in platform_id.
		const answers: Array<[string, () => void]> = [
			['live', () => fake.control.setShapes('live')],
			['spec, place_id', () => fake.control.setShapes('spec')],
			['spec, platform_id', () => fake.control.data.placeIds('platform_id')],
		];
		for (const [name, answer] of answers) {
			answer();
			fake.control.requests.clear();
			const result = await run(chain);
			result.assertSuccess();
			const profiles = result.items('Look Up');
			assert.deepEqual(profiles.map((p) => [p.platform, p.term]), [['Google', 'nasa'], ['Google', 'esa']], name);
			for (const profile of profiles) assert.deepEqual(Object.keys(profile), PROFILE, name);
			const placeId = profiles[0].place_id;
			assert.match(String(placeId), /^ChIJ/, `${name}: ${JSON.stringify(profiles[0])}`);
			// The search's pages, each for that place ID.
			const searches = fake.control.requests.list({ path: '/data/posts' });
			assert.ok(searches.length > 0, `${name}: no search`);
			for (const search of searches) assert.deepEqual([search.query.term, search.query.term_type, search.status], [placeId, 'reviews', 200], name);
			const reviews = result.items('Reviews');
			assert.ok(reviews.length > 0, `${name}: no reviews`);
			for (const review of reviews) {
				assert.deepEqual(Object.keys(review), DATA_POST, `${name}: ${JSON.stringify(review)}`);
				assert.equal(review.platform, 'Google', `${name}: ${JSON.stringify(review)}`);
			}
		}
		fake.control.reset();
	});
});
