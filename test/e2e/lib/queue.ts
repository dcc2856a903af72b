/**
 * n8n in queue mode on this machine, as users who outgrow one process run it: PostgreSQL and
 * Redis (Debian's packages, installed by scripts/provision-queue.sh, private instances on
 * 127.0.0.1 and free ports), a main process (`n8n start`), workers (`n8n worker`) and webhook
 * processes (`n8n webhook`), all with the packed package in the one shared user folder and one
 * encryption key. Production webhook URLs point at webhook process A, which stands in for the
 * load balancer; a test sends to B by its own port. Everything is stopped and removed by stop().
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, createWriteStream, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { N8n, type N8nOptions, type StartOptions } from './n8n';
import { REPO_ROOT } from './runtime';
import { freePort, killGroup, LOOPBACK, registerCleanup, runCommand, sleep, trackGroup, untrackGroup, waitFor } from './util';

export interface QueueTools {
	pgBin: string;
	redisServer: string;
}

/** Installs PostgreSQL and Redis when missing (scripts/provision-queue.sh) and says where they are. */
export function provisionQueueTools(): QueueTools {
	const output = execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'provision-queue.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
		timeout: 600_000,
	});
	const values = Object.fromEntries(
		output
			.split('\n')
			.map((line) => line.split('='))
			.filter((parts) => parts.length === 2),
	);
	if (!values.PG_BIN || !values.REDIS_SERVER) throw new Error(`provision-queue.sh printed no tools:\n${output}`);
	return { pgBin: values.PG_BIN, redisServer: values.REDIS_SERVER };
}

