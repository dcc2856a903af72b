import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as net from 'node:net';

export const LOOPBACK = '127.0.0.1';

/** A port that was free a moment ago on 127.0.0.1 (the OS picks it). */
export async function freePort(): Promise<number> {
	return await new Promise<number>((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, LOOPBACK, () => {
			const address = server.address();
			if (address === null || typeof address === 'string') {
				server.close();
				reject(new Error('no port'));
				return;
			}
			server.close(() => resolve(address.port));
		});
	});
}

export const sleep = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns something other than undefined/false, or throws after `timeoutMs`. */
export async function waitFor<T>(
	what: string,
	check: () => Promise<T | undefined | false> | T | undefined | false,
	{ timeoutMs = 60_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value !== undefined && value !== false) return value;
		} catch (error) {
			lastError = error;
		}
		if (Date.now() > deadline) {
			const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
		}
		await sleep(intervalMs);
	}
}

/** n8n-style ids: 16 letters and digits. */
export function randomId(length = 16): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	const bytes = randomBytes(length);
	let id = '';
	for (const byte of bytes) id += alphabet[byte % alphabet.length];
	return id;
}

/** Replaces every known secret in `text`; used on everything the library prints or throws. */
export class Redactor {
	private readonly secrets = new Set<string>();

	add(...secrets: Array<string | undefined>): void {
		for (const secret of secrets) if (secret !== undefined && secret.length >= 4) this.secrets.add(secret);
	}

	redact(text: string): string {
		let out = text;
		for (const secret of this.secrets) out = out.split(secret).join('[redacted]');
		return out;
	}
}

export interface CommandResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	ms: number;
}

/** Runs a command to completion, capturing its output; kills its process group at the timeout. */
export async function runCommand(
	command: string,
	args: string[],
	options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> {
	const started = Date.now();
	return await new Promise<CommandResult>((resolve, reject) => {
		const child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		trackGroup(child.pid);
		const stdout: Buffer[] = [];
		const stderr: Buffer[] = [];
		child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
		child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
		let timedOut = false;
		const timer =
			options.timeoutMs === undefined
				? undefined
				: setTimeout(() => {
						timedOut = true;
						killGroup(child.pid, 'SIGKILL');
					}, options.timeoutMs);
		child.on('error', (error) => {
			if (timer) clearTimeout(timer);
			reject(error);
		});
		child.on('close', (code, signal) => {
			if (timer) clearTimeout(timer);
			killGroup(child.pid, 'SIGKILL'); // anything it left behind in its group
			untrackGroup(child.pid);
			const result: CommandResult = {
				code,
				signal,
				stdout: Buffer.concat(stdout).toString('utf8'),
				stderr: Buffer.concat(stderr).toString('utf8'),
				ms: Date.now() - started,
			};
			if (timedOut) {
				reject(
					Object.assign(new Error(`${command} ${args.join(' ')} timed out after ${options.timeoutMs} ms`), {
						result,
					}),
				);
				return;
			}
			resolve(result);
		});
	});
}

/** Signals a whole process group (children spawned with `detached: true` lead their own group). */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
	if (pid === undefined) return;
	try {
		process.kill(-pid, signal);
	} catch {
		// the group is gone
	}
}

/** The last `maxChars` characters of a log, for error messages. */
export function tail(text: string, maxChars = 4000): string {
	return text.length <= maxChars ? text : `…${text.slice(-maxChars)}`;
}

/**
 * Process groups this test process started and has not stopped yet. They lead their own
 * groups (so n8n's task runners go with them), which also means they would outlive a test
 * process that dies: on exit, SIGINT or SIGTERM every one still listed is killed.
 */
const liveGroups = new Set<number>();
const cleanups = new Set<() => void>();
let exitHooksInstalled = false;
let signalHooks = true;

/**
 * Whether SIGINT/SIGTERM kill every tracked group at once and exit (the default, right for
 * tests). A long-running program that stops its children gracefully on a signal (the local
 * demo) turns this off before starting anything; the exit hook still kills what is left.
 */
export function setSignalCleanup(enabled: boolean): void {
	if (exitHooksInstalled && !enabled && signalHooks) {
		throw new Error('setSignalCleanup(false) must be called before any process group is tracked');
	}
	signalHooks = enabled;
}

export function trackGroup(pid: number | undefined): void {
	if (pid === undefined) return;
	liveGroups.add(pid);
	installExitHooks();
}

/** A synchronous cleanup (e.g. removing a temp folder) run if the process exits before it is undone. */
export function registerCleanup(cleanup: () => void): () => void {
	cleanups.add(cleanup);
	installExitHooks();
	return () => cleanups.delete(cleanup);
}

function installExitHooks(): void {
	if (exitHooksInstalled) return;
	exitHooksInstalled = true;
	const killAll = () => {
		for (const group of liveGroups) killGroup(group, 'SIGKILL');
		liveGroups.clear();
		for (const cleanup of cleanups) {
			try {
				cleanup();
			} catch {
				// best effort while exiting
			}
		}
		cleanups.clear();
	};
	process.once('exit', killAll);
	if (!signalHooks) return;
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.once(signal, () => {
			killAll();
			process.exit(signal === 'SIGINT' ? 130 : 143);
		});
	}
}

export function untrackGroup(pid: number | undefined): void {
	if (pid !== undefined) liveGroups.delete(pid);
}
