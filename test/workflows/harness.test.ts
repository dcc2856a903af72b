import { createHmac, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { runWorkflow, triggerHarness, type RunWorkflowOptions, type WorkflowJson } from './harness';
import { HarnessDeclarative } from './harness/fixtures/HarnessDeclarative.node';
import { HarnessPoll } from './harness/fixtures/HarnessPoll.node';
import { HarnessProgrammatic } from './harness/fixtures/HarnessProgrammatic.node';
import { HarnessWebhook } from './harness/fixtures/HarnessWebhook.node';

/** What the loopback server saw. */
interface SeenRequest {
	method: string;
	url: string;
	authorization: string | undefined;
	body: string;
}

const seen: SeenRequest[] = [];
const HOOK_SECRET = 'whsec_harness_secret';
let server: http.Server;
let baseUrl: string;
/** A fresh key per test, so a header can only match if the harness really resolved it. */
let apiKey: string;

function reply(res: http.ServerResponse, status: number, body: unknown): void {
	res.statusCode = status;
	res.setHeader('Content-Type', 'application/json');
	res.end(JSON.stringify(body));
}

beforeAll(async () => {
	server = http.createServer(async (req, res) => {
		let body = '';
		for await (const chunk of req) body += String(chunk);
		seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		if (req.headers.authorization !== `Bearer ${apiKey}`) {
			reply(res, 401, { error: { code: 'unauthorized', message: 'Bad key', details: {} } });
			return;
		}
		const thing = /^\/v1\/things\/([^/]+)$/.exec(url.pathname);
		if (thing) {
			if (thing[1] === 'bad') {
				reply(res, 422, {
					error: { code: 'validation_failed', message: 'Thing is invalid', details: { id: ['is bad'] } },
				});
				return;
			}
			reply(res, 200, { data: { id: thing[1], q: url.searchParams.get('q') } });
			return;
		}
		if (url.pathname === '/v1/events') {
			const since = Number(url.searchParams.get('since'));
			const data = since >= 3 ? [] : [{ id: `e${since + 1}`, topic: url.searchParams.get('topic') }];
			reply(res, 200, { data, next: since + data.length });
			return;
		}
		if (req.method === 'POST' && url.pathname === '/v1/hooks') {
			reply(res, 201, { data: { id: 'h1', secret: HOOK_SECRET } });
			return;
		}
		if (req.method === 'DELETE' && url.pathname === '/v1/hooks/h1') {
			res.statusCode = 204;
			res.end();
			return;
		}
		reply(res, 404, { error: { code: 'not_found', message: 'No route', details: {} } });
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	// A trailing slash, as users type it: the nodes must cope.
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
	seen.length = 0;
	apiKey = `sk_test_${randomUUID()}`;
});

const nodeTypes = {
	'test.declarative': new HarnessDeclarative(),
	'test.programmatic': new HarnessProgrammatic(),
};

function options(): RunWorkflowOptions {
	return { nodeTypes, credentials: { socialAggregatorApi: { apiKey, baseUrl } } };
}

/** Manual Trigger → two input items → the node under test. */
function workflow(type: string, ids: string[], onError?: 'continueRegularOutput' | 'continueErrorOutput'): WorkflowJson {
	return {
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' },
			{ name: 'Input', type: 'test.items', parameters: { items: JSON.stringify(ids.map((id) => ({ id }))) } },
			{
				name: 'Call',
				type,
				parameters: { thingId: '={{ $json.id }}', query: '=q-{{ $json.id }}' },
				...(onError ? { onError } : {}),
			},
		],
		connections: {
			Start: { main: [[{ node: 'Input', type: 'main', index: 0 }]] },
			Input: { main: [[{ node: 'Call', type: 'main', index: 0 }]] },
		},
	};
}

const sortedUrls = () => seen.map((r) => r.url).sort();

describe.each([['test.declarative'], ['test.programmatic']])('runWorkflow with %s', (type) => {
	test('sends the Bearer key, path and query per input item and pairs every output item', async () => {
		const result = await runWorkflow(workflow(type, ['a1', 'b2']), options());

		expect(result.executionError).toBeUndefined();
		expect(result.executedNodes).toEqual(['Start', 'Input', 'Call']);
		expect(seen).toHaveLength(2);
		for (const request of seen) {
			expect(request.method).toBe('GET');
			expect(request.authorization).toBe(`Bearer ${apiKey}`);
		}
		expect(sortedUrls()).toEqual(['/v1/things/a1?q=q-a1', '/v1/things/b2?q=q-b2']);
		expect(result.items('Call')).toEqual([
			{ json: { id: 'a1', q: 'q-a1' }, pairedItem: { item: 0 } },
			{ json: { id: 'b2', q: 'q-b2' }, pairedItem: { item: 1 } },
		]);
		expect(result.credentialsRequested).toContain('socialAggregatorApi');
	});

	test('an HTTP 422 fails the node and the workflow', async () => {
		const result = await runWorkflow(workflow(type, ['a1', 'bad']), options());

		expect(sortedUrls()).toEqual(['/v1/things/a1?q=q-a1', '/v1/things/bad?q=q-bad']);
		const error = result.error('Call');
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '422' });
		expect(error?.description).toContain('Thing is invalid');
		expect(result.executionError).toMatchObject({ name: 'NodeApiError', httpCode: '422' });
		expect(result.output('Call')).toEqual([]);
		// dump() holds everything n8n kept: the error is there, the key is not.
		expect(result.dump()).toContain('Thing is invalid');
		expect(result.dump()).not.toContain(apiKey);
	});

	test('continueRegularOutput turns the 422 into an error item for that input item', async () => {
		const result = await runWorkflow(workflow(type, ['a1', 'bad'], 'continueRegularOutput'), options());

		expect(result.executionError).toBeUndefined();
		expect(result.error('Call')).toBeUndefined();
		const items = result.items('Call');
		expect(items).toHaveLength(2);
		expect(items[0]).toEqual({ json: { id: 'a1', q: 'q-a1' }, pairedItem: { item: 0 } });
		expect(items[1].pairedItem).toEqual({ item: 1 });
		expect(typeof items[1].json.error).toBe('string');
	});

	test('continueErrorOutput sends the failed item to the error output', async () => {
		const result = await runWorkflow(workflow(type, ['a1', 'bad'], 'continueErrorOutput'), options());

		expect(result.executionError).toBeUndefined();
		expect(result.output('Call', 0).map((item) => item.json)).toEqual([{ id: 'a1', q: 'q-a1' }]);
		const failed = result.output('Call', 1);
		expect(failed).toHaveLength(1);
		expect(failed[0].json.error).toEqual(expect.any(String));
		// n8n 2.41: declarative routing emits error items without pairedItem and n8n only fills
		// it in when input and output counts match, which the split outputs no longer do.
		expect(failed[0].pairedItem).toEqual(type === 'test.declarative' ? undefined : { item: 1 });
	});

	test('a wrong key reaches the server as such and fails with 401 (n8n retries a 401 once)', async () => {
		const result = await runWorkflow(workflow(type, ['a1']), {
			nodeTypes,
			credentials: { socialAggregatorApi: { apiKey: 'wrong', baseUrl } },
		});

		// httpRequestWithAuthentication re-authenticates and repeats a request that got a 401.
		expect(seen.map((r) => r.authorization)).toEqual(['Bearer wrong', 'Bearer wrong']);
		expect(result.executionError).toMatchObject({ httpCode: '401' });
	});
});

