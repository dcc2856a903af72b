import { DirectoryLoader } from 'n8n-core';

import { start, type FakeService, type RequestLogEntry } from '../../fake-service';
import { SocialAggregator } from '../../../nodes/SocialAggregator/SocialAggregator.node';
import { runWorkflow, type OutputItem, type RecordedError, type WorkflowJson, type WorkflowResult } from '../harness';

export const NODE_TYPE = 'n8n-nodes-social-aggregator.socialAggregator';
export const NODE = 'Social Aggregator';

/**
 * One fake service for a test file: rate limits off (the burst limit of the
 * seeded keys would otherwise throttle a whole file of workflows; 429s are
 * injected where a test wants them), http:// webhook URLs allowed.
 */
export async function startFake(): Promise<FakeService> {
	return await start({ port: 0, limits: { enabled: false }, allowHttpWebhooks: true });
}

/**
 * The node as n8n loads it: n8n adds the "Request Options" collection (batching,
 * timeout, proxy) to every declarative node when it reads the package.
 */
function loadedNode(): SocialAggregator {
	const node = new SocialAggregator();
	DirectoryLoader.applyDeclarativeNodeOptionParameters(node);
	return node;
}

const nodeTypes = { [NODE_TYPE]: loadedNode() };

export interface RunOptions {
	/** The input items of the node (default: one empty item). */
	items?: object[];
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	/** The API key (default: the seeded owner of the Team account "acme"). */
	apiKey?: string;
	timezone?: string;
	/** The credential's base URL (default: the fake's, with a trailing slash as users type it). */
	baseUrl?: string;
}

/** Manual Trigger → Input (the given items) → Social Aggregator with `parameters`. */
export function workflow(parameters: Record<string, unknown>, options: RunOptions = {}): WorkflowJson {
	return {
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' },
			{ name: 'Input', type: 'test.items', parameters: { items: JSON.stringify(options.items ?? [{}]) } },
			{
				name: NODE,
				type: NODE_TYPE,
				parameters: parameters as WorkflowJson['nodes'][number]['parameters'],
				...(options.onError ? { onError: options.onError } : {}),
			},
		],
		connections: {
			Start: { main: [[{ node: 'Input', type: 'main', index: 0 }]] },
			Input: { main: [[{ node: NODE, type: 'main', index: 0 }]] },
		},
		settings: { timezone: options.timezone ?? 'UTC' },
	};
}

export interface NodeRun {
	result: WorkflowResult;
	/** main[0] of the node; throws if the node did not run. */
	items: OutputItem[];
	/** The node's error (the run failed), or undefined. */
	error: RecordedError | undefined;
	/** What the fake received during the run, in order. */
	requests: RequestLogEntry[];
}

/** Runs the node against the fake and returns its output, its error and the requests it sent. */
export async function runNode(
	fake: FakeService,
	parameters: Record<string, unknown>,
	options: RunOptions = {},
): Promise<NodeRun> {
	fake.control.requests.clear();
	const result = await runWorkflow(workflow(parameters, options), {
		nodeTypes,
		credentials: {
			socialAggregatorApi: { apiKey: options.apiKey ?? fake.control.keys.owner, baseUrl: options.baseUrl ?? `${fake.url}/` },
		},
	});
	const error = result.error(NODE);
	return {
		result,
		items: error ? [] : result.items(NODE),
		error,
		requests: fake.control.requests.list(),
	};
}

/** A resource locator value, as the editor stores it. */
export function feed(id: number | string, mode: 'list' | 'id' = 'list') {
	return { __rl: true, mode, value: String(id) };
}

/** The parts of a request log entry that tests compare. */
export function sent(entry: RequestLogEntry) {
	return { method: entry.method, path: entry.path, query: entry.query, body: entry.body };
}
