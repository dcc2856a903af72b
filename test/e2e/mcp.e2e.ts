/**
 * The action nodes as an agent uses them, without a language model: n8n's MCP Server Trigger exposes
 * Post › Get Many, Post › Download Media (JSON only) and Data › Post › Search as tools (their inputs from `$fromAI`); a plain MCP client
 * (JSON-RPC over n8n's Streamable HTTP transport) lists them, reads each input schema, calls them and
 * gets the simplified items; a refused input comes back as the tool's error, and the server goes on.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';

import { SEEDED } from '../fake-service';
import { e2eSuite, waitFor, type WorkflowSpec } from './lib';

const MCP_PATH = `social-aggregator-${randomUUID().slice(0, 8)}`;
const POSTS_TOOL = 'Get Many Posts';
const SEARCH_TOOL = 'Search Posts';
const MEDIA_TOOL = 'Download Post Media';

const mcpWorkflow: WorkflowSpec = {
	name: 'E2E MCP server',
	nodes: [
		{
			id: randomUUID(),
			name: 'MCP Server Trigger',
			type: '@n8n/n8n-nodes-langchain.mcpTrigger',
			typeVersion: 2,
			position: [0, 0],
			parameters: { path: MCP_PATH, authentication: 'none' },
			webhookId: randomUUID(),
		},
		{
			id: randomUUID(),
			name: POSTS_TOOL,
			type: 'n8n-nodes-social-aggregator.socialAggregatorTool',
			typeVersion: 1,
			position: [-200, 200],
			parameters: {
				descriptionType: 'manual',
				toolDescription: 'The newest posts of the Brand mentions feed',
				resource: 'post',
				operation: 'getAll',
				feedId: { __rl: true, mode: 'id', value: String(SEEDED.feeds.brandMentions) },
				limit: "={{ $fromAI('limit', 'How many posts to return, 1 or more', 'number') }}",
			},
		},
		{
			id: randomUUID(),
			name: SEARCH_TOOL,
			type: 'n8n-nodes-social-aggregator.socialAggregatorDataTool',
			typeVersion: 1,
			position: [200, 200],
			parameters: {
				descriptionType: 'manual',
				toolDescription: 'Recent posts for a hashtag or handle on social platforms',
				resource: 'post',
				operation: 'search',
				term: "={{ $fromAI('term', 'A hashtag such as #acme, or a handle') }}",
				platforms: "={{ $fromAI('platforms', 'Comma-separated platform names, such as Twitter,Instagram') }}",
				limit: "={{ $fromAI('limit', 'Posts per platform, 1 or more', 'number') }}",
			},
		},
		{
			id: randomUUID(),
			name: MEDIA_TOOL,
			type: 'n8n-nodes-social-aggregator.socialAggregatorTool',
			typeVersion: 1,
			position: [0, 400],
			parameters: {
				descriptionType: 'manual',
				toolDescription: 'The images and videos of a post of the Brand mentions feed',
				resource: 'post',
				operation: 'downloadMedia',
				feedId: { __rl: true, mode: 'id', value: String(SEEDED.feeds.brandMentions) },
				postId: { __rl: true, mode: 'id', value: "={{ $fromAI('post_id', 'The ID of the post', 'number') }}" },
			},
		},
	],
	connections: {
		[MEDIA_TOOL]: { ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
		[POSTS_TOOL]: { ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
		[SEARCH_TOOL]: { ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
	},
};

interface JsonRpcAnswer {
	id?: number;
	result?: Record<string, unknown>;
	error?: { code: number; message: string };
}

/** A minimal MCP client: JSON-RPC POSTs; the answer as JSON or as the `data:` of a server-sent event. */
class McpClient {
	private session: string | undefined;

	private nextId = 1;

	constructor(private readonly url: string) {}

	async post(body: Record<string, unknown>): Promise<{ status: number; answer?: JsonRpcAnswer }> {
		const response = await fetch(this.url, {
			method: 'POST',
			headers: {
				'Content-Type': 'application/json',
				Accept: 'application/json, text/event-stream',
				...(this.session ? { 'mcp-session-id': this.session, 'mcp-protocol-version': '2025-03-26' } : {}),
			},
			body: JSON.stringify(body),
		});
		this.session ??= response.headers.get('mcp-session-id') ?? undefined;
		const text = await response.text();
		if (text.trim() === '') return { status: response.status };
		const data = text
			.split('\n')
			.filter((line) => line.startsWith('data:'))
			.map((line) => line.slice(5).trim());
		const answers = (data.length > 0 ? data : [text]).map((chunk) => JSON.parse(chunk) as JsonRpcAnswer);
		return { status: response.status, answer: answers.find((a) => a.id === body.id) ?? answers[0] };
	}

	async request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
		const { status, answer } = await this.post({ jsonrpc: '2.0', id: this.nextId++, method, params });
		assert.equal(status, 200, `${method}: HTTP ${status}`);
		assert.ok(answer && !answer.error, `${method}: ${JSON.stringify(answer)}`);
		return answer.result!;
	}

	async initialize(): Promise<Record<string, unknown>> {
		const result = await this.request('initialize', {
			protocolVersion: '2025-03-26',
			capabilities: {},
			clientInfo: { name: 'social-aggregator-e2e', version: '1.0.0' },
		});
		assert.ok(this.session, 'no mcp-session-id');
		const { status } = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
		assert.ok(status === 202 || status === 200, `notifications/initialized: HTTP ${status}`);
		return result;
	}

	/** tools/call: the result's text parsed as JSON where it is JSON, and whether it is an error. */
	async call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string; json?: unknown }> {
		const result = await this.request('tools/call', { name, arguments: args });
		const [first] = result.content as Array<{ type: string; text: string }>;
		let json: unknown;
		try {
			json = JSON.parse(first.text);
		} catch {
			json = undefined;
		}
		return { isError: result.isError === true, text: first.text, json };
	}
}

