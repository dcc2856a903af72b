/**
 * Simplify and, for a tool, Output Fields on Post › Get, Get Many and Search Across Feeds: the simplified
 * item's fields exactly as docs/answers.md's "Simplified output" documents them, derived from the raw post of
 * the same answer.
 */
import { DirectoryLoader } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { SEEDED } from '../../fake-service';
import { SocialAggregator } from '../../../nodes/SocialAggregator/SocialAggregator.node';
import type { OutputItem } from '../harness';
import { runOneNode, useFakeService, type NodeUnderTest } from '../support';
import { feed, runNode } from './helpers';

const fake = useFakeService();

const F = SEEDED.feeds;

/** docs/answers.md: a simplified post of a feed, in this order, its ID and feed first (what moderating it takes). */
const SIMPLIFIED_POST = ['id', 'feed_id', 'platform', 'poster_name', 'message', 'posted_at', 'url', 'like_count', 'comment_count', 'moderation_status'];

const json = (items: OutputItem[]) => items.map((item) => item.json);

/** What the simplified item must hold, from the raw post. */
function expectedSimplified(raw: IDataObject): IDataObject {
	const poster = raw.poster as IDataObject;
	return {
		id: raw.id,
		feed_id: raw.feed_id,
		platform: raw.platform,
		poster_name: poster.display_name,
		message: raw.message,
		posted_at: raw.external_created_at,
		url: raw.url,
		like_count: raw.like_count ?? null,
		comment_count: raw.comment_count ?? null,
		moderation_status: raw.moderation_status,
	};
}

const getMany = { resource: 'post', operation: 'getAll', feedId: feed(F.brandMentions), limit: 30 };

test('the node declares one version, whose output Simplify shapes', () => {
	const { description } = new SocialAggregator();
	expect(description.version).toBe(1);
	expect(description.defaultVersion).toBeUndefined();
});
const search = { resource: 'post', operation: 'search', query: 'acme', limit: 30 };

