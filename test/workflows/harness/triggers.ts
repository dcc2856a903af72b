import { HookContext, PollContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	IHttpRequestMethods,
	INode,
	INodeCredentials,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	Workflow,
	WebhookType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { TestCredentialsHelper, type CredentialsByType } from './credentials';
import { buildWorkflow, createAdditionalData, type AnyNodeType } from './runner';

/**
 * `trigger`: the workflow is active (production webhooks and polls).
 * `manual`: the editor's test run ("test" webhook URLs, a poll from "Fetch test event").
 */
export type TriggerMode = 'trigger' | 'manual';

export interface TriggerNodeJson {
	type: string;
	/** Defaults to `Trigger`. */
	name?: string;
	parameters?: INodeParameters;
	typeVersion?: number;
	/** n8n gives every webhook node a UUID; defaults to a fixed one. */
	webhookId?: string;
	credentials?: INodeCredentials;
}

export interface TriggerHarnessOptions {
	node: TriggerNodeJson;
	/** Credentials by type name, as for `runWorkflow`. */
	credentials?: CredentialsByType;
	mode?: TriggerMode;
	/** Defaults to `activate` in trigger mode and `manual` in manual mode. */
	activation?: WorkflowActivateMode;
	/** Node types beyond the built-ins and our package (test fixtures). */
	nodeTypes?: Record<string, AnyNodeType>;
	/** The node's static data before the first call, as n8n would have stored it. */
	staticData?: IDataObject;
	/**
	 * What `getNodeWebhookUrl(name)` answers, by webhook name, or one URL for `default`.
	 * Without it n8n computes its own URL under http://127.0.0.1:5678 (`/webhook/…`, or
	 * `/webhook-test/…` in manual mode).
	 */
	webhookUrl?: string | Record<string, string>;
}

/** A request as n8n hands it to `webhook()` (an express request after body parsing). */
export interface WebhookRequest {
	/** Defaults to the webhook description's method. */
	method?: string;
	/** Names are lower-cased, as Node does. */
	headers?: Record<string, string | string[]>;
	/** The parsed body; defaults to `JSON.parse(rawBody)` when that is JSON. */
	body?: unknown;
	/** The bytes as received; defaults to `JSON.stringify(body)`. n8n sets it for JSON bodies. */
	rawBody?: Buffer | string;
	query?: Record<string, string | string[]>;
	params?: Record<string, string>;
}

/** What the node did with the express response object. */
export interface RecordedResponse {
	statusCode: number;
	headers: Record<string, string | number | readonly string[]>;
	body: unknown;
	ended: boolean;
}

export interface WebhookCall {
	/** What `webhook()` returned. */
	data: IWebhookResponseData;
	/** `data.workflowData[0]`: the items that start the workflow ([] when none). */
	items: INodeExecutionData[];
	/** What the node wrote to the response itself (with `noWebhookResponse`). */
	res: RecordedResponse;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? {})) as T;

/** A stand-in for express's response: records status, headers and body. */
function recordingResponse(): { res: unknown; recorded: RecordedResponse } {
	const recorded: RecordedResponse = { statusCode: 200, headers: {}, body: undefined, ended: false };
	const res = {
		get statusCode() {
			return recorded.statusCode;
		},
		set statusCode(code: number) {
			recorded.statusCode = code;
		},
		get headersSent() {
			return recorded.ended;
		},
		status(code: number) {
			recorded.statusCode = code;
			return res;
		},
		sendStatus(code: number) {
			recorded.statusCode = code;
			recorded.ended = true;
			return res;
		},
		setHeader(name: string, value: string | number | readonly string[]) {
			recorded.headers[name.toLowerCase()] = value;
			return res;
		},
		set(name: string | Record<string, string>, value?: string) {
			if (typeof name === 'string') res.setHeader(name, value ?? '');
			else for (const [key, val] of Object.entries(name)) res.setHeader(key, val);
			return res;
		},
		header(name: string | Record<string, string>, value?: string) {
			return res.set(name, value);
		},
		getHeader(name: string) {
			return recorded.headers[name.toLowerCase()];
		},
		writeHead(code: number, headers?: Record<string, string>) {
			recorded.statusCode = code;
			if (headers) res.set(headers);
			return res;
		},
		json(body: unknown) {
			recorded.body = body;
			recorded.ended = true;
			return res;
		},
		send(body?: unknown) {
			recorded.body = body;
			recorded.ended = true;
			return res;
		},
		end(body?: unknown) {
			if (body !== undefined) recorded.body = body;
			recorded.ended = true;
			return res;
		},
	};
	return { res, recorded };
}