describe('runWorkflow basics', () => {
	test('starts at the first trigger, and test.items pairs with its input', async () => {
		const result = await runWorkflow({
			nodes: [
				{ name: 'Second', type: 'test.items', parameters: { items: [{ n: 1 }, { n: 2 }] } },
				{ name: 'Go', type: 'n8n-nodes-base.manualTrigger' },
			],
			connections: { Go: { main: [[{ node: 'Second', type: 'main', index: 0 }]] } },
		});
		expect(result.executedNodes).toEqual(['Go', 'Second']);
		expect(result.items('Go')).toEqual([{ json: {}, pairedItem: { item: 0 } }]);
		expect(result.items('Second')).toEqual([
			{ json: { n: 1 }, pairedItem: { item: 0 } },
			{ json: { n: 2 }, pairedItem: { item: 0 } },
		]);
	});

	test('a poll trigger starts a manual run; node log lines are recorded', async () => {
		const result = await runWorkflow(
			{
				nodes: [
					{ name: 'Poll', type: 'test.poll', parameters: { topic: 'dogs' } },
					{ name: 'Call', type: 'test.programmatic', parameters: { thingId: '={{ $json.id }}' } },
				],
				connections: { Poll: { main: [[{ node: 'Call', type: 'main', index: 0 }]] } },
			},
			{ ...options(), nodeTypes: { ...nodeTypes, 'test.poll': new HarnessPoll() } },
		);
		expect(result.executedNodes).toEqual(['Poll', 'Call']);
		expect(result.items('Poll')[0].json).toMatchObject({ id: 'e1', topic: 'dogs', mode: 'manual' });
		expect(result.items('Call')).toEqual([{ json: { id: 'e1', q: '' }, pairedItem: { item: 0 } }]);
		expect(result.logs).toContainEqual(
			expect.objectContaining({ level: 'info', message: 'Harness programmatic: 1 items' }),
		);
	});

	test('an unknown node of our package names the missing file', async () => {
		await expect(
			runWorkflow({
				nodes: [{ name: 'X', type: 'n8n-nodes-social-aggregator.noSuchNode' }],
				connections: {},
			}),
		).rejects.toThrow('nodes/NoSuchNode/NoSuchNode.node.ts does not exist');
	});
});

