import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

import type { IConnections, INodeCredentials, INodeParameters } from 'n8n-workflow';

import { PACKAGE_NAME, REPO_ROOT } from './runtime';
import { randomId } from './util';

export const CREDENTIAL_TYPE = 'socialAggregatorApi';

/** Full n8n type names of this package's nodes. */
export const NODE_TYPES = {
	action: `${PACKAGE_NAME}.socialAggregator`,
	data: `${PACKAGE_NAME}.socialAggregatorData`,
	trigger: `${PACKAGE_NAME}.socialAggregatorTrigger`,
	dataTrigger: `${PACKAGE_NAME}.socialAggregatorDataTrigger`,
	feedTrigger: `${PACKAGE_NAME}.socialAggregatorFeedTrigger`,
} as const;

export interface CredentialRef {
	id: string;
	name: string;
	type: string;
}

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: INodeParameters;
	credentials?: INodeCredentials;
	webhookId?: string;
	[key: string]: unknown;
}

export interface WorkflowSpec {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: IConnections;
	settings?: Record<string, unknown>;
	active?: boolean;
	[key: string]: unknown;
}

export interface NodeInput {
	/** a full type (`n8n-nodes-base.set`) or a node of this package by its short name (`socialAggregator`) */
	type: string;
	name?: string;
	parameters?: INodeParameters;
	typeVersion?: number;
	/** omitted: the instance's default credential is attached at import */
	credentials?: INodeCredentials;
	webhookId?: string;
	[key: string]: unknown;
}

/**
 * The one version a node of this package declares where it is not 1 (the Trigger's, above n8n's per-request
 * expression for webhook nodes at 1): what a workflow saved today holds.
 */
const SHIPPED_VERSION: Record<string, number> = { [NODE_TYPES.trigger]: 2 };

/** A node of this package (short type name) or any n8n node (full type name). */
export function node(type: string, parameters: INodeParameters = {}, extra: Partial<NodeInput> = {}): NodeInput {
	return { type, parameters, ...extra };
}

export const manualTrigger = (): NodeInput => ({
	type: 'n8n-nodes-base.manualTrigger',
	name: 'Start',
	typeVersion: 1,
	parameters: {},
});

/**
 * A straight-line workflow: `first` (a Manual Trigger unless told), then each step fed by
 * the one before. Node names default to "<Type> <n>"; webhook nodes get a webhookId.
 */
export function workflow(name: string, steps: NodeInput[], { first = manualTrigger() }: { first?: NodeInput } = {}): WorkflowSpec {
	const all = [first, ...steps];
	const nodes = all.map((input, index): WorkflowNode => {
		const { type, name: nodeName, parameters, typeVersion, credentials, webhookId, ...rest } = input;
		const fullType = type.includes('.') ? type : `${PACKAGE_NAME}.${type}`;
		const built: WorkflowNode = {
			...rest,
			id: randomUUID(),
			name: nodeName ?? `${fullType.split('.').pop()} ${index}`,
			type: fullType,
			typeVersion: typeVersion ?? SHIPPED_VERSION[fullType] ?? 1,
			position: [index * 220, 0],
			parameters: parameters ?? {},
		};
		if (credentials !== undefined) built.credentials = credentials;
		if (webhookId !== undefined) built.webhookId = webhookId;
		else if (/trigger$/i.test(fullType) && fullType.startsWith(PACKAGE_NAME)) built.webhookId = randomUUID();
		return built;
	});
	const connections: IConnections = {};
	for (let index = 0; index + 1 < nodes.length; index++) {
		connections[nodes[index].name] = { main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]] };
	}
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/** The trigger's post.created deliveries, each post pinned by the action node after it: those requests are the side effects counted. */
export function pinNewPosts(name: string, triggerOptions: INodeParameters = {}): WorkflowSpec {
	const pin = node(
		'socialAggregator',
		{
			resource: 'post',
			operation: 'pin',
			feedId: { __rl: true, mode: 'id', value: '={{ $json.feed.id }}' },
			postId: '={{ $json.id }}',
		},
		{ name: 'Pin' },
	);
	const options = { allowHttp: true, ...triggerOptions };
	const first = node('socialAggregatorTrigger', { events: ['post.created'], output: 'eachPost', options }, { name: 'On New Posts' });
	return workflow(name, [pin], { first });
}

/** Reads workflow JSON (relative paths from the repository root, e.g. `examples/x.json`). */
export function loadWorkflow(file: string): WorkflowSpec {
	return JSON.parse(readFileSync(path.resolve(REPO_ROOT, file), 'utf8')) as WorkflowSpec;
}

/**
 * What import:workflow gets: an id, inactive, and every node of this package bound to the
 * default credential when it has none or names one this instance does not have.
 */
export function prepareWorkflow(
	input: WorkflowSpec | string,
	defaultCredential: CredentialRef | undefined,
	knownCredentialIds: ReadonlySet<string> = new Set(defaultCredential ? [defaultCredential.id] : []),
): WorkflowSpec & { id: string } {
	const spec = structuredClone(typeof input === 'string' ? loadWorkflow(input) : input);
	const id = typeof spec.id === 'string' && spec.id !== '' ? spec.id : randomId();
	for (const workflowNode of spec.nodes) {
		if (!workflowNode.type.startsWith(`${PACKAGE_NAME}.`) || !defaultCredential) continue;
		const current = workflowNode.credentials?.[CREDENTIAL_TYPE];
		const hasExplicit = workflowNode.credentials !== undefined && current === undefined;
		if (hasExplicit) continue;
		if (current?.id && knownCredentialIds.has(current.id)) continue;
		workflowNode.credentials = {
			...workflowNode.credentials,
			[CREDENTIAL_TYPE]: { id: defaultCredential.id, name: defaultCredential.name },
		};
	}
	return { settings: { executionOrder: 'v1' }, ...spec, id, active: false };
}

/** The node of a workflow by name (throws with the names it has). */
export function findNode(spec: WorkflowSpec, name: string): WorkflowNode {
	const found = spec.nodes.find((candidate) => candidate.name === name);
	if (!found) throw new Error(`workflow "${spec.name}" has no node "${name}": ${spec.nodes.map((n) => n.name).join(', ')}`);
	return found;
}

/** The production webhook path of a webhook trigger node: `<webhookId>/<path>`. */
export function webhookPath(spec: WorkflowSpec, nodeName: string, pathSuffix = 'webhook'): string {
	const trigger = findNode(spec, nodeName);
	if (!trigger.webhookId) throw new Error(`node "${nodeName}" has no webhookId`);
	return `${trigger.webhookId}/${pathSuffix}`;
}