function buildRequest(request: WebhookRequest, method: string, path: string): IDataObject {
	const headers: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
	let { body } = request;
	let rawBody: Buffer | undefined;
	if (request.rawBody !== undefined) {
		rawBody = Buffer.isBuffer(request.rawBody) ? request.rawBody : Buffer.from(request.rawBody);
		if (body === undefined) {
			try {
				body = JSON.parse(rawBody.toString('utf8')) as unknown;
			} catch {
				body = {};
			}
		}
	} else if (body !== undefined) {
		rawBody = Buffer.from(JSON.stringify(body));
	}
	if (rawBody !== undefined) {
		headers['content-type'] ??= 'application/json';
		headers['content-length'] ??= String(rawBody.length);
	}
	const header = (name: string) => headers[name.toLowerCase()];
	return {
		method: (request.method ?? method).toUpperCase(),
		url: `/${path}`,
		path: `/${path}`,
		headers,
		body: (body ?? {}) as IDataObject,
		rawBody,
		query: request.query ?? {},
		params: request.params ?? {},
		get: header,
		header,
	} as unknown as IDataObject;
}

/**
 * One trigger node in a one-node workflow, driven the way n8n drives it: `poll()` through a
 * real `PollContext`, `webhookMethods` through a real `HookContext`, `webhook()` through a
 * real `WebhookContext`. Static data lives between calls as n8n stores it (JSON): every
 * webhook call and every poll in trigger mode saves it; a manual poll does not, because n8n
 * never saves static data after a manual execution.
 */
export class TriggerHarness {
	readonly mode: TriggerMode;

	readonly nodeName: string;

	/** Credential types the node asked for, in order. */
	readonly credentialsRequested: string[] = [];

	private stored: IDataObject;

	private parameters: INodeParameters;

	constructor(private readonly options: TriggerHarnessOptions) {
		this.mode = options.mode ?? 'trigger';
		this.nodeName = options.node.name ?? 'Trigger';
		this.parameters = { ...(options.node.parameters ?? {}) };
		this.stored = options.staticData ? { [`node:${this.nodeName}`]: clone(options.staticData) } : {};
	}

	/** The node's static data as n8n has it stored now (a copy). */
	get staticData(): IDataObject {
		return clone((this.stored[`node:${this.nodeName}`] as IDataObject | undefined) ?? {});
	}

	/** Changes node parameters for the following calls (merged over the current ones). */
	setParameters(parameters: INodeParameters): void {
		this.parameters = { ...this.parameters, ...parameters };
	}

	/** Runs `poll()`; returns what it emitted (`null`: nothing new). */
	async poll(): Promise<INodeExecutionData[][] | null> {
		const { workflow, node, nodeType, additionalData } = this.prepare();
		if (!nodeType.poll) throw new Error(`${node.type} has no poll()`);
		const context = new PollContext(workflow, node, additionalData, this.mode, this.activation);
		const data = await nodeType.poll.call(context);
		if (this.mode === 'trigger') this.save(workflow);
		return data;
	}

	checkExists(name: WebhookType = 'default'): Promise<boolean> {
		return this.runHook('checkExists', name);
	}

	create(name: WebhookType = 'default'): Promise<boolean> {
		return this.runHook('create', name);
	}

	delete(name: WebhookType = 'default'): Promise<boolean> {
		return this.runHook('delete', name);
	}

	/** What n8n does on activation: `checkExists`, then `create` if that said false. Returns whether it created. */
	async activate(name: WebhookType = 'default'): Promise<boolean> {
		if (await this.checkExists(name)) return false;
		await this.create(name);
		return true;
	}

