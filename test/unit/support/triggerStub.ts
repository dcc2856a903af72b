import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

export const TRIGGER_NODE: INode = {
	id: 'trigger-1',
	name: 'Social Aggregator Trigger',
	type: 'n8n-nodes-social-aggregator.socialAggregatorTrigger',
	typeVersion: 2,
	position: [0, 0],
	parameters: {},
};

export interface StubSubscription extends IDataObject {
	id: number;
	url: string;
	subscribed_events: string[];
	status: string;
	consecutive_failures: number;
}

/**
 * The webhook part of the service in memory: enough of `/webhooks` for the
 * lifecycle, with every request recorded (method and path).
 */
export class WebhookApiStub {
	subscriptions: StubSubscription[] = [];

	requests: Array<{ method: string; path: string; body?: IDataObject }> = [];

	secrets = new Map<number, string>();

	private nextId = 1;

	/** Answers of the test endpoint, to make it fail. */
	testStatus = 202;

	/** false: no GET /webhooks/{id}, as in the live service's endpoint map (404 without an error object). */
	singleRead = true;

	add(url: string, events: string[], status = 'active'): StubSubscription {
		const subscription = { id: this.nextId++, url, subscribed_events: events, status, consecutive_failures: 0 };
		this.subscriptions.push(subscription);
		this.secrets.set(subscription.id, `whsec_stub_${subscription.id}_abcdef`);
		return subscription;
	}

	async handle(options: IHttpRequestOptions): Promise<{ statusCode: number; headers: IDataObject; body: unknown }> {
		const url = new URL(String(options.url));
		const path = url.pathname.replace(/^\/v1/, '');
		const method = String(options.method ?? 'GET');
		this.requests.push({ method, path, body: options.body as IDataObject | undefined });
		const notFound = { statusCode: 404, headers: {}, body: { error: { code: 'not_found', message: 'Not found' } } };
		let match = /^\/webhooks\/(\d+)(\/test)?$/.exec(path);
		if (path === '/webhooks' && method === 'GET') {
			const qs = (options.qs ?? {}) as IDataObject;
			const page = Number(qs.page ?? 1);
			const perPage = Number(qs.per_page ?? 20);
			const data = this.subscriptions.slice((page - 1) * perPage, page * perPage);
			const total = this.subscriptions.length;
			return {
				statusCode: 200,
				headers: {},
				body: { data, meta: { page, per_page: perPage, total_count: total, total_pages: Math.max(1, Math.ceil(total / perPage)) } },
			};
		}
		if (path === '/webhooks' && method === 'POST') {
			const body = options.body as { url: string; subscribed_events: string[] };
			const created = this.add(body.url, body.subscribed_events);
			return { statusCode: 201, headers: {}, body: { data: { ...created, secret: this.secrets.get(created.id) } } };
		}
		if (match) {
			const id = Number(match[1]);
			const found = this.subscriptions.find((s) => s.id === id);
			if (!found) return notFound;
			if (match[2] && method === 'POST') {
				return { statusCode: this.testStatus, headers: {}, body: this.testStatus < 300 ? { data: { delivery_id: 'dlv_test', event: 'post.created' } } : { error: { code: 'server_error', message: 'boom' } } };
			}
			if (method === 'GET' && !this.singleRead) return { statusCode: 404, headers: {}, body: { status: 404, error: 'Not Found' } };
			if (method === 'GET') return { statusCode: 200, headers: {}, body: { data: found } };
			if (method === 'DELETE') {
				this.subscriptions = this.subscriptions.filter((s) => s.id !== id);
				return { statusCode: 204, headers: {}, body: '' };
			}
		}
		match = null;
		return notFound;
	}
}

export interface HookStubOptions {
	api: WebhookApiStub;
	url?: string;
	mode?: string;
	activation?: string;
	parameters?: IDataObject;
	staticData?: IDataObject;
	workflowId?: string;
}

export interface LogLine {
	level: string;
	message: string;
	meta?: unknown;
}

/** An IHookFunctions / IWebhookFunctions stand-in over the API stub. */
export function hookContext(options: HookStubOptions) {
	const staticData = options.staticData ?? {};
	const logs: LogLine[] = [];
	const logger = Object.fromEntries(
		['debug', 'info', 'warn', 'error'].map((level) => [
			level,
			(message: string, meta?: unknown) => logs.push({ level, message, meta }),
		]),
	);
	const parameters: IDataObject = { events: ['post.created'], output: 'eachPost', options: {}, ...options.parameters };
	const context = {
		getNode: () => TRIGGER_NODE,
		getWorkflow: () => ({ id: options.workflowId ?? 'wf-1', name: 'Trigger test', active: true }),
		getMode: () => options.mode ?? 'trigger',
		getActivationMode: () => options.activation ?? 'activate',
		getNodeWebhookUrl: () => options.url ?? 'https://n8n.example.com/webhook/abc/webhook',
		getWorkflowStaticData: () => staticData,
		getNodeParameter: (name: string, fallback?: unknown) => parameterAt(parameters, name, fallback),
		getCredentials: async () => ({ apiKey: 'sag_live_stubkey123456', baseUrl: 'http://127.0.0.1:9/v1' }),
		logger,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, request: IHttpRequestOptions) => await options.api.handle(request),
			httpRequest: async (request: IHttpRequestOptions) => await options.api.handle(request),
		},
	};
	return { context, staticData, logs };
}

/** A parameter by name or dotted path (`options.signatureHeader`), as n8n reads it. */
export function parameterAt(parameters: IDataObject, name: string, fallback?: unknown): unknown {
	let value: unknown = parameters;
	for (const part of name.split('.')) {
		if (!value || typeof value !== 'object' || !(part in value)) return fallback;
		value = (value as IDataObject)[part];
	}
	return value;
}

export interface ExecuteStubOptions {
	parameters?: IDataObject;
	/** Parameters as evaluated (an expression's value); default as stored. */
	evaluated?: IDataObject;
	/** n8n's processed-data row of the node, shared across runs when given. */
	row?: string[];
	staticData?: IDataObject;
	workflowId?: string;
	api?: WebhookApiStub;
}

/** An IExecuteFunctions stand-in for the trigger's execute(): its items as input, n8n's processed-data row as a list. */
export function executeContext(input: IDataObject[], opts: ExecuteStubOptions = {}) {
	const row = opts.row ?? [];
	const calls: string[][] = [];
	const parameters: IDataObject = { events: ['post.created'], output: 'eachPost', options: {}, ...opts.parameters };
	const evaluated: IDataObject = { ...parameters, ...opts.evaluated };
	const base = hookContext({ api: opts.api ?? new WebhookApiStub(), parameters, staticData: opts.staticData, workflowId: opts.workflowId });
	const customData: Record<string, string> = {};
	const context = {
		...base.context,
		getMode: () => 'webhook',
		getInputData: () => input.map((json) => ({ json })),
		getNodeParameter: (name: string, _index: number, fallback: unknown, options?: { rawExpressions?: boolean }) =>
			parameterAt(options?.rawExpressions ? parameters : evaluated, name, fallback),
		customData: { set: (key: string, value: string) => (customData[key] = value) },
		helpers: {
			...base.context.helpers,
			checkProcessedAndRecord: async (keys: string[]) => {
				calls.push(keys);
				const fresh = keys.filter((k) => !row.includes(k));
				row.push(...fresh);
				return { new: fresh, processed: keys.filter((k) => !fresh.includes(k)) };
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, calls, row, logs: base.logs, customData, staticData: base.staticData };
}
