/**
 * Simplify and Output Fields on Data › Post › Search and Profile › Look Up; Look Up's layouts and Exact Matches
 * Only, against both legal answer shapes of GET /data/profiles (the live grouped one, the earlier flat one).
 * The simplified fields are docs/answers.md's "Simplified output".
 */
import type { IDataObject } from 'n8n-workflow';

import { SocialAggregatorData } from '../../../nodes/SocialAggregatorData/SocialAggregatorData.node';
import type { OutputItem } from '../harness';
import { runOneNode, useFakeService, type NodeUnderTest } from '../support';
import { isStatus, postsOf, runNode } from './helpers';

const fake = useFakeService();

const SIMPLIFIED_DATA_POST = ['platform', 'platform_id', 'poster_name', 'message', 'posted_at', 'url', 'like_count', 'comment_count'];
const SIMPLIFIED_PROFILE = ['platform', 'handle', 'platform_id', 'place_id', 'url', 'follower_count', 'post_count', 'term', 'exact_match'];

const json = (items: OutputItem[]) => items.map((item) => item.json);

describe('Data › Post › Search', () => {
	const search = { resource: 'post', operation: 'search', term: '#acme', platforms: ['Twitter', 'Instagram'], limit: 4 };

	function expectedSimplified(raw: IDataObject): IDataObject {
		const poster = raw.poster as IDataObject;
		return {
			platform: raw.platform,
			platform_id: raw.platform_id,
			poster_name: poster.display_name,
			message: raw.message,
			posted_at: raw.post_created_at,
			url: raw.url,
			like_count: raw.like_count ?? null,
			comment_count: raw.comment_count ?? null,
		};
	}

	test('Simplify is on by default: exactly the documented fields, each from the raw post; status items stay whole', async () => {
		fake.control.data.fail('Tumblr', { errorCode: 'platform_error' });
		const three = { ...search, platforms: ['Twitter', 'Instagram', 'Tumblr'], output: 'postsAndStatus' };
		const simplified = await runNode(fake, three);
		const raw = await runNode(fake, { ...three, simplify: false });
		expect(simplified.error).toBeUndefined();
		expect(postsOf(simplified.items)).toHaveLength(8);
		expect(simplified.items.filter(isStatus).map((item) => [item.json.platform, item.json.success])).toEqual([
			['Twitter', true],
			['Instagram', true],
			['Tumblr', false],
		]);
		expect(json(postsOf(simplified.items))).toEqual(json(postsOf(raw.items)).map(expectedSimplified));
		for (const post of postsOf(simplified.items)) expect(Object.keys(post.json)).toEqual(SIMPLIFIED_DATA_POST);
		expect(json(simplified.items.filter(isStatus))).toEqual(json(raw.items.filter(isStatus)));
		// Instagram reports likes; the simplified item carries them.
		expect(postsOf(simplified.items).some((post) => typeof post.json.like_count === 'number')).toBe(true);
	});

	test('One Item per Platform Page: the posts inside each page are simplified', async () => {
		const run = await runNode(fake, { ...search, output: 'pages' });
		const pages = run.items.filter((item) => item.json.type === 'platform_page' && item.json.success === true);
		expect(pages.length).toBe(2);
		for (const page of pages) {
			for (const post of page.json.posts as IDataObject[]) expect(Object.keys(post)).toEqual(SIMPLIFIED_DATA_POST);
		}
	});

	test('Simplify off: the raw posts', async () => {
		const raw = await runNode(fake, { ...search, simplify: false });
		expect(postsOf(raw.items)[0].json).toHaveProperty('post_created_at');
		expect(postsOf(raw.items)[0].json).toHaveProperty('poster.image');
		expect(postsOf(raw.items)[0].json).not.toHaveProperty('posted_at');
	});
});

test('what an agent reads of a Data API post by default: at most 400 bytes of JSON for every seeded post', async () => {
	const TOOL_TYPE = 'n8n-nodes-social-aggregator.socialAggregatorDataTool';
	const tool = new SocialAggregatorData();
	tool.description = { ...tool.description, name: 'socialAggregatorDataTool' };
	const node: NodeUnderTest = { name: 'Search Tool', type: TOOL_TYPE, nodeTypes: { [TOOL_TYPE]: tool } };
	const search = { resource: 'post', operation: 'search', term: '#acme', platforms: ['Twitter', 'Instagram', 'Bluesky', 'TikTok', 'YouTube'], limit: 20, output: 'posts' };
	const bytes = (items: OutputItem[]) => items.map((item) => Buffer.byteLength(JSON.stringify(item.json)));
	const simplified = bytes((await runOneNode(fake, node, search)).items);
	const raw = bytes((await runOneNode(fake, node, { ...search, toolOutput: 'raw' })).items);
	expect(simplified).toHaveLength(100);
	expect(Math.max(...simplified)).toBeLessThanOrEqual(400);
	expect(Math.max(...raw)).toBeGreaterThan(1000);
});

