#!/usr/bin/env node
// Runs end-to-end test files in parallel lanes (scripts/e2e.sh calls it):
//
//   node scripts/e2e-lanes.mjs [--lanes N] [--env LABEL=FILE]... JOB...
//
// A JOB is a test file, or LABEL:FILE to run it with the KEY=VALUE lines of that label's --env
// file added to the environment (n8n 1.x's runtime, say). Each file runs in its own
// `node --test` process with its own fake service on a free loopback port; most of a file's time is
// waiting (scheduled polls, rate-limit windows, n8n starting), which is why N lanes on two cores
// finish far sooner than one.
//
// - Each lane has a folder (E2E_LANE_DIR) where the first file that wants a plain started n8n
//   starts one for the lane (test/e2e/lib/lane.ts); the lane's later files use it, one at a time,
//   each with its own credentials and workflows, removed when it ends. A file that restarts n8n, sets
//   it up its own way or runs its CLI has its own. The servers are stopped at the end, and their CPU
//   seconds counted with the files'.
// - Longest first, from the seconds of the last run on this machine
//   (test-output/e2e/seconds-by-file.tsv) or, on a fresh clone, from ESTIMATES below: the last
//   file to start is a short one.
// - The files that keep both cores busy (HEAVY) run one after another beside the others,
//   so that no two of them squeeze the waiting files' timing margins at once; being one chain, the
//   longest of them starts first.
// - A file's output is kept whole in test-output/e2e/logs/<file>.log and printed as one block
//   when it ends, so lanes never interleave their lines.
// - At the end: each file's seconds, tests, passes and failures in test-output/e2e/files.tsv, the
//   ten slowest printed, and the totals as "N passed, N failed". Exit 1 when any file failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outputDir = path.join(root, 'test-output', 'e2e');
const logDir = path.join(outputDir, 'logs');
/** this run's files: seconds, tests, passes, failures */
const timesFile = path.join(outputDir, 'files.tsv');
/** this run's files, wall and CPU seconds in one line (scripts/test.sh prints it under its stage table) */
const totalsFile = path.join(outputDir, 'totals.txt');
/** every file's seconds in the last run that ran it, here: the order of the next run */
const historyFile = path.join(outputDir, 'seconds-by-file.tsv');

/**
 * Seconds of the files of a minute or more on this 2-core machine in a whole run (4 lanes, 2026-12-02), for a clone
 * with no last run; only the order they give counts: a long file that starts last (one left at the default minute)
 * runs on alone at the end.
 */
const ESTIMATES = {
	'catch-up.e2e.ts': 325,
	'queue.e2e.ts': 250,
	'feed-trigger.e2e.ts': 215,
	'feed-new-posts.e2e.ts': 200,
	'feed-volumes.e2e.ts': 160,
	'v1:trigger.e2e.ts': 155,
	'ratelimit-budget.e2e.ts': 135,
	'catch-up-gaps.e2e.ts': 125,
	'start.e2e.ts': 100,
	'start-signals.e2e.ts': 100,
	'data-trigger-reads.e2e.ts': 100,
	'ratelimit-no-retry-after.e2e.ts': 95,
	'trigger.e2e.ts': 95,
	'editor.e2e.ts': 95,
	'poll.e2e.ts': 80,
	'pipeline.e2e.ts': 65,
	'community-packages.e2e.ts': 65,
	'v1:operations.e2e.ts': 65,
};

/**
 * Files that keep both cores busy much of their time, one at a time beside the others: queue mode (PostgreSQL, Redis
 * and seven n8n processes), the `npm start`s (a registry, the stand-in and n8n with its package installer, each), n8n's
 * package installer, 10,000-post Return Alls.
 */
const HEAVY = new Set(['queue.e2e.ts', 'start-signals.e2e.ts', 'start.e2e.ts', 'community-packages.e2e.ts', 'ratelimit-no-retry-after.e2e.ts']);

function parseArgs(argv) {
	const options = { lanes: Number(process.env.E2E_LANES ?? 4), envFiles: {}, jobs: [] };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--lanes') options.lanes = Number(argv[++i]);
		else if (arg === '--env') {
			const [label, file] = argv[++i].split('=');
			options.envFiles[label] = file;
		} else options.jobs.push(arg);
	}
	if (!Number.isInteger(options.lanes) || options.lanes < 1) throw new Error(`--lanes must be a whole number above 0, not ${options.lanes}`);
	return options;
}

function readEnvFile(file) {
	const env = {};
	for (const line of readFileSync(file, 'utf8').split('\n')) {
		const match = /^([A-Z0-9_]+)=(.*)$/.exec(line);
		if (match) env[match[1]] = match[2];
	}
	return env;
}

function lastTimes() {
	const times = new Map();
	if (!existsSync(historyFile)) return times;
	for (const line of readFileSync(historyFile, 'utf8').split('\n')) {
		const [job, seconds] = line.split('\t');
		if (job && seconds && Number.isFinite(Number(seconds))) times.set(job, Number(seconds));
	}
	return times;
}

