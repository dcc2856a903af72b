import type { FakeService, RequestLogEntry } from '../../fake-service';
import type { OutputItem, WorkflowJson } from '../harness';
import { oneNodeWorkflow, runOneNode, type NodeRun, type NodeUnderTest, type RunOptions } from '../support';

export const NODE_TYPE = 'n8n-nodes-social-aggregator.socialAggregatorData';
export const NODE = 'Social Aggregator Data';

const node: NodeUnderTest = { name: NODE, type: NODE_TYPE };

/** Manual Trigger → Input (the given items) → Social Aggregator Data with `parameters` (→ the `then` node). */
export function workflow(parameters: Record<string, unknown>, options: RunOptions = {}): WorkflowJson {
	return oneNodeWorkflow(node, parameters, options);
}

export interface DataNodeRun extends NodeRun {
	/** The Data API searches among the requests. */
	searches: RequestLogEntry[];
}

export async function runNode(
	fake: FakeService,
	parameters: Record<string, unknown>,
	options: RunOptions = {},
): Promise<DataNodeRun> {
	const run = await runOneNode(fake, node, parameters, options);
	return { ...run, searches: run.requests.filter((r) => r.path === '/data/posts') };
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
