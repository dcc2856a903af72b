import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { IRun } from 'n8n-workflow';

import { installCommunityPackage, packPackage, type PackedPackage } from './pack';
import type { LocalRegistry } from './registry';
import { PACKAGE_NAME, resolveRuntime, type N8nRuntime } from './runtime';
import { BatchRun, ExecutionResult, parseRunOutput, type BatchEntry } from './execution';
import { N8nRest, type ExecutionSummary, type Owner } from './rest';
import { loadWorkflow, prepareWorkflow, type CredentialRef, type WorkflowSpec } from './workflow';
import {
	freePort,
	killGroup,
	LOOPBACK,
	randomId,
	Redactor,
	registerCleanup,
	runCommand,
	tail,
	trackGroup,
	untrackGroup,
	waitFor,
	type CommandResult,
} from './util';

export interface N8nOptions {
	runtime?: N8nRuntime;
	/** the packed package to install; `false` for a bare n8n. Default: packPackage(). */
	package?: PackedPackage | false;
	/** extra environment for every n8n process (wins over the defaults) */
	env?: Record<string, string>;
	/** n8n's log level for `n8n start` (the log goes to `<userFolder>/n8n-start.log`); default debug */
	logLevel?: 'error' | 'warn' | 'info' | 'debug';
	/** keep the user folder after dispose() (also E2E_KEEP=1) */
	keep?: boolean;
	/** prefix of the temp folder name */
	label?: string;
	/**
	 * a local registry for n8n's community-package installer (Settings → Community Nodes): n8n
	 * installs, updates and uninstalls from it (pair with `package: false`)
	 */
	registry?: LocalRegistry;
	/**
	 * start from a copy of a database n8n has already migrated (default true): a fresh n8n's first
	 * process then skips its migrations, about 4 s of CPU each time
	 */
	migratedDatabase?: boolean;
}

/** A community package as n8n lists it (Settings → Community Nodes; REST /rest/community-packages). */
export interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	updateAvailable?: string;
	installedNodes: Array<{ name: string; type: string; latestVersion?: number }>;
}

export interface CredentialInput {
	name?: string;
	type?: string;
	/** plain values: n8n encrypts them on import */
	data: Record<string, unknown>;
	id?: string;
}

/** A credential as import:credentials reads it. */
interface CredentialData {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/** What is kept for the server's start (see N8n.pending). */
interface Pending {
	credentials: Array<{ credential: CredentialData; ref: CredentialRef }>;
	workflows: Array<WorkflowSpec & { id: string }>;
	publish: string[];
}

export type { ExecutionSummary, Owner } from './rest';

export const DEFAULT_OWNER: Owner = {
	email: 'owner@e2e.test',
	password: 'E2e-Owner-Passw0rd',
	firstName: 'E2E',
	lastName: 'Owner',
};

export interface StartOptions {
	timeoutMs?: number;
	/** the HTTP port (default: a free one) */
	port?: number;
	/** create the owner and log in (default true): REST calls and the editor need it */
	setupOwner?: boolean;
	/** production webhook paths (`<webhookId>/<path>` or a node's path) to wait for */
	webhooks?: Array<string | { path: string; method: string }>;
	/**
	 * ids of published workflows whose triggers must be active (their `create()` done, e.g.
	 * the service subscription registered) before start() returns; implies the owner login
	 */
	published?: string[];
}

/** The environment variables n8n reads that must never leak in from the caller. */
const OWN_ENV_PREFIXES = ['N8N_', 'DB_', 'EXECUTIONS_', 'QUEUE_', 'WEBHOOK_URL', 'GENERIC_TIMEZONE', 'NODE_OPTIONS'];

/**
 * One real n8n (the provisioned version, on Node 24) with a fresh user folder under the temp
 * dir and the packed package installed as a community package. CLI commands run against
 * its database; `start()` runs the server on 127.0.0.1.
 */
export class N8n {
	readonly runtime: N8nRuntime;
	readonly userFolder: string;
	readonly redactor = new Redactor();
	/** the credential workflows get by default (the first one imported) */
	defaultCredential?: CredentialRef;
	port?: number;
	private readonly encryptionKey = randomBytes(24).toString('hex');
	private readonly extraEnv: Record<string, string>;
	private readonly logLevel: string;
	private readonly keep: boolean;
	private server?: ChildProcess;
	private serverExit?: Promise<void>;
	private serverLog = '';
	private serverLogFile?: WriteStream;
	private client?: N8nRest;
	private readonly credentialIds = new Set<string>();
	/** The ids credentials had here, and those n8n gave them when they were created through its REST API. */
	private readonly credentialIdByRest = new Map<string, string>();
	/**
	 * Credentials and workflows imported, and workflows published, while the server is stopped, kept until it starts
	 * (then sent through its REST API) or until a command needs them in the database (then imported by one CLI process
	 * each): each n8n CLI process costs about 7 s of CPU, a REST call a few milliseconds. n8n 1.x imports at once (its
	 * REST API differs).
	 */
	private readonly pending: Pending = { credentials: [], workflows: [], publish: [] };
	private forgetCleanup?: () => void;
	readonly registry?: LocalRegistry;
	/**
	 * Set when this object drives a server another process started and keeps (a lane's shared n8n, `N8n.attach`): where
	 * its log stood when this file came, and the workflows this file created, deleted when it leaves.
	 */
	private attached?: { logFrom: number; workflows: string[] };

