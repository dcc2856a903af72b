import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { runWorkflow, type RunWorkflowOptions, type WorkflowJson } from './harness';
import { HarnessDeclarative } from './harness/fixtures/HarnessDeclarative.node';
import { HarnessProgrammatic } from './harness/fixtures/HarnessProgrammatic.node';

/** What the loopback server saw. */
interface SeenRequest {
	method: string;
	url: string;
	authorization: string | undefined;
}

const seen: SeenRequest[] = [];
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
	server = http.createServer((req, res) => {
		seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
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

	test('an unknown node of our package names the missing file', async () => {
		await expect(
			runWorkflow({
				nodes: [{ name: 'X', type: 'n8n-nodes-social-aggregator.noSuchNode' }],
				connections: {},
			}),
		).rejects.toThrow('nodes/NoSuchNode/NoSuchNode.node.ts does not exist');
	});
});
