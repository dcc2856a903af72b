/**
 * A lane's shared n8n: one `n8n start` (the packed package installed, the owner set up) that the files of one lane of
 * scripts/e2e-lanes.mjs use one after another, instead of one n8n each. The lane runner gives each lane a folder
 * (`E2E_LANE_DIR`); the first file there that asks `e2eSuite` for a plain started n8n starts this file as a program
 * (the host, in a process of its own that outlives the file), and every later file attaches to it (`N8n.attach`). A
 * file that restarts n8n, gives it settings of its own or runs its CLI keeps its own n8n (`ownServer`).
 *
 * The lane runner stops each host at the end of the run (SIGTERM): the host stops its n8n and waits for it, so that
 * GNU time, which the host runs under where the machine has it, counts the n8n's CPU in `<folder>/cpu`.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { N8n } from './n8n';
import { resolveRuntime, type N8nRuntime } from './runtime';
import { setSignalCleanup, tail, waitFor } from './util';

/** The variable naming the lane's folder; without it, every file has its own n8n. */
export const LANE_DIR_ENV = 'E2E_LANE_DIR';

/** What the host writes (`server.json`) once its n8n is ready. */
export interface LaneServerInfo {
	hostPid: number;
	port: number;
	userFolder: string;
	n8nVersion: string;
}

const GNU_TIME = '/usr/bin/time';

/** The folder of this runtime's shared server in a lane's folder (each n8n version has its own). */
function serverFolder(laneDir: string, runtime: N8nRuntime): string {
	return path.join(laneDir, `n8n-${runtime.n8nVersion}`);
}

function readInfo(file: string): LaneServerInfo | undefined {
	try {
		return JSON.parse(readFileSync(file, 'utf8')) as LaneServerInfo;
	} catch {
		return undefined;
	}
}

async function answers(info: LaneServerInfo): Promise<boolean> {
	try {
		process.kill(info.hostPid, 0);
		return (await fetch(`http://127.0.0.1:${info.port}/healthz/readiness`)).status === 200;
	} catch {
		return false;
	}
}

/**
 * The lane's shared n8n for this runtime, started by this call when the lane has none yet; undefined outside the lane
 * runner. The n8n answers its REST API as the signed-in owner.
 */
export async function laneServer(runtime: N8nRuntime = resolveRuntime()): Promise<N8n | undefined> {
	const laneDir = process.env[LANE_DIR_ENV];
	if (!laneDir) return undefined;
	const folder = serverFolder(laneDir, runtime);
	const infoFile = path.join(folder, 'server.json');
	let info = readInfo(infoFile);
	if (info === undefined || !(await answers(info))) info = await startHost(folder, infoFile);
	return await N8n.attach(runtime, info);
}

/** Starts the host of a lane's n8n (this file as a program, under GNU time where there is one) and waits until it is ready. */
async function startHost(folder: string, infoFile: string): Promise<LaneServerInfo> {
	mkdirSync(folder, { recursive: true });
	const logFile = path.join(folder, 'host.log');
	const out = openSync(logFile, 'a');
	const program = [process.execPath, '--require', 'ts-node/register/transpile-only', __filename, folder];
	const [command, args] = existsSync(GNU_TIME) ? [GNU_TIME, ['-f', '%U %S', '-o', path.join(folder, 'cpu'), ...program]] : [program[0], program.slice(1)];
	const child = spawn(command, args, { stdio: ['ignore', out, out], detached: true, env: process.env });
	closeSync(out);
	child.unref();
	let exited: string | undefined;
	child.once('exit', (code, signal) => (exited = String(code ?? signal)));
	try {
		return await waitFor(
			"the lane's shared n8n",
			() => {
				if (exited !== undefined) throw new Error(`its host exited (${exited})`);
				return readInfo(infoFile);
			},
			{ timeoutMs: 240_000, intervalMs: 100 },
		);
	} catch (error) {
		throw new Error(`${(error as Error).message}\n--- host log ---\n${tail(existsSync(logFile) ? readFileSync(logFile, 'utf8') : '', 4000)}`);
	}
}

/** The host: starts n8n, says where it is, and on SIGTERM or SIGINT stops it and waits for it to end. */
async function host(folder: string): Promise<void> {
	setSignalCleanup(false);
	const n8n = await N8n.create({ label: 'n8n-e2e-lane' });
	let stopping: Promise<void> | undefined;
	const stop = () => {
		stopping ??= n8n.dispose().finally(() => process.exit(0));
	};
	process.on('SIGTERM', stop);
	process.on('SIGINT', stop);
	await n8n.start();
	const info: LaneServerInfo = { hostPid: process.pid, port: n8n.port!, userFolder: n8n.userFolder, n8nVersion: n8n.runtime.n8nVersion };
	const staging = path.join(folder, `server.json.${process.pid}`);
	writeFileSync(staging, JSON.stringify(info));
	renameSync(staging, path.join(folder, 'server.json'));
	process.stdout.write(`[lane] n8n ${info.n8nVersion} on port ${info.port}, user folder ${info.userFolder}\n`);
}

if (require.main === module) {
	host(process.argv[2]).catch((error: Error) => {
		process.stderr.write(`[lane] ${error.stack ?? error.message}\n`);
		process.exit(1);
	});
}