	private constructor(runtime: N8nRuntime, userFolder: string, options: N8nOptions) {
		this.runtime = runtime;
		this.userFolder = userFolder;
		this.registry = options.registry;
		this.extraEnv = options.env ?? {};
		this.logLevel = options.logLevel ?? 'debug';
		this.keep = options.keep ?? process.env.E2E_KEEP === '1';
		this.redactor.add(this.encryptionKey);
		if (!this.keep) this.forgetCleanup = registerCleanup(() => rmSync(userFolder, { recursive: true, force: true }));
	}

	static async create(options: N8nOptions = {}): Promise<N8n> {
		const runtime = options.runtime ?? resolveRuntime();
		const userFolder = mkdtempSync(path.join(os.tmpdir(), `${options.label ?? 'n8n-e2e'}-`));
		mkdirSync(path.join(userFolder, '.n8n'), { recursive: true });
		if (options.migratedDatabase !== false) {
			const template = await migratedDatabase(runtime);
			for (const file of DATABASE_FILES) {
				if (existsSync(path.join(template, file))) copyFileSync(path.join(template, file), path.join(userFolder, '.n8n', file));
			}
		}
		const n8n = new N8n(runtime, userFolder, options);
		if (options.package !== false) {
			await installCommunityPackage(userFolder, options.package ?? (await packPackage()));
		}
		return n8n;
	}

	/**
	 * Drives a running server that another process started and keeps (`lib/lane.ts`): signed in as its owner, with the
	 * REST API only (no CLI, no restart); `dispose()` unpublishes and deletes the workflows and credentials this object
	 * created, and leaves the server running.
	 */
	static async attach(runtime: N8nRuntime, server: { port: number; userFolder: string }): Promise<N8n> {
		const n8n = new N8n(runtime, server.userFolder, { keep: true });
		n8n.attached = { logFrom: statSync(n8n.logFile).size, workflows: [] };
		n8n.port = server.port;
		n8n.client = new N8nRest(n8n.baseUrl, (text) => n8n.redact(text), runtime);
		await n8n.setupOwner();
		return n8n;
	}

	/** Whether this object drives a server another process keeps (see `attach`). */
	get shared(): boolean {
		return this.attached !== undefined;
	}

	private get logFile(): string {
		return path.join(this.userFolder, 'n8n-start.log');
	}

	get baseUrl(): string {
		if (this.port === undefined) throw new Error('n8n is not started');
		return `http://${LOOPBACK}:${this.port}`;
	}

	/** The pid of `n8n start` (the leader of its process group), while it runs. */
	get pid(): number | undefined {
		return this.running ? this.server?.pid : undefined;
	}

	get running(): boolean {
		return this.attached !== undefined || (this.server !== undefined && this.server.exitCode === null && this.server.signalCode === null);
	}

	private refuseOnShared(what: string): void {
		if (this.attached) {
			throw new Error(`${what} on a lane's shared n8n: a file that restarts n8n or runs its CLI passes ownServer: true to e2eSuite`);
		}
	}

	/** Whether this is an n8n 1.x (some commands and endpoints differ). */
	get isV1(): boolean {
		return this.runtime.n8nVersion.startsWith('1.');
	}

	/** The environment of every n8n process; `port`/`brokerPort` for this one process. */
	env(brokerPort: number, port = this.port ?? 5678): NodeJS.ProcessEnv {
		const inherited = Object.fromEntries(
			Object.entries(process.env).filter(([key]) => !OWN_ENV_PREFIXES.some((prefix) => key.startsWith(prefix))),
		);
		return {
			...inherited,
			PATH: `${path.join(this.runtime.nodeHome, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
			N8N_USER_FOLDER: this.userFolder,
			N8N_ENCRYPTION_KEY: this.encryptionKey,
			DB_TYPE: 'sqlite',
			N8N_LISTEN_ADDRESS: LOOPBACK,
			N8N_HOST: LOOPBACK,
			N8N_PROTOCOL: 'http',
			N8N_PORT: String(port),
			N8N_WEBHOOK_URL: `http://${LOOPBACK}:${port}/`,
			N8N_EDITOR_BASE_URL: `http://${LOOPBACK}:${port}/`,
			N8N_SECURE_COOKIE: 'false',
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: LOOPBACK,
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_REINSTALL_MISSING_PACKAGES: 'false',
			N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
			EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
			GENERIC_TIMEZONE: 'UTC',
			// Node 24 keeps the code it compiled for n8n's modules here: every later n8n process loads faster
			NODE_COMPILE_CACHE: path.join(this.runtime.n8nHome, '.e2e-compile-cache'),
			...(this.registry ? registryEnv(this.registry.url) : {}),
			...this.extraEnv,
		};
	}

