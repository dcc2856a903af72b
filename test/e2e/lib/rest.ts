import type { IRun } from 'n8n-workflow';

import { ExecutionResult } from './execution';
import { requireFromN8n, resolveRuntime, type N8nRuntime } from './runtime';
import { randomId, tail, waitFor } from './util';

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	finished: boolean;
	startedAt: string;
	stoppedAt?: string;
}

export interface WorkflowSummary {
	id: string;
	name: string;
	active: boolean;
	nodes?: Array<{ name: string; type: string }>;
	[key: string]: unknown;
}

/** Statuses of an execution that is not over yet. */
export const UNFINISHED = ['new', 'running', 'waiting', 'unknown'];

/**
 * n8n's REST API (the one the editor uses) as a signed-in user: for an n8n this library
 * started (`N8n` uses one) or any other on loopback, such as the one `npm start` runs.
 * Everything it throws passes through `redact`.
 */
export class N8nRest {
	private cookie?: string;
	private user?: Owner;
	private readonly browserId = randomId(24);

	constructor(
		readonly baseUrl: string,
		private readonly redact: (text: string) => string = (text) => text,
		private readonly runtime?: N8nRuntime,
	) {}

	get signedIn(): boolean {
		return this.cookie !== undefined;
	}

	/** The user this client signed in as. */
	get owner(): Owner {
		if (!this.user) throw new Error('not signed in: call setupOwner() or login() first');
		return this.user;
	}

	/** Creates the instance owner on a fresh instance, or logs in as it; later calls carry the cookie. */
	async setupOwner(owner: Owner): Promise<Owner> {
		const settings = await this.request<{ userManagement: { showSetupOnFirstLoad?: boolean } }>('GET', '/rest/settings', undefined, {
			auth: false,
		});
		if (settings.userManagement.showSetupOnFirstLoad !== false) {
			await this.request('POST', '/rest/owner/setup', owner, { auth: false });
		} else {
			await this.login(owner);
		}
		this.user = owner;
		return owner;
	}

	async login(user: Pick<Owner, 'email' | 'password'> & Partial<Owner>): Promise<void> {
		await this.request('POST', '/rest/login', { emailOrLdapLoginId: user.email, password: user.password }, { auth: false });
		this.user = { firstName: '', lastName: '', ...user };
	}

	/** Calls the REST API; answers the `data` of n8n's envelope. */
	async request<T = unknown>(method: string, urlPath: string, body?: unknown, { auth = true }: { auth?: boolean } = {}): Promise<T> {
		const headers: Record<string, string> = { 'browser-id': this.browserId, accept: 'application/json' };
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (auth) {
			if (!this.cookie) throw new Error(`REST ${method} ${urlPath}: not logged in`);
			headers.cookie = this.cookie;
		}
		const response = await fetch(`${this.baseUrl}${urlPath}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const authCookie = response.headers
			.getSetCookie()
			.map((cookie) => cookie.split(';')[0])
			.find((cookie) => cookie.startsWith('n8n-auth='));
		if (authCookie) this.cookie = authCookie;
		const text = await response.text();
		if (!response.ok) throw new Error(`REST ${method} ${urlPath} answered ${response.status}: ${this.redact(tail(text, 2000))}`);
		if (text === '') return undefined as T;
		const parsed = JSON.parse(text) as { data?: T };
		return (parsed !== null && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T;
	}

	/** n8n's catalogue of node or credential types, as the editor loads it. */
	async types<T = Array<{ name: string }>>(kind: 'nodes' | 'credentials'): Promise<T> {
		const response = await fetch(`${this.baseUrl}/types/${kind}.json`, {
			headers: this.cookie ? { cookie: this.cookie, 'browser-id': this.browserId } : {},
		});
		if (!response.ok) throw new Error(`/types/${kind}.json answered ${response.status}`);
		return (await response.json()) as T;
	}

	/** The workflows the user can see (without their nodes). */
	async workflows(): Promise<WorkflowSummary[]> {
		const list = await this.request<WorkflowSummary[] | { data: WorkflowSummary[] }>('GET', '/rest/workflows');
		return Array.isArray(list) ? list : list.data;
	}

	/** One workflow with its nodes, as stored. */
	async workflow(workflowId: string): Promise<WorkflowSummary & { nodes: Array<{ name: string; type: string }>; versionId: string }> {
		return await this.request('GET', `/rest/workflows/${workflowId}`);
	}

	/** Executions of a workflow, newest first. */
	async executions(workflowId: string): Promise<ExecutionSummary[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const page = await this.request<{ results: ExecutionSummary[] }>('GET', `/rest/executions?filter=${filter}&limit=100`);
		return page.results;
	}

	/** Waits until a workflow has at least `count` finished executions; returns them all. */
	async waitForExecutions(workflowId: string, count: number, { timeoutMs = 30_000 } = {}): Promise<ExecutionSummary[]> {
		return await waitFor(
			`${count} execution(s) of workflow ${workflowId}`,
			async () => {
				const executions = (await this.executions(workflowId)).filter((execution) => !UNFINISHED.includes(execution.status));
				return executions.length >= count ? executions : undefined;
			},
			{ timeoutMs, intervalMs: 200 },
		);
	}

	/** One stored execution with its run data. */
	async execution(executionId: string): Promise<ExecutionResult> {
		const raw = await this.request<{ data: string; startedAt: string; stoppedAt?: string; status: string; mode: string }>(
			'GET',
			`/rest/executions/${executionId}`,
		);
		const { parse } = requireFromN8n<{ parse: (text: string) => unknown }>(this.runtime ?? resolveRuntime(), 'flatted');
		const run = {
			data: parse(raw.data),
			startedAt: raw.startedAt,
			stoppedAt: raw.stoppedAt,
			status: raw.status,
			mode: raw.mode,
		} as unknown as IRun;
		return new ExecutionResult(run, 0, '');
	}

	/**
	 * Runs a stored workflow the way the editor's "Execute workflow" button does (mode
	 * `manual`), from `trigger` (default: its first trigger node), and waits for the run.
	 * A webhook trigger would wait for a test call: that is refused here.
	 */
	async runManually(workflowId: string, { trigger, timeoutMs = 120_000 }: { trigger?: string; timeoutMs?: number } = {}): Promise<ExecutionResult> {
		const started = Date.now();
		let start = trigger;
		if (start === undefined) {
			const stored = await this.workflow(workflowId);
			start = stored.nodes.find((node) => /trigger$/i.test(node.type))?.name;
			if (!start) throw new Error(`workflow ${workflowId} has no trigger node to start from`);
		}
		const answer = await this.request<{ executionId?: string; waitingForWebhook?: boolean }>('POST', `/rest/workflows/${workflowId}/run`, {
			triggerToStartFrom: { name: start },
		});
		if (!answer?.executionId) {
			throw new Error(`workflow ${workflowId} did not start from "${start}": ${JSON.stringify(answer)}`);
		}
		const executionId = answer.executionId;
		await waitFor(
			`manual execution ${executionId} of workflow ${workflowId} to finish`,
			async () => {
				const current = await this.request<{ status: string; finished?: boolean }>('GET', `/rest/executions/${executionId}`);
				return !UNFINISHED.includes(current.status);
			},
			{ timeoutMs, intervalMs: 100 },
		);
		const result = await this.execution(executionId);
		return new ExecutionResult(result.run, Date.now() - started, '');
	}
}