	/** Runs `webhook()` for one request. */
	async webhook(request: WebhookRequest, name: WebhookType = 'default'): Promise<WebhookCall> {
		const { workflow, node, nodeType, additionalData } = this.prepare();
		if (!nodeType.webhook) throw new Error(`${node.type} has no webhook()`);
		const webhookData = this.webhookData(workflow, node, nodeType, additionalData, name);
		const { res, recorded } = recordingResponse();
		additionalData.httpRequest = buildRequest(request, webhookData.httpMethod, webhookData.path) as never;
		additionalData.httpResponse = res as never;
		const mode: WorkflowExecuteMode = this.mode === 'manual' ? 'manual' : 'webhook';
		const context = new WebhookContext(workflow, node, additionalData, mode, webhookData, [], null);
		this.overrideWebhookUrl(context);
		const data = await nodeType.webhook.call(context);
		this.save(workflow);
		return { data, items: data.workflowData?.[0] ?? [], res: recorded };
	}

	private get activation(): WorkflowActivateMode {
		return this.options.activation ?? (this.mode === 'manual' ? 'manual' : 'activate');
	}

	private async runHook(method: 'checkExists' | 'create' | 'delete', name: WebhookType): Promise<boolean> {
		const { workflow, node, nodeType, additionalData } = this.prepare();
		const hook = nodeType.webhookMethods?.[name]?.[method];
		if (!hook) throw new Error(`${node.type} has no webhookMethods.${name}.${method}`);
		const webhookData = this.webhookData(workflow, node, nodeType, additionalData, name);
		const context = new HookContext(workflow, node, additionalData, this.mode, this.activation, webhookData);
		this.overrideWebhookUrl(context);
		const result = await hook.call(context);
		this.save(workflow);
		return result;
	}

	private prepare() {
		const { node: nodeJson, credentials, nodeTypes } = this.options;
		const workflow = buildWorkflow(
			{
				nodes: [
					{
						...nodeJson,
						name: this.nodeName,
						parameters: this.parameters,
						webhookId: nodeJson.webhookId ?? '5b8e6a52-1c7f-4d3e-9a0b-0000000000a1',
					},
				],
				connections: {},
			},
			{ credentials, nodeTypes, staticData: clone(this.stored) },
		);
		const node = workflow.getNode(this.nodeName) as INode;
		const nodeType: INodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const credentialsHelper = new TestCredentialsHelper(credentials ?? {}, this.credentialsRequested);
		const additionalData = createAdditionalData({ credentialsHelper });
		return { workflow, node, nodeType, additionalData };
	}

	private save(workflow: Workflow): void {
		const data = clone(workflow.staticData);
		delete data.__dataChanged;
		this.stored = data;
	}

	private webhookData(
		workflow: Workflow,
		node: INode,
		nodeType: INodeType,
		additionalData: IWorkflowExecuteAdditionalData,
		name: WebhookType,
	): IWebhookData {
		const description = nodeType.description.webhooks?.find((webhook) => webhook.name === name);
		if (!description) throw new Error(`${node.type} declares no webhook named "${name}"`);
		const resolve = (value: unknown) =>
			String(workflow.expression.getSimpleParameterValue(node, value as string, this.mode, {}, undefined, ''));
		return {
			httpMethod: resolve(description.httpMethod) as IHttpRequestMethods,
			node: node.name,
			path: resolve(description.path),
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: node.webhookId,
			isTest: this.mode === 'manual',
		};
	}

	private overrideWebhookUrl(context: HookContext | WebhookContext): void {
		const { webhookUrl } = this.options;
		if (webhookUrl === undefined) return;
		const urls = typeof webhookUrl === 'string' ? { default: webhookUrl } : webhookUrl;
		const own = context.getNodeWebhookUrl.bind(context);
		Object.defineProperty(context, 'getNodeWebhookUrl', {
			value: (name: string) => urls[name] ?? own(name as 'default'),
		});
	}
}

/** A trigger node driven like n8n drives it; see `TriggerHarness`. */
export function triggerHarness(options: TriggerHarnessOptions): TriggerHarness {
	return new TriggerHarness(options);
}