	/**
	 * Runs `n8n <args>` to completion against this user folder (its own broker port), after importing and publishing
	 * the workflows kept for the server's start: the command sees the database as the calls before it left it.
	 */
	async cli(args: string[], options: { timeoutMs?: number; logLevel?: string } = {}): Promise<CommandResult> {
		await this.applyPendingByCli();
		return await this.rawCli(args, options);
	}

	private async rawCli(args: string[], { timeoutMs = 120_000, logLevel = 'info' } = {}): Promise<CommandResult> {
		this.refuseOnShared(`n8n ${args[0]}`);
		const env = { ...this.env(await freePort()), N8N_LOG_LEVEL: logLevel };
		return await runCommand(this.runtime.n8nBin, args, { env, cwd: this.userFolder, timeoutMs });
	}

	private async cliOk(args: string[], expect: RegExp, timeoutMs?: number): Promise<CommandResult> {
		const result = await this.rawCli(args, { timeoutMs });
		const output = result.stdout + result.stderr;
		if (result.code !== 0 || !expect.test(output)) {
			throw new Error(`n8n ${args.join(' ')} failed (exit ${result.code}):\n${this.redact(tail(output))}`);
		}
		return result;
	}

	/**
	 * Imports one credential (plain data is encrypted by n8n). The first becomes the default. On n8n 2.x it is created
	 * through the REST API, as the editor's Save does (while the server is stopped, once it starts): n8n then chooses its
	 * id, which the returned reference and every workflow naming the id it had here take on.
	 */
	async importCredential(input: CredentialInput): Promise<CredentialRef> {
		const credential = {
			id: input.id ?? randomId(),
			name: input.name ?? 'Social Aggregator account',
			type: input.type ?? 'socialAggregatorApi',
			data: input.data,
		};
		for (const value of Object.values(input.data)) if (typeof value === 'string') this.redactor.add(value);
		const ref: CredentialRef = { id: credential.id, name: credential.name, type: credential.type };
		if (this.isV1) await this.importCredentialsByCli([credential]);
		else if (this.running) await this.createCredentialByRest(credential, ref);
		else this.pending.credentials.push({ credential, ref });
		this.credentialIds.add(ref.id);
		this.defaultCredential ??= ref;
		return ref;
	}

	private async importCredentialsByCli(credentials: CredentialData[]): Promise<void> {
		const file = this.writeTemp('credentials', credentials);
		try {
			const count = credentials.length === 1 ? '1 credential' : `${credentials.length} credentials`;
			await this.cliOk(['import:credentials', `--input=${file}`], new RegExp(`Successfully imported ${count}`));
		} finally {
			rmSync(file, { force: true });
		}
	}

	/** What the editor's Save sends for a new credential; `ref` takes on the id n8n gave it. */
	private async createCredentialByRest(credential: CredentialData, ref: CredentialRef): Promise<void> {
		const created = await this.rest<{ id: string }>('POST', '/rest/credentials', { name: credential.name, type: credential.type, data: credential.data });
		this.credentialIdByRest.set(credential.id, created.id);
		ref.id = created.id;
		this.credentialIds.add(created.id);
	}

	/** A workflow with every credential id created through the REST API written as n8n gave it. */
	private withCredentialIdsOfN8n<W extends WorkflowSpec>(workflow: W): W {
		for (const workflowNode of workflow.nodes) {
			for (const credential of Object.values(workflowNode.credentials ?? {})) {
				const given = typeof credential.id !== 'string' ? undefined : this.credentialIdByRest.get(credential.id);
				if (given !== undefined) credential.id = given;
			}
		}
		return workflow;
	}

	/**
	 * Imports a workflow (object, or a path to workflow JSON such as examples/*.json) and returns
	 * its id. Nodes of this package without credentials get the default credential.
	 */
	async importWorkflow(workflow: WorkflowSpec | string): Promise<string> {
		const [id] = await this.importWorkflows([workflow]);
		return id;
	}

	/**
	 * Imports workflows: through the REST API while the server runs; else kept until it starts (or until a command
	 * needs them), on n8n 1.x with one `n8n import:workflow`.
	 */
	async importWorkflows(workflows: Array<WorkflowSpec | string>): Promise<string[]> {
		const prepared = workflows.map((workflow) => prepareWorkflow(workflow, this.defaultCredential, this.credentialIds));
		if (this.running) await this.createByRest(prepared);
		else if (this.isV1) await this.importByCli(prepared);
		else this.pending.workflows.push(...prepared);
		return prepared.map((workflow) => workflow.id);
	}