describe('triggerHarness: poll', () => {
	const pollNode = { type: 'test.poll', parameters: { topic: 'cats' } };
	const pollTypes = { 'test.poll': new HarnessPoll() };

	test('trigger mode keeps the node static data between polls', async () => {
		const trigger = triggerHarness({
			node: pollNode,
			nodeTypes: pollTypes,
			credentials: { socialAggregatorApi: { apiKey, baseUrl } },
		});

		const first = await trigger.poll();
		expect(first).toEqual([[{ json: { id: 'e1', topic: 'cats', mode: 'trigger', activation: 'activate' } }]]);
		expect(trigger.staticData).toEqual({ cursor: 1 });

		const second = await trigger.poll();
		expect(second?.[0].map((item) => item.json.id)).toEqual(['e2']);
		expect(trigger.staticData).toEqual({ cursor: 2 });

		expect(seen.map((r) => r.url)).toEqual(['/v1/events?since=0&topic=cats', '/v1/events?since=1&topic=cats']);
		expect(seen.every((r) => r.authorization === `Bearer ${apiKey}`)).toBe(true);
	});

	test('starts from given static data and returns null when nothing is new', async () => {
		const trigger = triggerHarness({
			node: pollNode,
			nodeTypes: pollTypes,
			credentials: { socialAggregatorApi: { apiKey, baseUrl } },
			staticData: { cursor: 3 },
		});
		expect(await trigger.poll()).toBeNull();
		expect(seen.map((r) => r.url)).toEqual(['/v1/events?since=3&topic=cats']);
	});

	test('manual mode sees stored data but, like n8n, never saves it', async () => {
		const trigger = triggerHarness({
			node: pollNode,
			nodeTypes: pollTypes,
			credentials: { socialAggregatorApi: { apiKey, baseUrl } },
			mode: 'manual',
			staticData: { cursor: 1 },
		});
		const first = await trigger.poll();
		const second = await trigger.poll();
		expect(first).toEqual([[{ json: { id: 'e2', topic: 'cats', mode: 'manual', activation: 'manual' } }]]);
		expect(second).toEqual(first);
		expect(trigger.staticData).toEqual({ cursor: 1 });
	});
});

describe('triggerHarness: webhook', () => {
	const webhookTypes = { 'test.webhook': new HarnessWebhook() };
	const sign = (raw: string) => `sha256=${createHmac('sha256', HOOK_SECRET).update(raw).digest('hex')}`;

	test('create/checkExists/webhook/delete share static data; webhook() gets rawBody and headers', async () => {
		const url = 'https://n8n.example.test/webhook/abc/hook';
		const trigger = triggerHarness({
			node: { type: 'test.webhook' },
			nodeTypes: webhookTypes,
			credentials: { socialAggregatorApi: { apiKey, baseUrl } },
			webhookUrl: url,
		});

		expect(await trigger.checkExists()).toBe(false);
		expect(await trigger.activate()).toBe(true);
		expect(await trigger.checkExists()).toBe(true);
		expect(trigger.staticData).toEqual({ hookId: 'h1', secret: HOOK_SECRET, url });
		expect(seen).toEqual([
			{ method: 'POST', url: '/v1/hooks', authorization: `Bearer ${apiKey}`, body: JSON.stringify({ url, test: false }) },
		]);

		// Spacing a re-serialised body would lose: the signature only matches the raw bytes.
		const raw = '{"event":  "post.created",\n "n": [1, 2]}';
		const call = await trigger.webhook({ headers: { 'X-Signature': sign(raw), 'X-Extra': 'yes' }, rawBody: raw });
		expect(call.items).toEqual([
			{ json: { body: { event: 'post.created', n: [1, 2] }, rawLength: raw.length, extra: 'yes', mode: 'webhook' } },
		]);
		expect(call.res.ended).toBe(false);

		const rejected = await trigger.webhook({ headers: { 'x-signature': sign(raw) }, body: JSON.parse(raw) });
		expect(rejected.data).toEqual({ noWebhookResponse: true });
		expect(rejected.items).toEqual([]);
		expect(rejected.res).toMatchObject({ statusCode: 401, body: { error: 'bad signature' }, ended: true });

		expect(await trigger.delete()).toBe(true);
		expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/v1/hooks/h1', authorization: `Bearer ${apiKey}` });
		expect(trigger.staticData).toEqual({});
		expect(await trigger.checkExists()).toBe(false);
	});

	test('without webhookUrl n8n computes its URL: /webhook in trigger mode, /webhook-test in manual mode', async () => {
		const create = async (mode: 'trigger' | 'manual') => {
			const trigger = triggerHarness({
				node: { type: 'test.webhook', webhookId: 'wh-1' },
				nodeTypes: webhookTypes,
				credentials: { socialAggregatorApi: { apiKey, baseUrl } },
				mode,
			});
			await trigger.create();
			return trigger.staticData.url;
		};
		expect(await create('trigger')).toBe('http://127.0.0.1:5678/webhook/wh-1/hook');
		expect(await create('manual')).toBe('http://127.0.0.1:5678/webhook-test/wh-1/hook');
		expect(seen.map((r) => JSON.parse(r.body).test)).toEqual([false, true]);
	});
});
