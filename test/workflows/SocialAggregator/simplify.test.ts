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

/** docs/answers.md: a simplified post of a feed, in this order; one found across feeds names its feed after its ID. */
const SIMPLIFIED_POST = ['id', 'platform', 'poster_name', 'message', 'posted_at', 'url', 'like_count', 'comment_count', 'moderation_status'];
const FOUND_POST = ['id', 'feed_id', ...SIMPLIFIED_POST.slice(1)];

const json = (items: OutputItem[]) => items.map((item) => item.json);

/** What the simplified item must hold, from the raw post. */
function expectedSimplified(raw: IDataObject, withFeed = false): IDataObject {
	const poster = raw.poster as IDataObject;
	return {
		id: raw.id,
		...(withFeed ? { feed_id: raw.feed_id } : {}),
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
	['Get Many', getMany, SIMPLIFIED_POST],
	['Search Across Feeds', search, FOUND_POST],
])('Post › %s', (_name, parameters, fields) => {
	const withFeed = fields === FOUND_POST;
	test('Simplify is on by default: exactly the documented fields, each from the raw post', async () => {
		const simplified = await runNode(fake, parameters);
		const raw = await runNode(fake, { ...parameters, simplify: false });
		expect(simplified.error).toBeUndefined();
		expect(simplified.items.length).toBe(30);
		expect(json(simplified.items)).toEqual(json(raw.items).map((post) => expectedSimplified(post, withFeed)));
		for (const item of simplified.items) expect(Object.keys(item.json)).toEqual(fields);
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

test('a post whose answer lacks fields: nulls in the simplified item, never a failure', async () => {
	const postId = SEEDED.firstPostId;
	// Another legal answer than the fake's own: the handler runs, then this body is answered instead.
	fake.control.answers.add({ path: `/feeds/${F.brandMentions}/posts/${postId}`, body: { data: { id: 7, poster: null, media: 'none' } } });
	const run = await runNode(fake, { resource: 'post', operation: 'get', feedId: feed(F.brandMentions), postId: String(postId), simplify: true });
	expect(run.error).toBeUndefined();
	expect(run.items[0].json).toEqual({
		id: 7,
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

	test('Raw: every field; Selected Fields: the chosen ones and the ID', async () => {
		const raw = await runTool({ toolOutput: 'raw' });
		expect(raw.items[0].json).toHaveProperty('external_id');
		const selected = await runTool({ toolOutput: 'selected', selectedFields: ['message', 'ai_sentiment'] });
		expect(selected.items.map((item) => item.json)).toEqual(
			raw.items.map(({ json: post }) => {
				const kept: IDataObject = { id: post.id, message: post.message };
				if ('ai_sentiment' in post) kept.ai_sentiment = post.ai_sentiment;
				return kept;
			}),
		);
	});
});