	private async importByCli(prepared: Array<WorkflowSpec & { id: string }>): Promise<void> {
		const file = this.writeTemp('workflows', prepared.map((workflow) => this.withCredentialIdsOfN8n(workflow)));
		try {
			await this.cliOk(['import:workflow', `--input=${file}`], new RegExp(`Successfully imported ${prepared.length} workflow`));
		} finally {
			rmSync(file, { force: true });
		}
	}

	/** What the editor's Save sends for a new workflow: the fields n8n writes, the id included. */
	private async createByRest(prepared: Array<WorkflowSpec & { id: string }>): Promise<void> {
		for (const workflow of prepared.map((each) => this.withCredentialIdsOfN8n(each))) {
			const body = Object.fromEntries(
				['id', 'name', 'nodes', 'connections', 'settings', 'staticData', 'meta', 'pinData'].flatMap((field) =>
					(workflow as Record<string, unknown>)[field] === undefined ? [] : [[field, (workflow as Record<string, unknown>)[field]]],
				),
			);
			await this.rest('POST', '/rest/workflows', body);
			this.attached?.workflows.push(workflow.id);
		}
	}

	/** The credentials and workflows kept for the server's start, imported and published by CLI processes (a command needs them). */
	private async applyPendingByCli(): Promise<void> {
		const { credentials, workflows, publish } = this.takePending();
		if (credentials.length > 0) await this.importCredentialsByCli(credentials.map(({ credential }) => credential));
		if (workflows.length > 0) await this.importByCli(workflows);
		for (const workflowId of publish) await this.cliOk(['publish:workflow', `--id=${workflowId}`], /Publishing workflow/);
	}

	/** The credentials and workflows kept for the server's start, created and published through its REST API. */
	private async applyPendingByRest(): Promise<void> {
		const { credentials, workflows, publish } = this.takePending();
		for (const { credential, ref } of credentials) await this.createCredentialByRest(credential, ref);
		if (workflows.length > 0) await this.createByRest(workflows);
		for (const workflowId of publish) await this.publish(workflowId);
	}

	private takePending(): Pending {
		return { credentials: this.pending.credentials.splice(0), workflows: this.pending.workflows.splice(0), publish: this.pending.publish.splice(0) };
	}