describe.each([
	['Get Many', getMany],
	['Search Across Feeds', search],
])('Post › %s', (_name, parameters) => {
	test('Simplify is on by default: exactly the documented fields, each from the raw post', async () => {
		const simplified = await runNode(fake, parameters);
		const raw = await runNode(fake, { ...parameters, simplify: false });
		expect(simplified.error).toBeUndefined();
		expect(simplified.items.length).toBe(30);
		expect(json(simplified.items)).toEqual(json(raw.items).map(expectedSimplified));
		for (const item of simplified.items) expect(Object.keys(item.json)).toEqual(SIMPLIFIED_POST);
		expect(simplified.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
	});

	test('Simplify off gives the raw posts', async () => {
		const raw = await runNode(fake, { ...parameters, simplify: false });
		expect(Object.keys(raw.items[0].json)).toEqual(
			expect.arrayContaining(['external_id', 'source_id', 'created_at', 'tagged_users', 'poster', 'media', 'pinned']),
		);
	});
});

test('Post › Get: raw by default (one post asked for by ID comes whole), simplified when asked', async () => {
	const post = { resource: 'post', operation: 'get', feedId: feed(F.brandMentions), postId: String(SEEDED.firstPostId) };
	const raw = await runNode(fake, post);
	expect(raw.items).toHaveLength(1);
	expect(raw.items[0].json).toMatchObject({ id: SEEDED.firstPostId, external_id: expect.any(String) });
	const simplified = await runNode(fake, { ...post, simplify: true });
	expect(simplified.items.map((item) => item.json)).toEqual([expectedSimplified(raw.items[0].json)]);
	expect(Object.keys(simplified.items[0].json)).toEqual(SIMPLIFIED_POST);
});

test('a post whose answer lacks fields: nulls in the simplified item, never a failure; its feed is the one asked for', async () => {
	const postId = SEEDED.firstPostId;
	// Another legal answer than the fake's own (SPEC.md's feed post has no feed_id): the handler runs, then this body is answered instead.
	fake.control.answers.add({ path: `/feeds/${F.brandMentions}/posts/${postId}`, body: { data: { id: 7, poster: null, media: 'none' } } });
	const run = await runNode(fake, { resource: 'post', operation: 'get', feedId: feed(F.brandMentions), postId: String(postId), simplify: true });
	expect(run.error).toBeUndefined();
	expect(run.items[0].json).toEqual({
		id: 7,
		feed_id: F.brandMentions,
		platform: null,
		poster_name: null,
		message: null,
		posted_at: null,
		url: null,
		like_count: null,
		comment_count: null,
		moderation_status: null,
	});
});

test('Get Many, then moderation by expression: the simplified post names its post and its feed, also where the answer leaves the feed out', async () => {
	const P = SEEDED.firstPostId;
	fake.control.setPostStatus(P, 'moderated');
	const page = (await runNode(fake, { ...getMany, limit: 1, filters: { status: 'moderated' }, simplify: false })).items.map((item) => item.json);
	// SPEC.md's feed post has no feed_id: the same page answered without it.
	fake.control.answers.add({
		path: `/feeds/${F.brandMentions}/posts`,
		body: { data: page.map(({ feed_id: _, ...post }) => post), meta: { page: 1, per_page: 1, total_count: 1, total_pages: 1 } },
	});
	const run = await runNode(fake, { ...getMany, limit: 1, filters: { status: 'moderated' } }, {
		then: {
			name: 'Approve',
			parameters: {
				resource: 'post',
				operation: 'approve',
				feedId: { __rl: true, mode: 'id', value: '={{ $json.feed_id }}' },
				postId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			},
		},
	});
	expect(run.error).toBeUndefined();
	expect(run.result.error('Approve')).toBeUndefined();
	expect(run.items.map((item) => [item.json.id, item.json.feed_id])).toEqual([[page[0].id, F.brandMentions]]);
	expect(run.requests.filter((r) => r.method === 'POST').map((r) => [r.path, r.status])).toEqual([
		[`/feeds/${F.brandMentions}/posts/${String(page[0].id)}/approve`, 200],
	]);
	expect(run.result.items('Approve')[0].json).toMatchObject({ id: page[0].id, moderation_status: 'public' });
});

describe('as an agent’s tool: Output Fields', () => {
	// n8n shows '@tool' parameters on the node type it makes for tool use, whose name ends in "Tool".
	const TOOL_TYPE = 'n8n-nodes-social-aggregator.socialAggregatorTool';
	const tool = new SocialAggregator();
	tool.description = { ...tool.description, name: 'socialAggregatorTool' };
	DirectoryLoader.applyDeclarativeNodeOptionParameters(tool);
	const node: NodeUnderTest = { name: 'Posts Tool', type: TOOL_TYPE, nodeTypes: { [TOOL_TYPE]: tool } };
	const runTool = async (parameters: Record<string, unknown>) => await runOneNode(fake, node, { ...getMany, limit: 5, ...parameters });

	test('Simplified by default, even on Post › Get; Simplify itself is not shown to a tool', async () => {
		const run = await runTool({ simplify: false });
		expect(run.items).toHaveLength(5);
		for (const item of run.items) expect(Object.keys(item.json)).toEqual(SIMPLIFIED_POST);
		const one = await runTool({ operation: 'get', postId: String(SEEDED.firstPostId) });
		expect(Object.keys(one.items[0].json)).toEqual(SIMPLIFIED_POST);
	});

	test('what an agent reads of a post by default: at most 400 bytes of JSON for every seeded post, the rest one option away', async () => {
		const bytes = (items: OutputItem[]) => items.map((item) => Buffer.byteLength(JSON.stringify(item.json)));
		for (const parameters of [{ returnAll: true }, { operation: 'search', query: 'a', limit: 100 }]) {
			const simplified = bytes((await runTool(parameters)).items);
			const raw = bytes((await runTool({ ...parameters, toolOutput: 'raw' })).items);
			expect(simplified.length).toBeGreaterThanOrEqual(100);
			expect(Math.max(...simplified)).toBeLessThanOrEqual(400);
			expect(Math.min(...raw)).toBeGreaterThan(800);
		}
	});

	test('Raw: every field; Selected Fields: the chosen ones, the ID and the feed', async () => {
		const raw = await runTool({ toolOutput: 'raw' });
		expect(raw.items[0].json).toHaveProperty('external_id');
		const selected = await runTool({ toolOutput: 'selected', selectedFields: ['message', 'ai_sentiment'] });
		expect(selected.items.map((item) => item.json)).toEqual(
			raw.items.map(({ json: post }) => {
				const kept: IDataObject = { id: post.id, feed_id: post.feed_id, message: post.message };
				if ('ai_sentiment' in post) kept.ai_sentiment = post.ai_sentiment;
				return kept;
			}),
		);
	});
});
