import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { ErrorReporter, ExecutionLifecycleHooks, InstanceSettings, WorkflowExecute } from 'n8n-core';
import {
	LoggerProxy,
	NodeHelpers,
	Workflow,
	type IConnections,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type INodeTypes,
	type IPinData,
	type IRun,
	type IRunData,
	type ITriggerFunctions,
	type ITriggerResponse,
	type IVersionedNodeType,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
	type IWorkflowSettings,
	type IExecuteFunctions,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { PACKAGE_ROOT, TestCredentialsHelper, type CredentialsByType } from './credentials';

export const PACKAGE_NAME = 'n8n-nodes-social-aggregator';

/** The addresses n8n would serve; nothing listens there, they only have to be absolute. */
export const N8N_BASE_URL = 'http://127.0.0.1:5678';

// ---------------------------------------------------------------------------------------
// Engine set-up: stand-ins so n8n-core never writes under $HOME/.n8n nor prints node errors.
// ---------------------------------------------------------------------------------------

let engineReady = false;

/** What n8n-core handed its error reporter (Sentry in production), newest last. */
export const reportedErrors: unknown[] = [];

export interface LogLine {
	level: 'error' | 'warn' | 'info' | 'debug';
	message: string;
	metadata?: unknown;
}

/** Every line logged through n8n's logger (`this.logger` in nodes, LoggerProxy), newest last. */
export const logLines: LogLine[] = [];

/** Registers the engine's stand-ins in @n8n/di once per process (idempotent). */
export function setUpEngine(): void {
	if (engineReady) return;
	const folder = path.join(os.tmpdir(), 'n8n-harness-never-written');
	const settings = Object.create(InstanceSettings.prototype) as InstanceSettings;
	Object.assign(settings, {
		n8nFolder: folder,
		staticCacheDir: path.join(folder, 'cache'),
		customExtensionDir: path.join(folder, 'custom'),
		nodesDownloadDir: path.join(folder, 'nodes'),
		nodeDefinitionsDir: path.join(folder, 'node-definitions'),
		settingsFile: path.join(folder, 'config'),
		settings: { encryptionKey: 'harness-encryption-key' },
		instanceId: 'harness-instance',
		derivedInstanceId: 'harness-instance',
		hmacSignatureSecret: 'harness-hmac-secret',
		instanceType: 'main',
		instanceRole: 'leader',
		hostId: 'main-harness',
		isMultiMainEnabled: false,
		isMultiMainLicensed: false,
		canSeedDeploymentState: false,
		enforceSettingsFilePermissions: { isSet: false, enforce: false },
	});
	// Writing the settings file is the one thing the stand-in must never do.
	Object.defineProperty(settings, 'update', { value: () => undefined });
	Container.set(InstanceSettings, settings);

	// n8n reports every node error (Sentry, else a log line with the stack): tests read the
	// errors from the run data instead, so the reporter only keeps them.
	const reporter = Object.create(ErrorReporter.prototype) as ErrorReporter;
	Object.defineProperty(reporter, 'report', { value: (error: unknown) => reportedErrors.push(error) });
	Container.set(ErrorReporter, reporter);

	// n8n's logger writes to the console; here it records, so tests can read what nodes logged.
	const logger = Object.create(Logger.prototype) as Logger;
	for (const level of ['error', 'warn', 'info', 'debug'] as const) {
		Object.defineProperty(logger, level, {
			value: (message: string, metadata?: unknown) => logLines.push({ level, message, metadata }),
		});
	}
	Object.defineProperty(logger, 'scoped', { value: () => logger });
	Container.set(Logger, logger);
	LoggerProxy.init(logger);
	engineReady = true;
}

// ---------------------------------------------------------------------------------------
// Node types
// ---------------------------------------------------------------------------------------

export type AnyNodeType = INodeType | IVersionedNodeType;

/** n8n's Manual Trigger, reduced to what a run needs: one empty item on a manual run. */
export class ManualTrigger implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Runs the flow on clicking a button in n8n',
		defaults: { name: 'When clicking "Execute workflow"' },
		inputs: [],
		outputs: ['main'],
		properties: [],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return {
			manualTriggerFunction: async () => {
				this.emit([this.helpers.returnJsonArray([{}])]);
			},
		};
	}
}

/**
 * Test-only node `test.items`: outputs the items of its `items` parameter (a JSON array of
 * objects, as text or as an array), each paired with the first input item.
 */
export class TestItems implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Test Items',
		name: 'items',
		group: ['transform'],
		version: 1,
		description: 'Emits the given items (harness only)',
		defaults: { name: 'Items' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as unknown;
		const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as unknown;
		if (!Array.isArray(parsed)) throw new Error('test.items: "items" must be a JSON array');
		return [parsed.map((json: IDataObject) => ({ json, pairedItem: { item: 0 } }))];
	}
}