function rememberTimes(results) {
	const times = lastTimes();
	for (const r of results) times.set(r.name, r.seconds);
	writeFileSync(historyFile, [...times].map(([name, seconds]) => `${name}\t${seconds}`).join('\n') + '\n');
}

function makeJobs(specs, envFiles) {
	const envs = Object.fromEntries(Object.entries(envFiles).map(([label, file]) => [label, readEnvFile(file)]));
	const times = lastTimes();
	return specs
		.map((spec) => {
			const match = /^([a-z0-9]+):(.+)$/.exec(spec);
			const [label, file] = match && envs[match[1]] ? [match[1], match[2]] : [undefined, spec];
			const name = `${label ? `${label}:` : ''}${path.basename(file)}`;
			const estimate = times.get(name) ?? ESTIMATES[name] ?? 60;
			return { name, file, env: label ? envs[label] : {}, heavy: HEAVY.has(path.basename(file)), estimate };
		})
		.sort((a, b) => b.estimate - a.estimate);
}

/** The counts node's spec reporter closes with (ℹ tests N, ℹ pass N, ℹ fail N …). */
function counts(output) {
	const read = (key) => {
		const found = [...output.matchAll(new RegExp(`^\\S*\\s*${key} (\\d+)$`, 'gm'))].at(-1);
		return found ? Number(found[1]) : 0;
	};
	return { tests: read('tests'), pass: read('pass'), fail: read('fail'), cancelled: read('cancelled'), skipped: read('skipped') };
}

const running = new Set();
/** set on SIGINT or SIGTERM: the files running are stopped and no other starts */
let stopping = false;
const GNU_TIME = '/usr/bin/time';

/** The CPU seconds GNU time wrote (user and system), or none. */
function cpuSeconds(file) {
	if (!existsSync(file)) return undefined;
	const [user, system] = readFileSync(file, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
	return Number.isFinite(user + system) ? Math.round(user + system) : undefined;
}

const logPath = (name) => path.join(logDir, `${name.replace(/[^A-Za-z0-9._-]/g, '_')}.log`);

/** The lanes' folders (test/e2e/lib/lane.ts keeps a lane's shared n8n in its folder). */
const laneRoot = mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-lanes-'));
const laneDir = (lane) => path.join(laneRoot, `lane-${lane}`);

/** `live`: the only file of the run, its output printed as it comes (the burst runs alone for half an hour). */
function runJob(job, live, lane) {
	const started = Date.now();
	const log = createWriteStream(logPath(job.name));
	let output = '';
	const testArgs = [
		'--require',
		'ts-node/register/transpile-only',
		'--test',
		'--test-reporter=spec',
		`--test-timeout=${process.env.E2E_TEST_TIMEOUT_MS ?? '600000'}`,
		job.file,
	];
	// GNU time, where the machine has it, adds up the CPU of the file's process and of every process it waited for:
	// its n8n, the task runner, Chromium
	const cpuFile = `${logPath(job.name)}.cpu`;
	const [command, args] = existsSync(GNU_TIME)
		? [GNU_TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...testArgs]]
		: [process.execPath, testArgs];
	const env = { ...process.env, ...job.env, E2E_LANE_DIR: laneDir(lane) };
	const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	running.add(child);
	const keep = (chunk) => {
		output += chunk.toString('utf8');
		log.write(chunk);
		if (live) process.stdout.write(chunk);
	};
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	process.stderr.write(`[e2e] start ${job.name}${job.heavy ? ' (heavy)' : ''}\n`);
	return new Promise((resolve) => {
		child.on('close', (code, signal) => {
			running.delete(child);
			log.end();
			const seconds = Math.round((Date.now() - started) / 1000);
			const result = { ...job, seconds, cpu: cpuSeconds(cpuFile), code: code ?? signal, ...counts(output) };
			const ok = code === 0;
			process.stdout.write(`\n===== ${job.name}: ${ok ? 'passed' : `FAILED (exit ${code ?? signal})`} in ${seconds} s =====\n${live ? '' : output}`);
			process.stderr.write(`[e2e] done ${job.name} in ${seconds} s: ${result.pass} passed, ${result.fail} failed\n`);
			resolve(result);
		});
	});
}

async function runAll(jobs, lanes) {
	const results = [];
	const waiting = [...jobs];
	let heavyRunning = false;
	const active = new Set();
	const freeLanes = Array.from({ length: lanes }, (_, lane) => lane);
	await new Promise((resolve) => {
		const next = () => {
			if (stopping) waiting.length = 0;
			while (active.size < lanes && waiting.length > 0) {
				// The heavy files run one after another, so together they are the longest chain: when none runs, the
				// longest of them starts first; else the longest of the others.
				const heavyIndex = heavyRunning ? -1 : waiting.findIndex((job) => job.heavy);
				const index = heavyIndex >= 0 ? heavyIndex : waiting.findIndex((job) => !job.heavy);
				if (index < 0) break;
				const [job] = waiting.splice(index, 1);
				if (job.heavy) heavyRunning = true;
				const lane = freeLanes.shift();
				const run = runJob(job, jobs.length === 1, lane).then((result) => {
					active.delete(run);
					freeLanes.push(lane);
					if (job.heavy) heavyRunning = false;
					results.push(result);
					next();
				});
				active.add(run);
			}
			if (active.size === 0 && waiting.length === 0) resolve();
		};
		next();
	});
	return results;
}

