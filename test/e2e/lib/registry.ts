import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { N8nRuntime } from './runtime';
import { freePort, killGroup, LOOPBACK, randomId, registerCleanup, runCommand, tail, trackGroup, untrackGroup, waitFor } from './util';

/**
 * A private npm registry on 127.0.0.1 (verdaccio, provisioned into the cache folder by
 * scripts/provision-n8n.sh, run on Node 24), holding only what is published to it: no uplink,
 * so nothing is ever fetched from elsewhere. n8n's community-package installer is pointed at it
 * (`N8N_COMMUNITY_PACKAGES_REGISTRY`), so a build that is not on npm installs, updates and
 * uninstalls the way users' packages do.
 */
export class LocalRegistry {
	private log = '';

	private constructor(
		readonly url: string,
		private readonly folder: string,
		private readonly child: ChildProcess,
		private readonly exit: Promise<void>,
		private readonly token: string,
		private readonly forgetCleanup: () => void,
	) {}

	static async start(runtime: N8nRuntime, { port }: { port?: number } = {}): Promise<LocalRegistry> {
		const folder = mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-registry-'));
		const forgetCleanup = registerCleanup(() => rmSync(folder, { recursive: true, force: true }));
		const listenPort = port ?? (await freePort());
		mkdirSync(path.join(folder, 'storage'));
		writeFileSync(
			path.join(folder, 'config.yaml'),
			[
				`storage: ${path.join(folder, 'storage')}`,
				'auth:',
				'  htpasswd:',
				`    file: ${path.join(folder, 'htpasswd')}`,
				'    max_users: 1',
				'uplinks: {}',
				'packages:',
				"  '**':",
				'    access: $all',
				'    publish: $authenticated',
				'    unpublish: $authenticated',
				'web:',
				'  enable: false',
				'server:',
				'  keepAliveTimeout: 0',
				'log: { type: stdout, format: pretty, level: warn }',
				'',
			].join('\n'),
		);
		const child = spawn(runtime.nodeBin, [runtime.verdaccioBin, '--config', path.join(folder, 'config.yaml'), '--listen', `${LOOPBACK}:${listenPort}`], {
			cwd: folder,
			env: { ...process.env, PATH: `${path.join(runtime.nodeHome, 'bin')}${path.delimiter}${process.env.PATH ?? ''}` },
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		trackGroup(child.pid);
		const exit = new Promise<void>((resolve) => child.on('exit', () => resolve()));
		const url = `http://${LOOPBACK}:${listenPort}/`;
		let log = '';
		child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
		child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
		try {
			await waitFor(
				'the local registry to answer /-/ping',
				async () => {
					if (child.exitCode !== null || child.signalCode !== null) throw new Error(`verdaccio exited (${child.exitCode ?? child.signalCode})`);
					return (await fetch(`${url}-/ping`)).ok;
				},
				{ timeoutMs: 60_000, intervalMs: 100 },
			);
			// the one user that may publish
			const name = 'e2e-publisher';
			const password = randomId(24);
			const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ _id: `org.couchdb.user:${name}`, name, password, type: 'user', roles: [], date: new Date().toISOString() }),
			});
			const body = (await response.json()) as { token?: string };
			if (!response.ok || !body.token) throw new Error(`verdaccio refused the publisher account: ${response.status}`);
			const registry = new LocalRegistry(url, folder, child, exit, body.token, forgetCleanup);
			registry.log = log;
			child.stdout?.on('data', (chunk: Buffer) => (registry.log += chunk.toString('utf8')));
			return registry;
		} catch (error) {
			killGroup(child.pid, 'SIGKILL');
			untrackGroup(child.pid);
			rmSync(folder, { recursive: true, force: true });
			forgetCleanup();
			throw new Error(`${(error as Error).message}\n--- verdaccio ---\n${tail(log)}`);
		}
	}

	/** The pid of verdaccio (the leader of its process group). */
	get pid(): number | undefined {
		return this.running ? this.child.pid : undefined;
	}

	get running(): boolean {
		return this.child.exitCode === null && this.child.signalCode === null;
	}

	/** Resolves when verdaccio has exited, for whatever reason. */
	get exited(): Promise<void> {
		return this.exit;
	}

	/** `npm publish <tarball>` to this registry, as a maintainer publishes to npm. */
	async publish(tarball: string): Promise<void> {
		const userconfig = path.join(this.folder, 'publisher.npmrc');
		const host = this.url.replace(/^http:/, '');
		writeFileSync(userconfig, `registry=${this.url}\n${host}:_authToken=${this.token}\n`, { mode: 0o600 });
		const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key)));
		const result = await runCommand(
			'npm',
			['publish', tarball, `--registry=${this.url}`, `--userconfig=${userconfig}`, '--access=public', '--provenance=false', '--ignore-scripts'],
			{ env, cwd: this.folder, timeoutMs: 120_000 },
		);
		if (result.code !== 0) throw new Error(`npm publish ${tarball} to ${this.url} failed:\n${tail(result.stdout + result.stderr)}`);
	}

	/** The versions of a package this registry holds, and its `latest`. */
	async versions(name: string): Promise<{ versions: string[]; latest?: string }> {
		const response = await fetch(`${this.url}${name.replace('/', '%2f')}`);
		if (response.status === 404) return { versions: [] };
		const body = (await response.json()) as { versions?: Record<string, unknown>; 'dist-tags'?: { latest?: string } };
		return { versions: Object.keys(body.versions ?? {}), latest: body['dist-tags']?.latest };
	}

	logs(): string {
		return this.log;
	}

	/** Stops verdaccio and removes its storage. */
	async stop(): Promise<void> {
		if (this.running) {
			killGroup(this.child.pid, 'SIGTERM');
			const exited = await Promise.race([this.exit.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000).unref())]);
			if (!exited) killGroup(this.child.pid, 'SIGKILL');
			await this.exit;
		}
		killGroup(this.child.pid, 'SIGKILL');
		untrackGroup(this.child.pid);
		rmSync(this.folder, { recursive: true, force: true });
		this.forgetCleanup();
	}
}