const BUILT_IN: Record<string, () => AnyNodeType> = {
	'n8n-nodes-base.manualTrigger': () => new ManualTrigger(),
	'test.items': () => new TestItems(),
};

const packageNodeCache = new Map<string, AnyNodeType>();

/**
 * One of our nodes, `<package>.<name>` or `CUSTOM.<name>`, loaded on first use from
 * `nodes/<Name>/<Name>.node.ts` (TypeScript source), so a workflow only needs the nodes it uses.
 */
function loadPackageNode(type: string): AnyNodeType | undefined {
	const match = /^(?:n8n-nodes-social-aggregator|CUSTOM)\.([A-Za-z0-9]+)$/.exec(type);
	if (!match) return undefined;
	const name = match[1];
	const cached = packageNodeCache.get(name);
	if (cached) return cached;
	const className = name.charAt(0).toUpperCase() + name.slice(1);
	const file = path.join(PACKAGE_ROOT, 'nodes', className, `${className}.node.ts`);
	if (!fs.existsSync(file)) {
		throw new Error(`Node type "${type}": ${path.relative(PACKAGE_ROOT, file)} does not exist (yet)`);
	}
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const exported = require(file) as Record<string, new () => AnyNodeType>;
	const Class = exported[className];
	if (typeof Class !== 'function') throw new Error(`${file} does not export class ${className}`);
	const instance = new Class();
	if (instance.description.name !== name) {
		throw new Error(`${file}: description.name is "${instance.description.name}", expected "${name}"`);
	}
	packageNodeCache.set(name, instance);
	return instance;
}

/** The node-types provider: extra (test) types, the built-ins, then our nodes, lazily. */
export class HarnessNodeTypes implements INodeTypes {
	private readonly extra: Record<string, AnyNodeType>;

	private readonly builtIns = new Map<string, AnyNodeType>();

	constructor(extra: Record<string, AnyNodeType> = {}) {
		this.extra = extra;
	}

	getByName(type: string): AnyNodeType {
		const found = this.extra[type] ?? this.builtIn(type) ?? loadPackageNode(type);
		if (!found) throw new Error(`Unknown node type "${type}"`);
		return found;
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}

	private builtIn(type: string): AnyNodeType | undefined {
		const factory = BUILT_IN[type];
		if (!factory) return undefined;
		let instance = this.builtIns.get(type);
		if (!instance) {
			instance = factory();
			this.builtIns.set(type, instance);
		}
		return instance;
	}
}

// ---------------------------------------------------------------------------------------
// Workflow and additionalData
// ---------------------------------------------------------------------------------------

/** A node of workflow JSON; `id`, `typeVersion` and `position` may be left out. */
export type WorkflowNodeJson = Omit<INode, 'id' | 'typeVersion' | 'position' | 'parameters'> &
	Partial<Pick<INode, 'id' | 'typeVersion' | 'position' | 'parameters'>>;

/** Workflow JSON as n8n exports it (extra fields are ignored). */
export interface WorkflowJson {
	name?: string;
	nodes: WorkflowNodeJson[];
	connections: IConnections;
	settings?: IWorkflowSettings;
	pinData?: IPinData;
	staticData?: IDataObject;
}

export interface BuildWorkflowOptions {
	/** Credentials by type name; nodes that declare one of these types and name none get it. */
	credentials?: CredentialsByType;
	/** Node types beyond the built-ins and our package, by full type name. */
	nodeTypes?: Record<string, AnyNodeType>;
	/** Initial static data of the workflow (n8n keeps it per node: `node:<name>`). */
	staticData?: IDataObject;
}