	/** `n8n execute --id --rawOutput` in its own process; the run comes back parsed. */
	async execute(workflowId: string, { timeoutMs = 180_000 } = {}): Promise<ExecutionResult> {
		const result = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], { timeoutMs });
		const run: IRun | undefined = parseRunOutput(result.stdout);
		if (run === undefined) {
			throw new Error(
				`n8n execute --id=${workflowId} printed no run (exit ${result.code}):\n${this.redact(tail(result.stdout + result.stderr))}`,
			);
		}
		return new ExecutionResult(run, result.ms, this.redact(result.stdout + result.stderr));
	}

	/** Imports and executes a workflow; the usual one-liner of a workflow test. */
	async run(workflow: WorkflowSpec | string, options?: { timeoutMs?: number }): Promise<ExecutionResult> {
		return await this.execute(await this.importWorkflow(workflow), options);
	}

	/**
	 * Publishes (activates) a workflow through the REST API while the server runs; while it is stopped, once it starts
	 * (or with `n8n publish:workflow` when a command needs it first; on n8n 1.x, `update:workflow --active` at once).
	 */
	async publish(workflowId: string): Promise<void> {
		if (!this.running && this.isV1) {
			// n8n 1.x activates with update:workflow (publish:workflow came with 2.0)
			await this.cliOk(['update:workflow', `--id=${workflowId}`, '--active=true'], /Activating workflow/i);
			return;
		}
		if (!this.running) {
			this.pending.publish.push(workflowId);
			return;
		}
		const workflow = await this.rest<{ versionId: string }>('GET', `/rest/workflows/${workflowId}`);
		await this.rest('POST', `/rest/workflows/${workflowId}/activate`, { versionId: workflow.versionId });
		await this.waitForPublished(workflowId);
	}

	/**
	 * Waits until n8n reports every trigger of a published workflow activated (n8n's publication
	 * status): webhook triggers have run `checkExists`/`create`, pollers are scheduled. Throws
	 * with n8n's error when a trigger failed to activate. Needs the server.
	 */
	async waitForPublished(workflowId: string, { timeoutMs = 60_000 } = {}): Promise<void> {
		if (this.isV1) {
			// n8n 1.x has no publication status: an active workflow has run its triggers' create()
			await waitFor(
				`workflow ${workflowId} to be active`,
				async () => (await this.rest<{ active?: boolean }>('GET', `/rest/workflows/${workflowId}`)).active === true || undefined,
				{ timeoutMs, intervalMs: 100 },
			);
			return;
		}
		type Status = { status: string; triggers: Array<{ nodeId: string; status: string; errorMessage?: string | null }> };
		const status = await waitFor(
			`workflow ${workflowId} to be published`,
			async () => {
				const current = await this.rest<Status>('GET', `/rest/workflows/${workflowId}/publication-status`);
				return ['published', 'partial', 'failed'].includes(current.status) ? current : undefined;
			},
			{ timeoutMs, intervalMs: 100 },
		);
		if (status.status !== 'published') {
			const errors = status.triggers
				.filter((trigger) => trigger.status !== 'activated')
				.map((trigger) => `${trigger.nodeId}: ${trigger.errorMessage ?? trigger.status}`);
			throw new Error(`workflow ${workflowId} publication ${status.status}: ${this.redact(errors.join('; '))}`);
		}
	}

	/**
	 * Starts `n8n start` on a free port and waits until it is ready (and until the given
	 * production webhooks answer, e.g. those of workflows published before the start).
	 * `readyMs`: from spawn until the editor is up; `webhooksMs`: from spawn until the webhooks answer.
	 */
	async start({
		timeoutMs = 120_000,
		port,
		setupOwner = true,
		webhooks = [],
		published = [],
	}: StartOptions = {}): Promise<{ readyMs: number; webhooksMs?: number }> {
		this.refuseOnShared('start()');
		if (this.running) throw new Error('n8n is already running');
		// The workflows kept for the start go in through the REST API as the owner; without one, before the start.
		const signIn = setupOwner || published.length > 0;
		if (!signIn) await this.applyPendingByCli();
		this.port = port ?? (await freePort());
		this.client = new N8nRest(this.baseUrl, (text) => this.redact(text), this.runtime);
		const env = { ...this.env(await freePort(), this.port), N8N_LOG_LEVEL: this.logLevel };
		const started = Date.now();
		this.serverLogFile = createWriteStream(path.join(this.userFolder, 'n8n-start.log'), { flags: 'a' });
		const child = spawn(this.runtime.n8nBin, ['start'], {
			env,
			cwd: this.userFolder,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		this.server = child;
		trackGroup(child.pid);
		const onData = (chunk: Buffer) => {
			const text = chunk.toString('utf8');
			this.serverLog += text;
			this.serverLogFile?.write(text);
		};
		child.stdout?.on('data', onData);
		child.stderr?.on('data', onData);
		this.serverExit = new Promise<void>((resolve) => child.on('exit', () => resolve()));
		// After a restart the log still holds the last start's lines: only this start's count.
		const logFrom = this.serverLog.length;
		try {
			await waitFor(
				'n8n to answer /healthz/readiness',
				async () => {
					if (!this.running) throw new Error(`n8n exited (${child.exitCode ?? child.signalCode})`);
					const response = await fetch(`${this.baseUrl}/healthz/readiness`);
					return response.status === 200;
				},
				{ timeoutMs, intervalMs: 100 },
			);
			await waitFor('n8n to log that the editor is accessible', () => /Editor is now accessible/.test(this.serverLog.slice(logFrom)), {
				timeoutMs: 30_000,
				intervalMs: 50,
			});
		} catch (error) {
			const log = this.redact(tail(this.serverLog, 6000));
			await this.stop();
			throw new Error(`${(error as Error).message}\n--- n8n log ---\n${log}`);
		}
		const readyMs = Date.now() - started;
		if (this.registry) await this.allowRegistry();
		if (signIn) {
			await this.setupOwner();
			await this.applyPendingByRest();
		}
		let webhooksMs: number | undefined;
		if (webhooks.length > 0 || published.length > 0) {
			await this.waitForActive({ webhooks, published });
			webhooksMs = Date.now() - started;
		}
		return { readyMs, webhooksMs };
	}

	/** Waits until the given production webhooks answer and the given published workflows' triggers are active. */
	async waitForActive({ webhooks = [], published = [] }: Pick<StartOptions, 'webhooks' | 'published'>): Promise<void> {
		for (const webhook of webhooks) {
			const { path: webhookPath, method } = typeof webhook === 'string' ? { path: webhook, method: 'POST' } : webhook;
			await this.waitForWebhook(webhookPath, { method });
		}
		for (const workflowId of published) await this.waitForPublished(workflowId);
	}

	/** Stops the server (SIGTERM to its process group, SIGKILL after `graceMs`). */
	async stop({ graceMs = 20_000 } = {}): Promise<void> {
		this.refuseOnShared('stop()');
		const child = this.server;
		if (!child) return;
		if (this.running) {
			killGroup(child.pid, 'SIGTERM');
			const exited = await Promise.race([
				this.serverExit?.then(() => true),
				new Promise<boolean>((resolve) => setTimeout(() => resolve(false), graceMs).unref()),
			]);
			if (!exited) {
				killGroup(child.pid, 'SIGKILL');
				await this.serverExit;
			}
		}
		// the task runner and anything else n8n spawned share its process group
		killGroup(child.pid, 'SIGKILL');
		untrackGroup(child.pid);
		this.server = undefined;
		this.client = undefined;
		await new Promise<void>((resolve) => (this.serverLogFile ? this.serverLogFile.end(resolve) : resolve()));
		this.serverLogFile = undefined;
	}

	/** Stops everything and removes the user folder (kept with `keep` or E2E_KEEP=1). */
	async dispose(): Promise<void> {
		if (this.attached) {
			await this.leaveShared();
			return;
		}
		await this.stop();
		if (this.keep) {
			process.stderr.write(`[e2e] kept n8n user folder ${this.userFolder}\n`);
			return;
		}
		rmSync(this.userFolder, { recursive: true, force: true, maxRetries: 3 });
		this.forgetCleanup?.();
	}

	/**
	 * Leaves a shared server as this file found it: its published workflows unpublished (their triggers' delete() runs
	 * while the file's service is still up), its workflows and credentials deleted.
	 */
	private async leaveShared(): Promise<void> {
		const workflows = this.attached?.workflows.splice(0) ?? [];
		for (const id of workflows) {
			const { active, activeVersionId } = await this.rest<{ active?: boolean; activeVersionId?: string | null }>('GET', `/rest/workflows/${id}`);
			if (active === true || (activeVersionId ?? null) !== null) await this.rest('POST', `/rest/workflows/${id}/deactivate`, {});
			// n8n deletes archived workflows only, and answers 409 until the unpublishing (queued) is done
			await this.rest('POST', `/rest/workflows/${id}/archive`, {});
			await waitFor(`workflow ${id} to be unpublished and deleted`, async () => (await this.rest('DELETE', `/rest/workflows/${id}`), true), {
				timeoutMs: 60_000,
				intervalMs: 200,
			});
		}
		for (const id of this.credentialIdByRest.values()) await this.rest('DELETE', `/rest/credentials/${id}`);
	}

	/** What `n8n start` printed (for a shared server, since this object attached to it unless `whole`). */
	private serverText({ whole = false } = {}): string {
		if (!this.attached) return this.serverLog;
		return readFileSync(this.logFile).subarray(whole ? 0 : this.attached.logFrom).toString('utf8');
	}

	/** Everything `n8n start` printed so far (secrets redacted). */
	logs(): string {
		return this.redact(stripAnsi(this.serverText()));
	}

	/**
	 * What `n8n start` logged about loading this package (debug level): the counts it
	 * reports, or the error that kept it from loading.
	 */
	packageLoad(): { loaded: boolean; nodes?: number; credentials?: number; error?: string } {
		const log = stripAnsi(this.serverText({ whole: true }));
		const name = PACKAGE_NAME.replace(/-/g, '\\-');
		const ok = new RegExp(`Loaded all credentials and nodes from ${name}\\s*(\\{.*\\})?`).exec(log);
		if (ok) {
			const counts = ok[1] ? (JSON.parse(ok[1]) as { nodes?: number; credentials?: number }) : {};
			return { loaded: true, nodes: counts.nodes, credentials: counts.credentials };
		}
		const failed = new RegExp(`Failed to load package "${name}".*`).exec(log);
		return { loaded: false, error: failed ? failed[0] : 'no load message in the log (is the log level debug?)' };
	}

	/** The type names n8n serves to the editor for this package's nodes (`<package>.<node>`). */
	async packageNodeTypes(): Promise<string[]> {
		const types = await this.types('nodes');
		return [...new Set(types.map((type) => type.name).filter((name) => name.startsWith(`${PACKAGE_NAME}.`)))].sort();
	}

	webhookUrl(webhookPath: string, { test = false } = {}): string {
		return `${this.baseUrl}/${test ? 'webhook-test' : 'webhook'}/${webhookPath.replace(/^\/+/, '')}`;
	}

	/**
	 * Waits until a production webhook is registered, without triggering it: a CORS preflight
	 * (OPTIONS with an Origin) answers 404 until the path is registered, 204 after.
	 */
	async waitForWebhook(webhookPath: string, { method = 'POST', timeoutMs = 30_000 } = {}): Promise<number> {
		const started = Date.now();
		await waitFor(
			`webhook ${method} ${webhookPath}`,
			async () => {
				const response = await fetch(this.webhookUrl(webhookPath), {
					method: 'OPTIONS',
					headers: { Origin: this.baseUrl, 'Access-Control-Request-Method': method },
				});
				return response.status >= 200 && response.status < 300;
			},
			{ timeoutMs, intervalMs: 50 },
		);
		return Date.now() - started;
	}

	/** Creates the instance owner (first start) and logs in; REST calls then carry the cookie. */
	async setupOwner(owner: Owner = DEFAULT_OWNER): Promise<Owner> {
		this.redactor.add(owner.password);
		return await this.api.setupOwner(owner);
	}

	get ownerCredentials(): Owner {
		if (!this.client?.signedIn) throw new Error('no owner set up: call start() or setupOwner() first');
		return this.client.owner;
	}

	/** The REST client of the running server (signed in once start() or setupOwner() ran). */
	get api(): N8nRest {
		if (!this.client) throw new Error('n8n is not started');
		return this.client;
	}

	/** Calls n8n's REST API as the owner; answers the `data` of n8n's envelope. */
	async rest<T = unknown>(
		method: string,
		urlPath: string,
		body?: unknown,
		{ auth = true }: { auth?: boolean } = {},
	): Promise<T> {
		return await this.api.request<T>(method, urlPath, body, { auth });
	}

	/**
	 * A registry other than npm's is a licensed feature of n8n; n8n's own end-to-end mode
	 * (`E2E_TESTS=true`) lets its test controller switch that feature on, after each boot.
	 */
	private async allowRegistry(): Promise<void> {
		await this.api.request('PATCH', '/rest/e2e/feature', { feature: 'feat:communityNodes:customRegistry', enabled: true }, { auth: false });
	}

	/** Installs a community package as Settings → Community Nodes → Install does (n8n's installer, npm against the registry). */
	async installPackage(name: string, version?: string): Promise<InstalledPackage> {
		return await this.rest<InstalledPackage>('POST', '/rest/community-packages', version ? { name, version } : { name });
	}

	/** Updates an installed community package as the Community Nodes screen's Update does (to `version`, else the latest). */
	async updatePackage(name: string, version?: string): Promise<InstalledPackage> {
		return await this.rest<InstalledPackage>('PATCH', '/rest/community-packages', version ? { name, version } : { name });
	}

	/** Uninstalls a community package as the Community Nodes screen's Uninstall does. */
	async uninstallPackage(name: string): Promise<void> {
		await this.rest('DELETE', `/rest/community-packages?name=${encodeURIComponent(name)}`);
	}

	/** The community packages n8n lists in Settings → Community Nodes. */
	async installedPackages(): Promise<InstalledPackage[]> {
		return await this.rest<InstalledPackage[]>('GET', '/rest/community-packages');
	}

	/** Tests a stored credential the way the editor's "Retry"/"Save" does. */
	async testCredential(credential: CredentialRef): Promise<{ status: string; message: string }> {
		// the editor sends the redacted data it got; n8n puts the stored secrets back before testing
		const stored = await this.rest<{ data: Record<string, unknown> }>(
			'GET',
			`/rest/credentials/${credential.id}?includeData=true`,
		);
		return await this.rest('POST', '/rest/credentials/test', {
			credentials: { id: credential.id, name: credential.name, type: credential.type, data: stored.data },
		});
	}

	/** n8n's catalogue of node or credential types, as the editor loads it (needs the server). */
	async types<T = Array<{ name: string }>>(kind: 'nodes' | 'credentials'): Promise<T> {
		return await this.api.types<T>(kind);
	}

	/** Executions of a workflow, newest first (needs the server). */
	async executions(workflowId: string): Promise<ExecutionSummary[]> {
		return await this.api.executions(workflowId);
	}

	/** Waits until a workflow has at least `count` finished executions; returns them all. */
	async waitForExecutions(workflowId: string, count: number, { timeoutMs = 30_000 } = {}): Promise<ExecutionSummary[]> {
		return await this.api.waitForExecutions(workflowId, count, { timeoutMs });
	}

	/** One stored execution with its run data (needs the server). */
	async execution(executionId: string): Promise<ExecutionResult> {
		return await this.api.execution(executionId);
	}

	/**
	 * Runs a stored workflow as the editor's "Execute workflow" does (mode `manual`, through the
	 * REST API) and waits for the run (needs the server). About 0.1 to 0.5 s a run.
	 */
	async runManually(workflowId: string, options?: { trigger?: string; timeoutMs?: number }): Promise<ExecutionResult> {
		return await this.api.runManually(workflowId, options);
	}

	/**
	 * `n8n execute-batch` over stored workflows: one process runs them all, one after the other
	 * (`concurrency` at a time), in mode `cli`, and writes each run to a snapshot file. About
	 * 3 s for the process plus each workflow's own run time, against 3 to 5 s per `n8n execute`.
	 * Needs ids that contain a digit (n8n's filter); `runBatch` makes such ids.
	 */
	async executeBatch(workflowIds: string[], { concurrency = 1, timeoutMs = 600_000 } = {}): Promise<BatchRun> {
		const bad = workflowIds.filter((id) => !/\d/.test(id));
		if (bad.length > 0) throw new Error(`n8n execute-batch ignores workflow ids without a digit: ${bad.join(', ')}`);
		const folder = mkdtempSync(path.join(this.userFolder, '.batch-'));
		try {
			const summaryFile = path.join(folder, 'summary.json');
			const result = await this.cli(
				[
					'execute-batch',
					`--ids=${workflowIds.join(',')}`,
					`--snapshot=${folder}`,
					`--output=${summaryFile}`,
					'--retries=0',
					`--concurrency=${concurrency}`,
				],
				{ timeoutMs },
			);
			const output = this.redact(result.stdout + result.stderr);
			if (!existsSync(summaryFile)) {
				throw new Error(`n8n execute-batch wrote no summary (exit ${result.code}):\n${tail(output)}`);
			}
			const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as {
				executions: Array<{ workflowId: string; workflowName: string; executionStatus: string; error?: string }>;
			};
			const entries = new Map<string, BatchEntry>();
			for (const execution of summary.executions) {
				const snapshot = path.join(folder, `${execution.workflowId}-snapshot.json`);
				const run =
					execution.executionStatus === 'success' && existsSync(snapshot)
						? new ExecutionResult(JSON.parse(readFileSync(snapshot, 'utf8')) as IRun, result.ms, '')
						: undefined;
				entries.set(execution.workflowId, {
					workflowId: execution.workflowId,
					name: execution.workflowName,
					status: execution.executionStatus,
					error: execution.error === undefined ? undefined : this.redact(String(execution.error)),
					result: run,
				});
			}
			for (const id of workflowIds) {
				if (!entries.has(id)) entries.set(id, { workflowId: id, name: id, status: 'missing', error: `n8n did not run it:\n${tail(output, 2000)}` });
			}
			return new BatchRun(entries, result.ms);
		} finally {
			rmSync(folder, { recursive: true, force: true });
		}
	}

	/** Imports workflows with one `import:workflow` and runs them with one `execute-batch`. */
	async runBatch(workflows: Array<WorkflowSpec | string>, options?: { concurrency?: number; timeoutMs?: number }): Promise<BatchRun> {
		const withIds = workflows.map((workflow, index) => {
			const spec = typeof workflow === 'string' ? loadWorkflow(workflow) : structuredClone(workflow);
			// execute-batch only takes ids with a digit
			if (typeof spec.id !== 'string' || !/\d/.test(spec.id)) spec.id = `${randomId(12)}${String(index).padStart(4, '0')}`;
			return spec;
		});
		const ids = await this.importWorkflows(withIds);
		return await this.executeBatch(ids, options);
	}

	redact(text: string): string {
		return this.redactor.redact(text);
	}

	private writeTemp(kind: string, content: unknown): string {
		const file = path.join(this.userFolder, `.import-${kind}-${randomId(8)}.json`);
		writeFileSync(file, JSON.stringify(content, null, 2), { mode: 0o600 });
		return file;
	}
}

/** The files of an n8n sqlite database (the write-ahead log holds what was not yet checkpointed). */
const DATABASE_FILES = ['database.sqlite', 'database.sqlite-wal'];

/**
 * A database that this n8n version has migrated, made once beside its install (in a folder of its own, renamed into
 * place, so that lanes making it at once never see half of one). Migrations are all it holds: no owner, no
 * credential, no workflow.
 */
async function migratedDatabase(runtime: N8nRuntime): Promise<string> {
	const template = path.join(runtime.n8nHome, '.e2e-migrated-database');
	if (existsSync(path.join(template, DATABASE_FILES[0]))) return template;
	const maker = await N8n.create({ runtime, package: false, migratedDatabase: false, label: 'n8n-e2e-migrate' });
	try {
		// n8n migrates its database before any command that opens it; exporting from an empty one is such a command
		const result = await maker.cli(['export:credentials', '--all', `--output=${path.join(maker.userFolder, 'none.json')}`]);
		const made = path.join(maker.userFolder, '.n8n');
		if (!existsSync(path.join(made, DATABASE_FILES[0]))) {
			throw new Error(`n8n made no database to copy (exit ${result.code}):\n${tail(result.stdout + result.stderr)}`);
		}
		const staging = mkdtempSync(`${template}-`);
		for (const file of DATABASE_FILES) if (existsSync(path.join(made, file))) copyFileSync(path.join(made, file), path.join(staging, file));
		try {
			renameSync(staging, template);
		} catch {
			// another lane put its copy there first
			rmSync(staging, { recursive: true, force: true });
		}
		return template;
	} finally {
		await maker.dispose();
	}
}

/** What points n8n's community-package installer (and its "update available" check) at a registry. */
export function registryEnv(url: string): Record<string, string> {
	return {
		N8N_COMMUNITY_PACKAGES_REGISTRY: url,
		// its update check runs `npm outdated` without --registry
		npm_config_registry: url,
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		// n8n's end-to-end mode: its test controller stands in for the licence of a custom registry
		E2E_TESTS: 'true',
	};
}

// eslint-disable-next-line no-control-regex
const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
