/**
 * The credential test n8n runs when a Social Aggregator API credential is saved: the credential's declarative
 * `test` (GET /account) sent through n8n-core's routing and HTTP client, as n8n's credential tester sends it
 * (`CredentialsTester.runRequestTest`, packages/cli/dist/services/credentials-tester.service.js in n8n 2.41.1,
 * mirrored in `n8nCredentialTest` below), with the credential's `authenticate` applied by the harness.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ExecuteContext, RoutingNode } from 'n8n-core';
import {
	createEmptyRunExecutionData,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialTestRequest,
	type INode,
	type INodeCredentialTestResult,
	type INodeType,
} from 'n8n-workflow';

import { createAdditionalData, getCredentialType, HarnessNodeTypes, runWorkflow, setUpEngine, TestCredentialsHelper } from '../harness';
import { useFakeService } from '../support';

const fake = useFakeService();

const TYPE = 'socialAggregatorApi';

/** The node n8n's tester makes for a declarative test: one property whose routing is the test's request. */
function testerNodeType(request: ICredentialTestRequest['request']): INodeType {
	return {
		description: {
			displayName: 'Credential Test',
			name: 'credentialTest',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: { name: 'Temp-Node' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: TYPE, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', default: '', routing: { request } }],
		},
	} as INodeType;
}

interface TesterError {
	message: string;
	cause?: { code?: string; response?: { status: number; statusText?: string } };
}

/** n8n's credential test of a declarative `test`: its request through RoutingNode, its answer read by the same rules. */
async function n8nCredentialTest(data: ICredentialDataDecryptedObject): Promise<INodeCredentialTestResult> {
	setUpEngine();
	const { test: testRequest } = getCredentialType(TYPE);
	if (!testRequest) throw new Error('the credential has no declarative test');
	const nodeType = testerNodeType(testRequest.request);
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'test.credentialTest',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [TYPE]: { id: 'cred-1', name: 'Social Aggregator account' } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({ 'test.credentialTest': nodeType }),
	});
	const additionalData = createAdditionalData({ credentialsHelper: new TestCredentialsHelper({ [TYPE]: data }) });
	const inputData = { main: [[{ json: {} }]] };
	const executeData = { node, data: {}, source: null };
	const context = new ExecuteContext(workflow, node, additionalData, 'internal', createEmptyRunExecutionData(), 0, [], inputData, executeData, []);
	const credentialsDecrypted = { id: 'cred-1', name: 'Social Aggregator account', type: TYPE, data };
	try {
		await new RoutingNode(context, nodeType, credentialsDecrypted).runNode();
	} catch (thrown) {
		const error = thrown as TesterError;
		const response = error.cause?.response;
		if (response) {
			const rule = (testRequest.rules ?? []).find((r) => r.type === 'responseCode' && r.properties.value === response.status);
			if (rule) return { status: 'Error', message: String(rule.properties.message) };
			if (response.status < 199 || response.status > 299) {
				return { status: 'Error', message: response.statusText || `Received HTTP status code: ${response.status}` };
			}
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: error.message.toString() };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

interface Seen {
	method?: string;
	url?: string;
	headers: IncomingHttpHeaders;
}

const servers: Server[] = [];

/** A server on this machine answering every request with `status` and `headers`, recording what it was sent. */
async function server(status: number, headers: Record<string, string> = {}) {
	const seen: Seen[] = [];
	const started = createServer((request, response) => {
		seen.push({ method: request.method, url: request.url, headers: request.headers });
		response.writeHead(status, headers);
		response.end();
	});
	await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve));
	servers.push(started);
	return { seen, origin: `http://127.0.0.1:${(started.address() as AddressInfo).port}` };
}

afterEach(async () => {
	await Promise.all(servers.splice(0).map(async (s) => await new Promise((resolve) => s.close(resolve))));
});

const KEY = () => fake.control.keys.owner;