/** PostgreSQL refuses to run as root: run its commands as the `postgres` user then. */
function asPostgres(command: string, args: string[]): [string, string[]] {
	return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

interface Daemon {
	name: string;
	child: ChildProcess;
	exit: Promise<void>;
	log: WriteStream;
	output: string;
	port?: number;
}

export type QueueRole = 'main' | 'worker' | 'webhook';

export interface QueueOptions extends N8nOptions {
	workers?: number;
	webhooks?: number;
	/** extra environment for every n8n process */
	env?: Record<string, string>;
}

export class QueueCluster {
	readonly tools: QueueTools;
	readonly dataDir: string;
	n8n!: N8n;
	pgPort = 0;
	redisPort = 0;
	/** webhook process ports, A first */
	webhookPorts: number[] = [];
	private readonly daemons = new Map<string, Daemon>();
	private forgetCleanup?: () => void;

	private constructor(tools: QueueTools) {
		this.tools = tools;
		this.dataDir = mkdtempSync(path.join(os.tmpdir(), 'n8n-queue-'));
		this.forgetCleanup = registerCleanup(() => {
			for (const daemon of this.daemons.values()) killGroup(daemon.child.pid, 'SIGKILL');
			rmSync(this.dataDir, { recursive: true, force: true });
		});
	}

	/** PostgreSQL and Redis started, an n8n user folder with the package, configured for queue mode. */
	static async create(options: QueueOptions = {}): Promise<QueueCluster> {
		const cluster = new QueueCluster(provisionQueueTools());
		await cluster.startPostgres();
		await cluster.startRedis();
		const webhookCount = options.webhooks ?? 2;
		for (let i = 0; i < webhookCount; i++) cluster.webhookPorts.push(await freePort());
		cluster.n8n = await N8n.create({
			...options,
			label: 'n8n-queue',
			// its database is PostgreSQL
			migratedDatabase: false,
			env: {
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: LOOPBACK,
				DB_POSTGRESDB_PORT: String(cluster.pgPort),
				DB_POSTGRESDB_DATABASE: 'n8n',
				DB_POSTGRESDB_USER: 'n8n',
				DB_POSTGRESDB_PASSWORD: 'n8n',
				EXECUTIONS_MODE: 'queue',
				QUEUE_BULL_REDIS_HOST: LOOPBACK,
				QUEUE_BULL_REDIS_PORT: String(cluster.redisPort),
				QUEUE_HEALTH_CHECK_ACTIVE: 'false',
				OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
				N8N_WEBHOOK_URL: `http://${LOOPBACK}:${cluster.webhookPorts[0]}/`,
				WEBHOOK_URL: `http://${LOOPBACK}:${cluster.webhookPorts[0]}/`,
				...(options.env ?? {}),
			},
		});
		return cluster;
	}

	private spawnDaemon(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Daemon {
		const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
		trackGroup(child.pid);
		const log = createWriteStream(path.join(this.dataDir, `${name}.log`), { flags: 'a' });
		const daemon: Daemon = { name, child, log, output: '', exit: new Promise((resolve) => child.on('exit', () => resolve())) };
		const onData = (chunk: Buffer) => {
			const text = chunk.toString('utf8');
			daemon.output = (daemon.output + text).slice(-200_000);
			log.write(text);
		};
		child.stdout?.on('data', onData);
		child.stderr?.on('data', onData);
		this.daemons.set(name, daemon);
		return daemon;
	}

	private async startPostgres(): Promise<void> {
		const dir = path.join(this.dataDir, 'pg');
		const root = process.getuid?.() === 0;
		if (root) {
			// the data folder must belong to the postgres user
			const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
			const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
			chownSync(this.dataDir, uid, gid);
		}
		const pwfile = path.join(this.dataDir, 'pw');
		writeFileSync(pwfile, 'n8n\n', { mode: 0o644 });
		const [initCmd, initArgs] = asPostgres(path.join(this.tools.pgBin, 'initdb'), [
			'-D', dir, '-U', 'n8n', '--auth=md5', `--pwfile=${pwfile}`, '--encoding=UTF8', '--no-sync',
		]);
		const init = await runCommand(initCmd, initArgs, { timeoutMs: 120_000 });
		if (init.code !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
		this.pgPort = await freePort();
		const [cmd, args] = asPostgres(path.join(this.tools.pgBin, 'postgres'), [
			'-D', dir, '-p', String(this.pgPort), '-k', this.dataDir,
			'-c', `listen_addresses=${LOOPBACK}`, '-c', 'fsync=off', '-c', 'synchronous_commit=off',
			'-c', 'full_page_writes=off', '-c', 'max_connections=200',
		]);
		const daemon = this.spawnDaemon('postgres', cmd, args, process.env, this.dataDir);
		await waitFor(
			'PostgreSQL to accept connections',
			async () => {
				if (daemon.child.exitCode !== null) throw new Error(`postgres exited: ${daemon.output}`);
				const ready = await runCommand(path.join(this.tools.pgBin, 'pg_isready'), ['-h', LOOPBACK, '-p', String(this.pgPort)]);
				return ready.code === 0;
			},
			{ timeoutMs: 60_000, intervalMs: 200 },
		);
		const created = await this.psql('postgres', 'CREATE DATABASE n8n');
		if (!/CREATE DATABASE/.test(created)) throw new Error(`CREATE DATABASE failed: ${created}`);
	}

	private async startRedis(): Promise<void> {
		this.redisPort = await freePort();
		const daemon = this.spawnDaemon(
			'redis',
			this.tools.redisServer,
			['--port', String(this.redisPort), '--bind', LOOPBACK, '--save', '', '--appendonly', 'no', '--dir', this.dataDir],
			process.env,
			this.dataDir,
		);
		await waitFor('Redis to accept connections', () => {
			if (daemon.child.exitCode !== null) throw new Error(`redis exited: ${daemon.output}`);
			return /Ready to accept connections/.test(daemon.output);
		}, { timeoutMs: 30_000, intervalMs: 50 });
	}

	/** Runs SQL in the n8n database (or `db`) and returns psql's unaligned output. */
	async psql(db: string, sql: string): Promise<string> {
		const result = await runCommand(
			path.join(this.tools.pgBin, 'psql'),
			['-h', LOOPBACK, '-p', String(this.pgPort), '-U', 'n8n', '-d', db, '-tA', '-c', sql],
			{ env: { ...process.env, PGPASSWORD: 'n8n' }, timeoutMs: 60_000 },
		);
		if (result.code !== 0) throw new Error(`psql failed: ${result.stderr}`);
		return result.stdout.trim();
	}

	/** `n8n start` as the main process (imports, publication and REST go through it). */
	async startMain(options: StartOptions = {}): Promise<void> {
		await this.n8n.start(options);
	}

	/** Starts `n8n worker` number `index` (1-based) or `n8n webhook` A/B/…; waits until it is up. */
	async startProcess(role: 'worker' | 'webhook', index: number): Promise<void> {
		const name = `${role}-${index}`;
		const port = role === 'webhook' ? this.webhookPorts[index - 1] : await freePort();
		const env = { ...this.n8n.env(await freePort(), port), N8N_LOG_LEVEL: process.env.E2E_QUEUE_LOG_LEVEL ?? 'info' };
		const daemon = this.spawnDaemon(name, this.n8n.runtime.n8nBin, [role], env, this.n8n.userFolder);
		daemon.port = port;
		await waitFor(
			`n8n ${name} to start`,
			async () => {
				if (daemon.child.exitCode !== null) throw new Error(`n8n ${name} exited:\n${daemon.output.slice(-4000)}`);
				if (role === 'worker') return /n8n worker is now ready|Worker ready|ready to process jobs|Started worker/i.test(daemon.output);
				const response = await fetch(`http://${LOOPBACK}:${port}/healthz`).catch(() => undefined);
				return response?.status === 200;
			},
			{ timeoutMs: 120_000, intervalMs: 200 },
		);
	}

	/** Stops one process (SIGTERM, SIGKILL after 20 s). */
	async stopProcess(role: 'worker' | 'webhook', index: number): Promise<void> {
		const daemon = this.daemons.get(`${role}-${index}`);
		if (!daemon) return;
		await this.stopDaemon(daemon);
	}

	private async stopDaemon(daemon: Daemon, graceMs = 20_000): Promise<void> {
		if (daemon.child.exitCode === null && daemon.child.signalCode === null) {
			killGroup(daemon.child.pid, 'SIGTERM');
			const exited = await Promise.race([daemon.exit.then(() => true), sleep(graceMs).then(() => false)]);
			if (!exited) killGroup(daemon.child.pid, 'SIGKILL');
			await daemon.exit;
		}
		killGroup(daemon.child.pid, 'SIGKILL');
		untrackGroup(daemon.child.pid);
		await new Promise<void>((resolve) => daemon.log.end(resolve));
		this.daemons.delete(daemon.name);
	}

	/** The URL of a production webhook at webhook process `index` (1 = A). */
	webhookUrl(webhookPath: string, index: number): string {
		return `http://${LOOPBACK}:${this.webhookPorts[index - 1]}/webhook/${webhookPath}`;
	}

	/** The output (tail) of a process: `worker-1`, `webhook-2`, `postgres`, `redis`. */
	output(name: string): string {
		return this.daemons.get(name)?.output ?? '';
	}

	/** Stops every n8n process, then Redis and PostgreSQL, and removes the folders. */
	async stop(): Promise<void> {
		const n8nDaemons = [...this.daemons.values()].filter((d) => d.name.startsWith('worker') || d.name.startsWith('webhook'));
		await Promise.all(n8nDaemons.map(async (d) => await this.stopDaemon(d)));
		await this.n8n?.dispose();
		for (const name of ['redis', 'postgres']) {
			const daemon = this.daemons.get(name);
			if (daemon) await this.stopDaemon(daemon, 30_000);
		}
		this.forgetCleanup?.();
		if (process.env.E2E_KEEP !== '1') rmSync(this.dataDir, { recursive: true, force: true });
	}

	/** Files under the data folder (for debugging a kept run). */
	files(): string[] {
		return readdirSync(this.dataDir).filter((name) => statSync(path.join(this.dataDir, name)).isFile());
	}
}
