import { DirectoryLoader } from 'n8n-core';

import type { FakeService, RequestLogEntry } from '../../fake-service';
import { SocialAggregator } from '../../../nodes/SocialAggregator/SocialAggregator.node';
import type { WorkflowJson } from '../harness';
import { oneNodeWorkflow, runOneNode, type NodeRun, type NodeUnderTest, type RunOptions } from '../support';

export const NODE_TYPE = 'n8n-nodes-social-aggregator.socialAggregator';
export const NODE = 'Social Aggregator';

/**
 * The node as n8n loads it: n8n adds the "Request Options" collection (batching,
 * timeout, proxy) to every declarative node when it reads the package.
 */
function loadedNode(): SocialAggregator {
	const node = new SocialAggregator();
	DirectoryLoader.applyDeclarativeNodeOptionParameters(node);
	return node;
}

const node: NodeUnderTest = { name: NODE, type: NODE_TYPE, nodeTypes: { [NODE_TYPE]: loadedNode() } };

/** The workflow time zone is UTC unless a test chooses another. */
const inUtc = (options: RunOptions): RunOptions => ({ ...options, timezone: options.timezone ?? 'UTC' });

/** Manual Trigger → Input (the given items) → Social Aggregator with `parameters`. */
export function workflow(parameters: Record<string, unknown>, options: RunOptions = {}): WorkflowJson {
	return oneNodeWorkflow(node, parameters, inUtc(options));
}

/** Runs the node against the fake and returns its output, its error and the requests it sent. */
export async function runNode(
	fake: FakeService,
	parameters: Record<string, unknown>,
	options: RunOptions = {},
): Promise<NodeRun> {
	return await runOneNode(fake, node, parameters, inUtc(options));
}

/** A resource locator value, as the editor stores it. */
export function feed(id: number | string, mode: 'list' | 'id' = 'list') {
	return { __rl: true, mode, value: String(id) };
}

/** The parts of a request log entry that tests compare. */
export function sent(entry: RequestLogEntry) {
	return { method: entry.method, path: entry.path, query: entry.query, body: entry.body };
}

/**
 * Per page of a paged list, the statuses its requests got, in the order they were
 * answered (0: the connection was dropped). Pages after the first are asked several
 * at once, so the log interleaves them; each page's own requests stay in order.
 */
export function statusesByPage(requests: RequestLogEntry[]): Map<number, number[]> {
	const byPage = new Map<number, number[]>();
	for (const request of requests) {
		const page = Number(request.query.page);
		byPage.set(page, [...(byPage.get(page) ?? []), request.status]);
	}
	return new Map([...byPage.entries()].sort(([a], [b]) => a - b));
}