test('a right key and Base URL (a trailing slash is fine) pass, with one GET /account carrying the key', async () => {
	expect(await n8nCredentialTest({ apiKey: KEY(), baseUrl: `${fake.url}/` })).toEqual({ status: 'OK', message: 'Connection successful!' });
	const requests = fake.control.requests.list();
	expect(requests.map((r) => [r.method, r.path, r.status, r.role])).toEqual([['GET', '/account', 200, 'owner']]);
});

test('a refused key is named as such with its status, never quoting the key', async () => {
	const wrong = 'sag_live_not_a_key_at_all';
	const result = await n8nCredentialTest({ apiKey: wrong, baseUrl: fake.url });
	expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/^The service refused the API key \(HTTP 401 from GET \/account\)/) });
	expect(result.message).not.toContain(wrong);
});

test('a Base URL that redirects gets the redirect message, and the host it points to sees nothing', async () => {
	const elsewhere = await server(200);
	const redirecting = await server(302, { Location: `${elsewhere.origin}/v1/account` });
	const result = await n8nCredentialTest({ apiKey: KEY(), baseUrl: `${redirecting.origin}/v1` });
	expect(result).toEqual({
		status: 'Error',
		message: expect.stringMatching(/^The Base URL answers GET \/account with a redirect \(HTTP 302\), which the API key does not follow: enter the address the API itself answers at, ending in \/v1/),
	});
	expect(redirecting.seen.map((s) => [s.method, s.url])).toEqual([['GET', '/v1/account']]);
	expect(elsewhere.seen).toEqual([]);
});

test('a Base URL without /v1 is told to end in /v1 (the service answers 404)', async () => {
	const result = await n8nCredentialTest({ apiKey: KEY(), baseUrl: new URL(fake.url).origin });
	expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/^The Base URL has no GET \/account \(HTTP 404\): .*ending in \/v1/) });
});

test('plain http to another machine is refused before any request: the key travels over https only', async () => {
	const result = await n8nCredentialTest({ apiKey: KEY(), baseUrl: 'http://api.example.invalid/v1' });
	expect(result).toEqual({
		status: 'Error',
		message: expect.stringMatching(/^The Base URL http:\/\/api\.example\.invalid does not use https, and the API key travels only over https/),
	});
});

test('a key a header cannot carry (a pasted line break) is named as such, before any request', async () => {
	fake.control.requests.clear();
	const result = await n8nCredentialTest({ apiKey: `${KEY()}\n`, baseUrl: fake.url });
	expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/^The API Key holds a line break/) });
	expect(fake.control.requests.list()).toEqual([]);
});

test('an address nothing answers at: n8n shows the error code only', async () => {
	const closed = await server(200);
	await new Promise((resolve) => servers.pop()!.close(resolve));
	expect(await n8nCredentialTest({ apiKey: KEY(), baseUrl: `${closed.origin}/v1` })).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
});

describe('a credential saved with the former "Rate Limit Hour (Seconds)" field', () => {
	const saved = () => ({ apiKey: KEY(), baseUrl: fake.url, requestsPerHour: 300, burstPerMinute: 60, rateLimitHour: 3600 });

	test('is no field of the credential any more', () => {
		expect(getCredentialType(TYPE).properties.map((p) => p.name)).toEqual(['apiKey', 'baseUrl', 'requestsPerHour', 'burstPerMinute']);
	});

	test('still passes its test and still runs the nodes', async () => {
		expect(await n8nCredentialTest(saved())).toEqual({ status: 'OK', message: 'Connection successful!' });
		fake.control.requests.clear();
		const result = await runWorkflow(
			{
				nodes: [
					{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' },
					{ name: 'Feeds', type: 'n8n-nodes-social-aggregator.socialAggregator', parameters: { resource: 'feed', operation: 'getAll', returnAll: true } },
				],
				connections: { Start: { main: [[{ node: 'Feeds', type: 'main', index: 0 }]] } },
			},
			{ credentials: { [TYPE]: saved() } },
		);
		expect(result.error('Feeds')).toBeUndefined();
		expect(result.items('Feeds').length).toBeGreaterThan(0);
		expect(fake.control.requests.list().map((r) => [r.path, r.role])).toEqual([['/feeds', 'owner']]);
	});
});
