/**
 * Simplify and, for a tool, Output Fields on Post › Get, Get Many and Search Across Feeds: the simplified
 * item's fields exactly as README.md's "Simplified output" documents them, derived from the raw post of the
 * same answer; version 1 keeps the raw output whatever its parameters say.
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

/** README.md: a simplified post of a feed, in this order (feed_id where the answer names the feed). */
const SIMPLIFIED_POST = [
	'id',
	'feed_id',
	'platform',
	'url',
	'message',
	'posted_at',
	'poster',
	'media',
	'like_count',
	'comment_count',
	'moderation_status',
	'pinned',
];

const json = (items: OutputItem[]) => items.map((item) => item.json);

/** What the simplified item must hold, from the raw post. */
function expectedSimplified(raw: IDataObject): IDataObject {
	const poster = raw.poster as IDataObject;
	const first = (raw.media as IDataObject[])[0];
	return {
		id: raw.id,
		feed_id: raw.feed_id,
		platform: raw.platform,
		url: raw.url,
		message: raw.message,
		posted_at: raw.external_created_at,
		poster: { name: poster.display_name, handle: poster.name, url: poster.url },
		media: first ? { type: first.type, url: first.url } : null,
		like_count: raw.like_count ?? null,
		comment_count: raw.comment_count ?? null,
		moderation_status: raw.moderation_status,
		pinned: raw.pinned,
	};
}

const getMany = { resource: 'post', operation: 'getAll', feedId: feed(F.brandMentions), limit: 30 };
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
		// Some posts of the seed have media, some none: both forms are met.
		expect(simplified.items.some((item) => item.json.media === null)).toBe(true);
		expect(simplified.items.some((item) => item.json.media !== null)).toBe(true);
	});

	test('Simplify off gives the raw posts, as version 1 does whatever its parameters say', async () => {
		const raw = await runNode(fake, { ...parameters, simplify: false });
		const v1 = await runNode(fake, { ...parameters, simplify: true }, { typeVersion: 1 });
		expect(json(v1.items)).toEqual(json(raw.items));
		expect(Object.keys(raw.items[0].json)).toEqual(expect.arrayContaining(['external_id', 'source_id', 'created_at', 'tagged_users']));
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
		url: null,
		message: null,
		posted_at: null,
		poster: null,
		media: null,
		like_count: null,
		comment_count: null,
		moderation_status: null,
		pinned: null,
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
