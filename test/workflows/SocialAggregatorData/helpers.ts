import { start, type FakeService, type RequestLogEntry } from '../../fake-service';
import { runWorkflow, type CredentialsByType, type OutputItem, type RecordedError, type WorkflowJson, type WorkflowResult } from '../harness';
import { retryTiming } from '../../../nodes/shared/retry';

export const NODE_TYPE = 'n8n-nodes-social-aggregator.socialAggregatorData';
export const NODE = 'Social Aggregator Data';

/** One fake service per test file; rate limits off (429s are injected where a test wants them). */
export async function startFake(): Promise<FakeService> {
	return await start({ port: 0, limits: { enabled: false } });
}

export interface RunOptions {
	/** The node's input items (default: one empty item). */
	items?: object[];
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	/** The credential's API key (default: the seeded owner). `null`: no credential at all. */
	apiKey?: string | null;
	/** Another node after this one, for chains (Request → Wait for Approval). */
	then?: { name: string; parameters: Record<string, unknown>; onError?: RunOptions['onError'] };
}

export function workflow(parameters: Record<string, unknown>, options: RunOptions = {}): WorkflowJson {
	const json: WorkflowJson = {
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
	};
	if (options.then) {
		json.nodes.push({
			name: options.then.name,
			type: NODE_TYPE,
			parameters: options.then.parameters as WorkflowJson['nodes'][number]['parameters'],
			...(options.then.onError ? { onError: options.then.onError } : {}),
		});
		json.connections[NODE] = { main: [[{ node: options.then.name, type: 'main', index: 0 }]] };
	}
	return json;
}

export interface NodeRun {
	result: WorkflowResult;
	items: OutputItem[];
	error: RecordedError | undefined;
	/** Everything the fake received during the run, in order. */
	requests: RequestLogEntry[];
	/** The Data API searches among them. */
	searches: RequestLogEntry[];
}

export async function runNode(
	fake: FakeService,
	parameters: Record<string, unknown>,
	options: RunOptions = {},
): Promise<NodeRun> {
	fake.control.requests.clear();
	const credentials: CredentialsByType =
		options.apiKey === null
			? {}
			: { socialAggregatorApi: { apiKey: options.apiKey ?? fake.control.keys.owner, baseUrl: `${fake.url}/` } };
	const result = await runWorkflow(workflow(parameters, options), { credentials });
	const error = result.error(NODE);
	const requests = fake.control.requests.list();
	return {
		result,
		items: error ? [] : result.items(NODE),
		error,
		requests,
		searches: requests.filter((r) => r.path === '/data/posts'),
	};
}

/** A query value of a logged request as one string. */
export function q(entry: RequestLogEntry, name: string): string | undefined {
	const value = entry.query[name];
	return Array.isArray(value) ? value.join(',') : value;
}

/** How many times each platform was asked for a page, from the fake's request log. */
export function pagesAsked(searches: RequestLogEntry[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const entry of searches) {
		for (const platform of (q(entry, 'platforms') ?? '').split(',').filter(Boolean)) {
			counts[platform] = (counts[platform] ?? 0) + 1;
		}
	}
	return counts;
}

export const isStatus = (item: OutputItem) => item.json.type === 'platform_status';
export const postsOf = (items: OutputItem[]) => items.filter((i) => !isStatus(i) && i.json.type !== 'platform_page');

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
