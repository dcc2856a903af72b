/**
 * What the workflow tests of every node share: the fake service of a test file,
 * the package's credential for it, a one-node workflow run against it (with the
 * requests the fake received), the editor's load-options context, and sleeps
 * that are recorded instead of slept.
 */
import { LoadOptionsContext } from 'n8n-core';
import type { ILoadOptionsFunctions, INodeParameters } from 'n8n-workflow';

import { start, type FakeService, type RequestLogEntry, type StartOptions } from '../fake-service';
import { retryTiming } from '../../nodes/shared/retry';
import {
	buildWorkflow,
	createAdditionalData,
	runWorkflow,
	TestCredentialsHelper,
	type AnyNodeType,
	type CredentialsByType,
	type OutputItem,
	type RecordedError,
	type WorkflowJson,
	type WorkflowResult,
} from './harness';

/**
 * Rate limits off (the burst limit of the seeded keys would otherwise throttle a
 * whole file of workflows; 429s are injected where a test wants them), http://
 * webhook URLs allowed.
 */
export const FAKE_OPTIONS: StartOptions = { port: 0, limits: { enabled: false }, allowHttpWebhooks: true };

/**
 * A fake service for each test of a file, at an address of its own: started before the test, closed when the next
 * one starts (and after the last). What the nodes count of a key's budget is kept per Base URL and key for the life of the process,
 * so a new address gives each test a new rate-limit window in the nodes' count as at the service. The object returned
 * is filled in when the test's fake has started, so use it inside tests and hooks only.
 */
export function useFakeService(options: StartOptions = FAKE_OPTIONS): FakeService {
	const fake = {} as FakeService;
	let running: FakeService | undefined;
	const stop = async () => {
		await running?.close();
		running = undefined;
	};
	beforeEach(async () => {
		await stop();
		running = await start(options);
		Object.assign(fake, running);
	});
	afterAll(stop);
	return fake;
}

/** The package's credential for the fake: the seeded owner's key and the fake's base URL unless others are given. */
export function credentialsFor(fake: FakeService, credential: { apiKey?: string; baseUrl?: string } = {}): CredentialsByType {
	return {
		socialAggregatorApi: { apiKey: credential.apiKey ?? fake.control.keys.owner, baseUrl: credential.baseUrl ?? fake.url },
	};
}

/** The node a test file runs: its name in the workflow, its type, and how it is loaded where that is not from source. */
export interface NodeUnderTest {
	name: string;
	type: string;
	nodeTypes?: Record<string, AnyNodeType>;
}

type OnError = 'continueRegularOutput' | 'continueErrorOutput';
type Parameters = Record<string, unknown>;

export interface RunOptions {
	/** The node's input items (default: one empty item). */
	items?: object[];
	onError?: OnError;
	/** The workflow time zone (default: n8n's). */
	timezone?: string;
	/** Another node of the same type after this one, for chains (Request → Wait for Approval). */
	then?: { name: string; parameters: Parameters; onError?: OnError };
	/** The credential's API key (default: the seeded owner of the Team account "acme"). `null`: no credential at all. */
	apiKey?: string | null;
	/** The credential's base URL (default: the fake's, with a trailing slash as users type it). */
	baseUrl?: string;
	/** The node's version (default: the latest), as a saved workflow pins it. */
	typeVersion?: number;
	/** More fields of the credential (the key's rate limit). */
	credential?: Record<string, string | number>;
}

function nodeJson(name: string, type: string, parameters: Parameters, onError: OnError | undefined, typeVersion?: number) {
	return {
		name,
		type,
		parameters: parameters as WorkflowJson['nodes'][number]['parameters'],
		...(onError ? { onError } : {}),
		...(typeVersion !== undefined ? { typeVersion } : {}),
	};
}