function latestVersion(nodeType: AnyNodeType): number {
	if ('nodeVersions' in nodeType) return nodeType.currentVersion;
	const { version } = nodeType.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** Builds an n8n `Workflow` from JSON, completing ids, versions, positions and credentials. */
export function buildWorkflow(json: WorkflowJson, options: BuildWorkflowOptions = {}): Workflow {
	setUpEngine();
	const nodeTypes = new HarnessNodeTypes(options.nodeTypes);
	const credentials = options.credentials ?? {};
	const nodes: INode[] = json.nodes.map((node, index) => {
		const nodeType = nodeTypes.getByName(node.type);
		const typeVersion = node.typeVersion ?? latestVersion(nodeType);
		const description = NodeHelpers.getVersionedNodeType(nodeType, typeVersion).description;
		const nodeCredentials = { ...(node.credentials ?? {}) };
		for (const { name } of description.credentials ?? []) {
			if (nodeCredentials[name] === undefined && credentials[name] !== undefined) {
				nodeCredentials[name] = { id: `${name}-id`, name: `${name} (harness)` };
			}
		}
		return {
			...node,
			id: node.id ?? `node-${index}`,
			typeVersion,
			position: node.position ?? [index * 200, 0],
			parameters: node.parameters ?? {},
			credentials: nodeCredentials,
		};
	});
	return new Workflow({
		id: 'harness-workflow',
		name: json.name ?? 'Harness workflow',
		nodes,
		connections: json.connections,
		active: false,
		nodeTypes,
		settings: { executionOrder: 'v1', ...(json.settings ?? {}) },
		staticData: options.staticData ?? json.staticData,
		pinData: json.pinData,
	});
}

export function workflowBase(workflow: Workflow): IWorkflowBase {
	const now = new Date();
	return {
		id: workflow.id,
		name: workflow.name ?? 'Harness workflow',
		active: false,
		isArchived: false,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		settings: workflow.settings,
		createdAt: now,
		updatedAt: now,
		activeVersionId: null,
	} as IWorkflowBase;
}

export interface AdditionalDataOptions {
	credentialsHelper: TestCredentialsHelper;
	hooks?: ExecutionLifecycleHooks;
	executionId?: string;
}

const notInHarness = (what: string) => async () => {
	throw new Error(`${what} is not available in the workflow harness`);
};

/** The `additionalData` n8n-core needs: credentials helper, hooks and absolute n8n URLs. */
export function createAdditionalData(options: AdditionalDataOptions): IWorkflowExecuteAdditionalData {
	const data: Partial<IWorkflowExecuteAdditionalData> = {
		credentialsHelper: options.credentialsHelper,
		hooks: options.hooks,
		executionId: options.executionId,
		executeWorkflow: notInHarness('executeWorkflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: notInHarness('startRunnerTask (Code node task runner)'),
		logAiEvent: () => undefined,
		currentNodeExecutionIndex: 0,
		variables: {},
		restApiUrl: `${N8N_BASE_URL}/rest`,
		instanceBaseUrl: `${N8N_BASE_URL}/`,
		formBaseUrl: `${N8N_BASE_URL}/form`,
		formTestBaseUrl: `${N8N_BASE_URL}/form-test`,
		formWaitingBaseUrl: `${N8N_BASE_URL}/form-waiting`,
		webhookBaseUrl: `${N8N_BASE_URL}/webhook`,
		webhookTestBaseUrl: `${N8N_BASE_URL}/webhook-test`,
		webhookWaitingBaseUrl: `${N8N_BASE_URL}/webhook-waiting`,
		mcpBaseUrl: `${N8N_BASE_URL}/mcp`,
		mcpTestBaseUrl: `${N8N_BASE_URL}/mcp-test`,
		userId: 'harness-user',
		setExecutionStatus: () => undefined,
		sendDataToUI: () => undefined,
	};
	return data as IWorkflowExecuteAdditionalData;
}

// ---------------------------------------------------------------------------------------
// runWorkflow
// ---------------------------------------------------------------------------------------

export interface RunWorkflowOptions extends BuildWorkflowOptions {
	/** Name of the node to start at; defaults to the first trigger node, else the first root node. */
	startNode?: string;
	/** Execution mode; `manual` (default) runs trigger nodes' manual functions. */
	mode?: WorkflowExecuteMode;
	/** Cancels the execution when it fires, as stopping it in n8n does (the nodes' cancel signal fires). */
	cancelSignal?: AbortSignal;
}

/** The error n8n recorded, reduced to what tests assert on; `raw` is the recorded object. */
export interface RecordedError {
	name: string;
	message: string;
	description: string | null | undefined;
	/** n8n keeps the HTTP status as a string, e.g. `'422'`. */
	httpCode: string | null | undefined;
	raw: IDataObject;
}

export interface OutputItem {
	json: IDataObject;
	pairedItem: INodeExecutionData['pairedItem'];
}

export interface WorkflowResult {
	run: IRun;
	runData: IRunData;
	/** The workflow's error (a node failed without continuing), or undefined. */
	executionError: RecordedError | undefined;
	/** Node names in the order they finished. */
	executedNodes: string[];
	/** main[0] of a node's run, as `{ json, pairedItem }` items. Throws if the node never ran. */
	items(nodeName: string, runIndex?: number): OutputItem[];
	/** All of output `outputIndex` (1 is the error output under `continueErrorOutput`). */
	output(nodeName: string, outputIndex?: number, runIndex?: number): INodeExecutionData[];
	/** The error n8n recorded for a node's run, or undefined. */
	error(nodeName: string, runIndex?: number): RecordedError | undefined;
	/** Static data after the run (to assert what a node kept). */
	staticData: IDataObject;
	/** Credential types the nodes asked for, in order. */
	credentialsRequested: string[];
	/** Lines logged through n8n's logger during the run. */
	logs: LogLine[];
	/** Run data, log lines and reported errors as one string: assert a secret appears nowhere. */
	dump(): string;
}

/** JSON of anything n8n keeps, errors included (own properties, message, stack), cycles cut. */
export function dumpJson(value: unknown): string {
	const seen = new WeakSet<object>();
	return JSON.stringify(value, (_key, current: unknown) => {
		if (typeof current !== 'object' || current === null) return current;
		if (seen.has(current)) return '[circular]';
		seen.add(current);
		if (current instanceof Error) {
			return { ...current, name: current.name, message: current.message, stack: current.stack };
		}
		return current;
	});
}

export function toRecordedError(error: unknown): RecordedError | undefined {
	if (error === undefined || error === null) return undefined;
	const raw = error as IDataObject;
	return {
		name: String(raw.name ?? ''),
		message: String(raw.message ?? ''),
		description: raw.description as string | null | undefined,
		httpCode: raw.httpCode as string | null | undefined,
		raw,
	};
}

function defaultStartNode(workflow: Workflow): INode {
	const nodes = Object.values(workflow.nodes).filter((node) => !node.disabled);
	const isTrigger = (node: INode) => {
		const type = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		return (
			type.description.group.includes('trigger') ||
			type.trigger !== undefined ||
			type.poll !== undefined ||
			type.webhook !== undefined
		);
	};
	const hasParent = (node: INode) => workflow.getParentNodes(node.name).length > 0;
	const start = nodes.find((node) => isTrigger(node) && !hasParent(node)) ?? nodes.find((node) => !hasParent(node));
	if (!start) throw new Error('The workflow has no start node');
	return start;
}

let executionCounter = 0;

/** Runs workflow JSON in-process through n8n-core's `WorkflowExecute`. */
export async function runWorkflow(json: WorkflowJson, options: RunWorkflowOptions = {}): Promise<WorkflowResult> {
	const workflow = buildWorkflow(json, options);
	const mode = options.mode ?? 'manual';
	const startNode = options.startNode ? workflow.getNode(options.startNode) : defaultStartNode(workflow);
	if (!startNode) throw new Error(`No node named "${options.startNode}" in the workflow`);

	const executionId = String(++executionCounter);
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowBase(workflow));
	const executedNodes: string[] = [];
	hooks.addHandler('nodeExecuteAfter', (nodeName) => {
		executedNodes.push(nodeName);
	});
	const credentialsHelper = new TestCredentialsHelper(options.credentials ?? {});
	const additionalData = createAdditionalData({ credentialsHelper, hooks, executionId });
	const firstLog = logLines.length;
	const firstReport = reportedErrors.length;

	const execution = new WorkflowExecute(additionalData, mode).run({
		workflow,
		startNode,
		pinData: json.pinData,
	});
	options.cancelSignal?.addEventListener('abort', () => execution.cancel(), { once: true });
	const run = await execution;
	const { runData } = run.data.resultData;
	const logs = logLines.slice(firstLog);
	const reports = reportedErrors.slice(firstReport);

	const taskData = (nodeName: string, runIndex: number) => {
		const task = runData[nodeName]?.[runIndex];
		if (!task) {
			const ran = Object.keys(runData).join(', ') || 'none';
			const why = run.data.resultData.error ? ` (workflow error: ${run.data.resultData.error.message})` : '';
			throw new Error(`Node "${nodeName}" has no run ${runIndex}; nodes that ran: ${ran}${why}`);
		}
		return task;
	};
	const output = (nodeName: string, outputIndex = 0, runIndex = 0): INodeExecutionData[] =>
		taskData(nodeName, runIndex).data?.main?.[outputIndex] ?? [];

	return {
		run,
		runData,
		executionError: toRecordedError(run.data.resultData.error),
		executedNodes,
		items: (nodeName, runIndex = 0) =>
			output(nodeName, 0, runIndex).map(({ json: itemJson, pairedItem }) => ({ json: itemJson, pairedItem })),
		output,
		error: (nodeName, runIndex = 0) => toRecordedError(taskData(nodeName, runIndex).error),
		staticData: workflow.staticData,
		credentialsRequested: credentialsHelper.requested,
		logs,
		dump: () => dumpJson({ data: run.data, logs, reports }),
	};
}
