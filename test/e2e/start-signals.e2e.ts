/**
 * `npm start` stops when a signal reaches only one of its processes (an IDE's stop button signals
 * npm alone; a process manager may signal n8n or the registry): each case starts the README's
 * `npm start`, signals one process, and checks that every process of the demo ends and both
 * ports are freed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { describe, it } from 'node:test';

import { killGroup, recordTiming, REPO_ROOT, waitFor } from './lib';

/** The processes of a process group, as `pid command line`. */
function groupProcesses(group: number): Array<{ pid: number; cmdline: string }> {
	const found: Array<{ pid: number; cmdline: string }> = [];
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			if (Number(fields[2]) !== group) continue;
			found.push({ pid: Number(entry), cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() });
		} catch {
			// gone
		}
	}
	return found;
}

/** The process listening on 127.0.0.1:port (from /proc/net/tcp and the processes' sockets). */
function listenerPid(port: number): number | undefined {
	const wanted = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
	const line = readFileSync('/proc/net/tcp', 'utf8')
		.split('\n')
		.map((row) => row.trim().split(/\s+/))
		.find((fields) => fields[1] === wanted && fields[3] === '0A');
	if (!line) return undefined;
	const socket = `socket:[${line[9]}]`;
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			for (const fd of readdirSync(`/proc/${entry}/fd`)) if (readlinkSync(`/proc/${entry}/fd/${fd}`) === socket) return Number(entry);
		} catch {
			// gone, or not ours
		}
	}
	return undefined;
}

const groupAlive = (pid: number) => {
	try {
		process.kill(-pid, 0);
		return true;
	} catch {
		return false;
	}
};

/** Starts `npm start`, waits until it is ready; answers its pid (its group), output and addresses. */
async function startDemo(): Promise<{ pid: number; output: () => string; editorUrl: string; registryUrl: string; exit: Promise<unknown> }> {
	const child = spawn('npm', ['start'], {
		cwd: REPO_ROOT,
		// the tarball scripts/e2e.sh packed: start.e2e.ts proves the build of `npm start`, these its stop
		env: { ...process.env, DEMO_N8N_PORT: '0', DEMO_SERVICE_PORT: '0', DEMO_PACKAGE_TARBALL: process.env.E2E_PACKAGE_TARBALL ?? '' },
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
	child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
	const exit = new Promise((resolve) => child.on('exit', resolve));
	await waitFor(
		'npm start to be ready',
		() => {
			if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${output.slice(-3000)}`);
			return /Ctrl-C to stop/.test(output); // the last line of the ready block: every line before it is in
		},
		{ timeoutMs: 600_000, intervalMs: 200 },
	);
	const editorUrl = /^\s*Editor:\s+(\S+)/m.exec(output)?.[1] ?? '';
	const registryUrl = /local npm registry\s*\n?\s*\((\S+)\)/.exec(output)?.[1] ?? '';
	return { pid: child.pid!, output: () => output, editorUrl, registryUrl, exit };
}

const CASES: Array<{ name: string; signal: NodeJS.Signals; pick: (cmdline: string) => boolean }> = [
	{ name: "npm's own process (an IDE's stop button)", signal: 'SIGINT', pick: (cmd) => /(^|\/)npm( |-cli)/.test(cmd) || cmd === 'npm start' },
	{ name: 'the demo program (node start-demo.ts)', signal: 'SIGTERM', pick: (cmd) => cmd.includes('start-demo.ts') },
];

describe('npm start stops on a signal to any one of its processes', () => {
	for (const { name, signal, pick } of CASES) {
		it(`${signal} to ${name}`, async () => {
			const demo = await startDemo();
			try {
				const target = groupProcesses(demo.pid).find((p) => pick(p.cmdline));
				assert.ok(target, `no such process in ${JSON.stringify(groupProcesses(demo.pid))}`);
				const started = Date.now();
				process.kill(target.pid, signal);
				await waitFor('every process of npm start to end', () => !groupAlive(demo.pid), { timeoutMs: 60_000, intervalMs: 100 }).catch(
					(error: Error) => {
						throw new Error(`${error.message}\nleft: ${JSON.stringify(groupProcesses(demo.pid))}\n${demo.output().slice(-2000)}`);
					},
				);
				recordTiming(`npm start: ${signal} to ${name} until everything stopped`, Date.now() - started);
				for (const url of [demo.editorUrl, demo.registryUrl]) await assert.rejects(fetch(url), `${url} still answers`);
			} finally {
				killGroup(demo.pid, 'SIGKILL');
			}
		});
	}

	for (const which of ['n8n', 'the local registry'] as const) {
		it(`SIGINT to ${which} alone (its own process group)`, async () => {
			const demo = await startDemo();
			try {
				const url = which === 'n8n' ? demo.editorUrl : demo.registryUrl;
				const port = Number(new URL(url).port);
				const target = listenerPid(port);
				assert.ok(target, `no process listens on port ${port}`);
				const started = Date.now();
				process.kill(target, 'SIGINT');
				await waitFor('every process of npm start to end', () => !groupAlive(demo.pid), { timeoutMs: 90_000, intervalMs: 100 }).catch(
					(error: Error) => {
						throw new Error(`${error.message}\n${demo.output().slice(-2000)}`);
					},
				);
				recordTiming(`npm start: SIGINT to ${which} until everything stopped`, Date.now() - started);
				for (const address of [demo.editorUrl, demo.registryUrl]) await assert.rejects(fetch(address), `${address} still answers`);
			} finally {
				killGroup(demo.pid, 'SIGKILL');
			}
		});
	}
});