const FEED_POST = ['id', 'feed_id', 'platform', 'poster_name', 'message', 'posted_at', 'url', 'like_count', 'comment_count', 'moderation_status'];
const DATA_POST = ['platform', 'platform_id', 'poster_name', 'message', 'posted_at', 'url', 'like_count', 'comment_count'];
/** What an agent reads of a post by default, at most (JSON bytes). */
const POST_BYTES = 400;

/** A tool's items, whether n8n hands them over as a list or as one item. */
const itemsOf = (json: unknown): Array<Record<string, unknown>> => (Array.isArray(json) ? json : [json]) as Array<Record<string, unknown>>;

describe('the action nodes as tools of n8n’s MCP Server Trigger', () => {
	let workflowId = '';
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n }) => {
			workflowId = await n8n.importWorkflow(mcpWorkflow);
			await n8n.publish(workflowId);
			return { published: [workflowId] };
		},
	});

	it('lists the tools with their input schemas, calls them, gets simplified items, and a refused input as the tool’s error', async () => {
		const url = `${ctx.n8n.baseUrl}/mcp/${MCP_PATH}`;
		// The MCP endpoint is registered with the published workflow; wait until it stops answering 404.
		await waitFor('the MCP endpoint', async () => (await fetch(url, { method: 'POST', body: '{}' })).status !== 404, { timeoutMs: 30_000 });
		const client = new McpClient(url);
		const init = await client.initialize();
		assert.ok(init.serverInfo, JSON.stringify(init));

		const { tools } = (await client.request('tools/list')) as { tools: Array<{ name: string; description?: string; inputSchema: any }> };
		const byName = new Map(tools.map((tool) => [tool.name, tool]));
		assert.deepEqual([...byName.keys()].sort(), ['Download_Post_Media', 'Get_Many_Posts', 'Search_Posts']);
		const posts = byName.get('Get_Many_Posts')!;
		const search = byName.get('Search_Posts')!;
		assert.equal(posts.description, 'The newest posts of the Brand mentions feed');
		assert.equal(posts.inputSchema.type, 'object');
		assert.equal(posts.inputSchema.properties.limit.type, 'number');
		assert.deepEqual(Object.keys(search.inputSchema.properties).sort(), ['limit', 'platforms', 'term']);
		assert.equal(search.inputSchema.properties.term.type, 'string');

		const fake = ctx.backend.fake!;
		fake.control.requests.clear();
		const got = await client.call('Get_Many_Posts', { limit: 3 });
		assert.equal(got.isError, false, got.text);
		const feedPosts = itemsOf(got.json);
		assert.equal(feedPosts.length, 3, got.text);
		for (const post of feedPosts) assert.deepEqual(Object.keys(post), FEED_POST);
		for (const post of feedPosts) assert.ok(Buffer.byteLength(JSON.stringify(post)) <= POST_BYTES, JSON.stringify(post));

		const found = await client.call('Search_Posts', { term: '#acme', platforms: 'Twitter,Instagram', limit: 2 });
		assert.equal(found.isError, false, found.text);
		const dataPosts = itemsOf(found.json);
		assert.equal(dataPosts.length, 4, found.text);
		for (const post of dataPosts) assert.deepEqual(Object.keys(post), DATA_POST);
		for (const post of dataPosts) assert.ok(Buffer.byteLength(JSON.stringify(post)) <= POST_BYTES, JSON.stringify(post));
		assert.deepEqual([...new Set(dataPosts.map((post) => post.platform))].sort(), ['Instagram', 'Twitter']);

		// Refused before any request: Google takes review place IDs, not hashtags.
		const before = fake.control.requests.list({ path: '/data/posts' }).length;
		const refused = await client.call('Search_Posts', { term: '#acme', platforms: 'Google', limit: 2 });
		assert.equal(refused.isError, true, refused.text);
		assert.match(refused.text, /Invalid Term Type .*platform Google/);
		assert.equal(fake.control.requests.list({ path: '/data/posts' }).length, before, 'a refused input reached the service');

		// Download Media as a tool: JSON only (the simplified post and each medium), nothing downloaded.
		// The simplified post leaves media out: the stand-in says which of the posts has some.
		const withMedia = feedPosts
			.map((post) => fake.control.getPost(Number(post.id)) as { id: number; media: Array<{ url: string }> } | null)
			.find((post) => (post?.media.length ?? 0) > 0);
		assert.ok(withMedia, got.text);
		const media = await client.call('Download_Post_Media', { post_id: withMedia.id });
		assert.equal(media.isError, false, media.text);
		const described = itemsOf(media.json);
		assert.ok(described.length >= 1, media.text);
		for (const item of described) {
			assert.deepEqual(Object.keys(item), [...FEED_POST, 'medium']);
			assert.equal(item.id, withMedia.id);
		}
		assert.equal((described[0].medium as { url: string }).url, withMedia.media[0].url);
		assert.ok(!/"(data|binary)"/.test(media.text), 'binary reached the agent');
		assert.equal(fake.control.media.requests().length, 0, 'a medium was downloaded for the agent');

		// The server goes on after the error.
		const again = await client.call('Get_Many_Posts', { limit: 1 });
		assert.equal(again.isError, false, again.text);
		assert.equal(itemsOf(again.json).length, 1);
		assert.ok(!JSON.stringify([got, found, refused, again]).includes(fake.control.keys.owner), 'the API key reached the agent');
	});
});