describe('Data › Profile › Look Up', () => {
	const lookUp = (parameters: Record<string, unknown> = {}) => ({
		resource: 'profile',
		operation: 'lookUp',
		term: 'nasa, fizzbuzz, nobody1',
		platforms: ['Twitter', 'Google'],
		...parameters,
	});
	const keyOf = (item: OutputItem) => `${String(item.json.platform)}:${String(item.json.term)}:${String(item.json.handle)}`;

	describe('the live grouped answer (the stand-in’s default)', () => {
		test('one item per profile, simplified, each with its group’s term and exact_match; a handle with no profile gives none', async () => {
			const run = await runNode(fake, lookUp());
			expect(run.error).toBeUndefined();
			expect(run.requests).toHaveLength(1);
			expect(run.items.map((item) => [item.json.platform, item.json.term, item.json.exact_match])).toEqual([
				['Twitter', 'nasa', true],
				['Twitter', 'fizzbuzz', false],
				['Twitter', 'fizzbuzz', false],
				['Google', 'nasa', true],
				['Google', 'fizzbuzz', false],
				['Google', 'fizzbuzz', false],
			]);
			for (const item of run.items) expect(Object.keys(item.json)).toEqual(SIMPLIFIED_PROFILE);
			expect(run.items[0].json).toEqual({
				platform: 'Twitter',
				handle: 'nasa',
				platform_id: null,
				place_id: null,
				url: expect.stringContaining('/nasa'),
				follower_count: expect.any(Number),
				post_count: expect.any(Number),
				term: 'nasa',
				exact_match: true,
			});
			// Google reports no followers: null, as answered. Its handle is the place ID, kept as place_id too.
			expect(run.items[3].json.follower_count).toBeNull();
			expect(run.items[3].json.place_id).toMatch(/^ChIJ/);
			expect(run.items.slice(3).every((item) => item.json.place_id === item.json.handle)).toBe(true);
			expect(run.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
		});

		test('Simplify off: each profile as answered, with term and exact_match added', async () => {
			const run = await runNode(fake, lookUp({ simplify: false }));
			expect(run.items[1].json).toEqual({
				platform: 'Twitter',
				handle: 'fizzbuzz_official',
				url: expect.any(String),
				metrics: { follower_count: expect.any(Number), post_count: expect.any(Number) },
				term: 'fizzbuzz',
				exact_match: false,
			});
		});

		test('Exact Matches Only keeps the profiles whose group is an exact match', async () => {
			const run = await runNode(fake, lookUp({ options: { exactMatchesOnly: true } }));
			expect(run.items.map(keyOf)).toEqual(['Twitter:nasa:nasa', `Google:nasa:${String(run.items[1]?.json.handle)}`]);
			expect(run.items.every((item) => item.json.exact_match === true)).toBe(true);
		});

		test('One Item per Handle and Platform: the groups, simplified or as answered; Exact Matches Only drops whole groups', async () => {
			const groups = await runNode(fake, lookUp({ layout: 'groups' }));
			const noIds = { platform_id: null, place_id: null };
			expect(groups.items.map((item) => `${String(item.json.platform)}:${String(item.json.term)}`)).toEqual([
				'Twitter:nasa',
				'Twitter:fizzbuzz',
				'Twitter:nobody1',
				'Google:nasa',
				'Google:fizzbuzz',
				'Google:nobody1',
			]);
			expect(groups.items[1].json).toEqual({
				platform: 'Twitter',
				term: 'fizzbuzz',
				exact_match: false,
				profiles: [
					{ handle: 'fizzbuzz_official', ...noIds, url: expect.any(String), follower_count: expect.any(Number), post_count: expect.any(Number) },
					{ handle: 'thefizzbuzz', ...noIds, url: expect.any(String), follower_count: expect.any(Number), post_count: expect.any(Number) },
				],
			});
			expect(groups.items[2].json.profiles).toEqual([]);

			const raw = await runNode(fake, lookUp({ layout: 'groups', simplify: false }));
			const answered = await fake.control.requests.list({ path: '/data/profiles' });
			expect(answered).toHaveLength(1);
			expect(raw.items[0].json).toEqual({
				platform: 'Twitter',
				term: 'nasa',
				exact_match: true,
				profiles: [{ platform: 'Twitter', handle: 'nasa', url: expect.any(String), metrics: expect.any(Object) }],
			});

			const exact = await runNode(fake, lookUp({ layout: 'groups', options: { exactMatchesOnly: true } }));
			expect(exact.items.map((item) => item.json.term)).toEqual(['nasa', 'nasa']);
		});
	});

	describe('the earlier flat answer', () => {
		beforeEach(() => fake.control.setShapes('spec'));

		test('one item per profile, simplified: the name is the handle, exact_match from it, the platform’s ID and a Google place ID kept', async () => {
			const run = await runNode(fake, lookUp({ term: 'nasa, esa' }));
			expect(run.items.map((item) => [item.json.platform, item.json.term, item.json.handle, item.json.exact_match])).toEqual([
				['Twitter', 'nasa', 'nasa', true],
				['Twitter', 'esa', 'esa', true],
				['Google', 'nasa', 'nasa', true],
				['Google', 'esa', 'esa', true],
			]);
			for (const item of run.items) expect(Object.keys(item.json)).toEqual(SIMPLIFIED_PROFILE);
			const raw = await runNode(fake, lookUp({ term: 'nasa, esa', simplify: false }));
			expect(run.items.map((item) => item.json.platform_id)).toEqual(raw.items.map((item) => item.json.platform_id));
			expect(run.items.map((item) => item.json.place_id)).toEqual([null, null, raw.items[2].json.place_id, raw.items[3].json.place_id]);
			expect(run.items[2].json.place_id).toMatch(/^ChIJ/);
		});

		test('a Google place ID answered as platform_id, the place’s name apart: kept as place_id, the name as the handle', async () => {
			fake.control.data.placeIds('platform_id');
			const run = await runNode(fake, lookUp({ term: 'nasa, esa', platforms: ['Twitter', 'Instagram', 'Google'] }));
			const google = run.items.filter((item) => item.json.platform === 'Google');
			expect(google.map((item) => [item.json.handle, item.json.term])).toEqual([
				['nasa', 'nasa'],
				['esa', 'esa'],
			]);
			for (const item of google) {
				expect(item.json.place_id).toMatch(/^ChIJ/);
				expect(item.json.platform_id).toBe(item.json.place_id);
			}
			for (const item of run.items.filter((item) => item.json.platform !== 'Google')) {
				expect(item.json.place_id).toBeNull();
				expect(typeof item.json.platform_id).toBe('string');
			}
		});

		test('Exact Matches Only leaves out a profile whose handle is not the term', async () => {
			// The flat answer says nothing of exact matches: a profile whose name is another handle is not one.
			fake.control.answers.add({
				path: '/data/profiles',
				body: {
					data: [
						{ platform: 'Twitter', term: 'nasa', name: 'nasa', url: 'https://x.example/nasa' },
						{ platform: 'Twitter', term: 'nasa', name: 'nasa_fans', url: 'https://x.example/nasa_fans' },
					],
					meta: { platforms: [{ platform: 'Twitter', success: true }] },
				},
			});
			fake.control.answers.add({ path: '/data/profiles', count: 2, body: { data: [{ platform: 'Twitter', term: 'nasa', name: 'nasa_fans' }], meta: { platforms: [{ platform: 'Twitter', success: true }] } } });
			const both = await runNode(fake, lookUp({ term: 'nasa', platforms: ['Twitter'], layout: 'groups', simplify: false }));
			expect(both.items).toEqual([
				{
					json: {
						platform: 'Twitter',
						term: 'nasa',
						exact_match: true,
						profiles: [
							{ platform: 'Twitter', term: 'nasa', name: 'nasa', url: 'https://x.example/nasa' },
							{ platform: 'Twitter', term: 'nasa', name: 'nasa_fans', url: 'https://x.example/nasa_fans' },
						],
					},
					pairedItem: { item: 0 },
				},
			]);
			const none = await runNode(fake, lookUp({ term: 'nasa', platforms: ['Twitter'], options: { exactMatchesOnly: true } }));
			expect(none.items).toEqual([]);
			const kept = await runNode(fake, lookUp({ term: 'nasa', platforms: ['Twitter'] }));
			expect(kept.items.map((item) => [item.json.handle, item.json.exact_match])).toEqual([['nasa_fans', false]]);
		});
	});

	test('as an agent’s tool: Simplified by default, Selected Fields keeps platform and handle', async () => {
		const TOOL_TYPE = 'n8n-nodes-social-aggregator.socialAggregatorDataTool';
		const tool = new SocialAggregatorData();
		tool.description = { ...tool.description, name: 'socialAggregatorDataTool' };
		const node: NodeUnderTest = { name: 'Profiles Tool', type: TOOL_TYPE, nodeTypes: { [TOOL_TYPE]: tool } };
		const simplified = await runOneNode(fake, node, lookUp({ simplify: false }));
		for (const item of simplified.items) expect(Object.keys(item.json)).toEqual(SIMPLIFIED_PROFILE);
		const selected = await runOneNode(fake, node, lookUp({ toolOutput: 'selected', selectedFields: ['metrics'] }));
		expect(Object.keys(selected.items[0].json)).toEqual(['platform', 'handle', 'metrics']);
	});
});