/** Manual Trigger → Input (the given items) → the node with `parameters` (→ the `then` node). */
export function oneNodeWorkflow(node: NodeUnderTest, parameters: Parameters, options: RunOptions = {}): WorkflowJson {
	const json: WorkflowJson = {
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' },
			{ name: 'Input', type: 'test.items', parameters: { items: JSON.stringify(options.items ?? [{}]) } },
			nodeJson(node.name, node.type, parameters, options.onError, options.typeVersion),
		],
		connections: {
			Start: { main: [[{ node: 'Input', type: 'main', index: 0 }]] },
			Input: { main: [[{ node: node.name, type: 'main', index: 0 }]] },
		},
		...(options.timezone ? { settings: { timezone: options.timezone } } : {}),
	};
	if (options.then) {
		json.nodes.push(nodeJson(options.then.name, node.type, options.then.parameters, options.then.onError));
		json.connections[node.name] = { main: [[{ node: options.then.name, type: 'main', index: 0 }]] };
	}
	return json;
}

export interface NodeRun {
	result: WorkflowResult;
	/** main[0] of the node; empty when it failed. */
	items: OutputItem[];
	/** The node's error (the run failed), or undefined. */
	error: RecordedError | undefined;
	/** What the fake received during the run, in order. */
	requests: RequestLogEntry[];
}

/** Runs the node in a one-node workflow against the fake: its output, its error and the requests it sent. */
export async function runOneNode(
	fake: FakeService,
	node: NodeUnderTest,
	parameters: Parameters,
	options: RunOptions = {},
): Promise<NodeRun> {
	fake.control.requests.clear();
	const credentials =
		options.apiKey === null ? {} : credentialsFor(fake, { apiKey: options.apiKey, baseUrl: options.baseUrl ?? `${fake.url}/` });
	if (options.credential) Object.assign(credentials.socialAggregatorApi, options.credential);
	const result = await runWorkflow(oneNodeWorkflow(node, parameters, options), { nodeTypes: node.nodeTypes, credentials });
	const error = result.error(node.name);
	return {
		result,
		items: error ? [] : result.items(node.name),
		error,
		requests: fake.control.requests.list(),
	};
}

/** A load-options context for node `nodeName` of the workflow with these parameters, as the editor has them. */
export function loadOptionsContext(
	fake: FakeService,
	json: WorkflowJson,
	nodeName: string,
	parameters: INodeParameters,
	path: string,
): ILoadOptionsFunctions {
	const credentials = credentialsFor(fake);
	const built = buildWorkflow(json, { credentials });
	const additionalData = createAdditionalData({ credentialsHelper: new TestCredentialsHelper(credentials) });
	additionalData.currentNodeParameters = parameters;
	return new LoadOptionsContext(built, built.getNode(nodeName)!, additionalData, path) as unknown as ILoadOptionsFunctions;
}

/** Replaces the transport's and the poller's sleep for one test; returns the waits asked for. */
export function fastSleep(onSleep?: (ms: number) => void | Promise<void>): { waits: number[]; restore: () => void } {
	const original = retryTiming.sleep;
	const waits: number[] = [];
	retryTiming.sleep = async (ms: number) => {
		waits.push(ms);
		await onSleep?.(ms);
	};
	return {
		waits,
		restore: () => {
			retryTiming.sleep = original;
		},
	};
}

/** For every test of the file, the waits the node asked for, recorded instead of slept. */
export function recordSleeps(): number[] {
	const waits: number[] = [];
	let sleep: ReturnType<typeof fastSleep> | undefined;
	beforeEach(() => {
		waits.length = 0;
		sleep = fastSleep((ms) => {
			waits.push(ms);
		});
	});
	afterEach(() => {
		sleep?.restore();
	});
	return waits;
}

/** Placeholders JSON turns into when a field is missing or not text: an option showing one cannot be picked. */
const UNPICKABLE = new Set(['', 'undefined', 'null', '[object Object]', 'NaN']);

/** Asserts that every option of a dropdown shows text and sends a value: none blank, none a placeholder. */
export function expectPickable(options: Array<{ name: unknown; value: unknown }>): void {
	for (const option of options) {
		for (const part of [option.name, option.value]) {
			expect(typeof part === 'string' || typeof part === 'number').toBe(true);
			expect(UNPICKABLE.has(String(part).trim())).toBe(false);
			expect(String(part).trim()).toBe(String(part));
			expect(String(part)).not.toMatch(/undefined|\[object Object\]|^null\b|\bnull$/);
		}
	}
}