const alive = (pid) => {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
};

let lanesStopped;
/** Stops every lane's shared n8n (its host stops it and waits for it), once; answers their CPU seconds. */
function stopLaneServers() {
	lanesStopped ??= stopHosts();
	return lanesStopped;
}

async function stopHosts() {
	const hosts = [];
	for (const lane of existsSync(laneRoot) ? readdirSync(laneRoot) : []) {
		for (const server of readdirSync(path.join(laneRoot, lane))) {
			const folder = path.join(laneRoot, lane, server);
			try {
				const { hostPid } = JSON.parse(readFileSync(path.join(folder, 'server.json'), 'utf8'));
				process.kill(hostPid, 'SIGTERM');
				hosts.push({ folder, hostPid });
			} catch {
				// no server started there, or it is gone
			}
		}
	}
	let cpu = 0;
	for (const { folder, hostPid } of hosts) {
		const deadline = Date.now() + 40_000;
		// GNU time writes the host's CPU once the host (and the n8n it waits for) ended
		while ((alive(hostPid) || (existsSync(GNU_TIME) && !existsSync(path.join(folder, 'cpu')))) && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		if (alive(hostPid)) process.kill(hostPid, 'SIGKILL');
		cpu += cpuSeconds(path.join(folder, 'cpu')) ?? 0;
	}
	rmSync(laneRoot, { recursive: true, force: true });
	return { servers: hosts.length, cpu };
}

function stopAll(signal) {
	for (const child of running) {
		try {
			process.kill(-child.pid, signal);
		} catch {
			// already gone
		}
	}
}

async function main() {
	const options = parseArgs(process.argv.slice(2));
	if (options.jobs.length === 0) throw new Error('no e2e test files given');
	mkdirSync(logDir, { recursive: true });
	const jobs = makeJobs(options.jobs, options.envFiles);
	for (const signal of ['SIGINT', 'SIGTERM']) {
		process.on(signal, () => {
			stopping = true;
			stopAll('SIGTERM');
			void stopLaneServers();
			setTimeout(() => process.exit(130), 30_000).unref();
		});
	}
	const started = Date.now();
	process.stderr.write(`[e2e] ${jobs.length} file(s) in ${options.lanes} lane(s), longest first\n`);
	const results = await runAll(jobs, options.lanes);
	const lanes = await stopLaneServers();
	const wall = Math.round((Date.now() - started) / 1000);
	const rows = [...results].sort((a, b) => b.seconds - a.seconds);
	rememberTimes(rows);
	writeFileSync(
		timesFile,
		['file\tseconds\tcpu_seconds\ttests\tpass\tfail\texit', ...rows.map((r) => [r.name, r.seconds, r.cpu ?? '', r.tests, r.pass, r.fail, r.code].join('\t'))].join('\n') + '\n',
	);
	const total = rows.reduce(
		(sum, r) => ({ pass: sum.pass + r.pass, fail: sum.fail + r.fail + r.cancelled, tests: sum.tests + r.tests }),
		{ pass: 0, fail: 0, tests: 0 },
	);
	const failedFiles = rows.filter((r) => r.code !== 0);
	const cpu = rows.reduce((sum, r) => sum + (r.cpu ?? 0), 0) + lanes.cpu;
	const totals = `${rows.length} files in ${wall} s wall (${options.lanes} lanes), ${cpu} s of CPU (${lanes.cpu} s of it in ${lanes.servers} shared n8n servers)`;
	writeFileSync(totalsFile, `${totals}\n`);
	process.stdout.write(`\n[e2e] ${totals}; the ten slowest:\n`);
	for (const r of rows.slice(0, 10)) process.stdout.write(`  ${String(r.seconds).padStart(5)} s  ${r.name}${r.cpu === undefined ? '' : ` (${r.cpu} s CPU)`}\n`);
	for (const r of failedFiles) process.stdout.write(`[e2e] FAILED: ${r.name} (exit ${r.code}); its log: ${path.relative(root, logPath(r.name))}\n`);
	// a file that failed before counting its tests still fails the run
	const fail = Math.max(total.fail, failedFiles.length);
	process.stdout.write(`e2e: ${total.pass} passed, ${fail} failed\n`);
	process.exit(failedFiles.length > 0 ? 1 : 0);
}

main().catch(async (error) => {
	process.stderr.write(`[e2e] ${error.stack ?? error}\n`);
	stopAll('SIGTERM');
	await stopLaneServers().catch(() => undefined);
	process.exit(1);
});
