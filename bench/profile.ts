/**
 * B4 profile (`BENCH_ONLY=B4P`): where n8n spends its CPU on one delivery, for the plain Webhook
 * node, the Social Aggregator Trigger (versions 2 and 1) and the minimal community trigger (bench/minimal), in one
 * n8n. n8n runs with its inspector on a loopback port; around each side's block the V8 profiler of
 * n8n's main thread is started and stopped over the DevTools protocol, and each thread's CPU
 * (utime + stime of /proc/<pid>/task/*) is read before and after, by thread name (the main thread,
 * V8's workers, libuv's pool where SQLite runs, the expression isolates' threads). Prints, per
 * side, CPU per delivery by thread and the main thread's time per delivery by package and in the
 * n8n functions a delivery passes through; writes each profile (`.cpuprofile`, for Chrome's
 * DevTools) under `BENCH_PROFILE_DIR`.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { freePort } from '../test/e2e/lib/util';
import { publishSides, sendBlock, type BurstSettings, type BurstSide } from './burst';
import { startBench } from './lib/harness';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface CpuProfile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
}

/** A minimal DevTools-protocol client over Node's WebSocket (Node 20: `--experimental-websocket`). */
async function inspector(port: number): Promise<{ send(method: string, params?: object): Promise<Record<string, unknown>>; close(): void }> {
	const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
	const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
	await new Promise((resolve, reject) => {
		socket.addEventListener('open', resolve, { once: true });
		socket.addEventListener('error', reject, { once: true });
	});
	let nextId = 1;
	const pending = new Map<number, (message: { result?: Record<string, unknown>; error?: unknown }) => void>();
	socket.addEventListener('message', (event: MessageEvent) => {
		const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown>; error?: unknown };
		if (message.id !== undefined) pending.get(message.id)?.(message);
	});
	return {
		async send(method, params = {}) {
			const id = nextId++;
			const answer = await new Promise<{ result?: Record<string, unknown>; error?: unknown }>((resolve) => {
				pending.set(id, resolve);
				socket.send(JSON.stringify({ id, method, params }));
			});
			pending.delete(id);
			if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
			return answer.result ?? {};
		},
		close: () => socket.close(),
	};
}

/** CPU seconds by thread name of `pid` (its own threads only: the task runner is idle here). */
function threadCpu(pid: number): Map<string, number> {
	const byName = new Map<string, number>();
	for (const task of readdirSync(`/proc/${pid}/task`)) {
		try {
			const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
			const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, 'N');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
		} catch {
			// the thread ended meanwhile
		}
	}
	return byName;
}

/** The package (or `node:` internals, or `(program)`) a frame belongs to. */
function packageOf(url: string, functionName: string): string {
	if (!url) return functionName.startsWith('(') ? functionName : '(native)';
	if (url.startsWith('node:')) return 'node:internals';
	const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(url);
	return match ? match[1] : url;
}

/** n8n functions a delivery passes through: the time (ms per delivery) spent inside each. */
const INCLUSIVE = [
	'executeWebhook',
	'runWebhook',
	'getNodeWebhooks',
	'getWebhookMethods',
	'findAccessControlOptions',
	'acquireIsolate',
	'acquire',
	'releaseIsolate',
	'getNodeParameter',
	'getParameterValue',
	'resolveSimpleParameterValue',
	'getCredentials',
	'saveStaticData',
	'runWorkflow',
	'processRunExecutionData',
	'runNode',
	'getByNameAndVersion',
	'extractWebhookOnReceivedResponse',
	'findWebhook',
	'sanitizeWebhookRequest',
	'parseRequestBody',
	'getWorkflowData',
	'loadWebhookExecutionData',
	'getPublishedWorkflowData',
	'addNewExecution',
	'updateExistingExecution',
	'createNewExecution',
	'checkProcessedAndRecord',
	'checkProcessedItemsAndRecord',
];

function analyse(profile: CpuProfile, deliveries: number): { byPackage: Array<[string, number]>; inclusive: Array<[string, number]>; topSelf: Array<[string, number]> } {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map<number, number>();
	for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
	const self = new Map<string, number>();
	const packages = new Map<string, number>();
	const inclusive = new Map<string, number>();
	profile.samples.forEach((id, index) => {
		const ms = (profile.timeDeltas[index] ?? 0) / 1000;
		const frame = byId.get(id)!.callFrame;
		const where = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*node_modules\//, '')}:${frame.lineNumber + 1}`;
		self.set(where, (self.get(where) ?? 0) + ms);
		const pkg = packageOf(frame.url, frame.functionName);
		packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
		const seen = new Set<string>();
		for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
			const name = byId.get(at)!.callFrame.functionName;
			if (INCLUSIVE.includes(name)) seen.add(name);
		}
		for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
	});
	const perDelivery = (map: Map<string, number>, limit: number) =>
		[...map.entries()]
			.map(([key, ms]): [string, number] => [key, ms / deliveries])
			.sort((a, b) => b[1] - a[1])
			.slice(0, limit);
	return { byPackage: perDelivery(packages, 14), inclusive: perDelivery(inclusive, INCLUSIVE.length), topSelf: perDelivery(self, 25) };
}

/** Profiles `deliveries` to each side (after a warm-up of 50 each), in one n8n started with `env`. */
export async function runProfile(settings: BurstSettings & { deliveries: number }, env: Record<string, string> = {}): Promise<string> {
	const port = await freePort();
	const dir = process.env.BENCH_PROFILE_DIR ?? path.join(os.tmpdir(), `n8n-bench-profile-${Date.now()}`);
	mkdirSync(dir, { recursive: true });
	const ctx = await startBench(() => [], {
		env: { ...env, NODE_OPTIONS: `--inspect=127.0.0.1:${port}` },
		label: 'n8n-bench-profile',
		extraPackages: [path.join(__dirname, 'minimal')],
	});
	const lines: string[] = [`B4 profile, ${settings.deliveries} deliveries a side, ${settings.deliveryConcurrency} at once, env ${JSON.stringify(env)}; profiles in ${dir}`];
	try {
		const { post, ours, plain, extras } = await publishSides(ctx, true);
		const pid = ctx.n8n.pid!;
		const sides: Array<[string, BurstSide]> = [['Webhook node', plain], ['Social Aggregator Trigger, version 2', ours], ...extras.map((e): [string, BurstSide] => [e.label, e.side])];
		for (const [, side] of sides) await sendBlock(ctx.n8n, side.id, ctx.n8n.webhookUrl(side.path), side.secret, post, 50, settings.deliveryConcurrency);
		const client = await inspector(port);
		try {
			await client.send('Profiler.enable');
			await client.send('Profiler.setSamplingInterval', { interval: 500 });
			for (const [name, side] of sides) {
				const before = threadCpu(pid);
				await client.send('Profiler.start');
				const block = await sendBlock(ctx.n8n, side.id, ctx.n8n.webhookUrl(side.path), side.secret, post, settings.deliveries, settings.deliveryConcurrency);
				const { profile } = (await client.send('Profiler.stop')) as unknown as { profile: CpuProfile };
				const after = threadCpu(pid);
				const file = path.join(dir, `${name.replace(/\W+/g, '-')}.cpuprofile`);
				writeFileSync(file, JSON.stringify(profile));
				const threads = [...after.entries()]
					.map(([thread, seconds]): [string, number] => [thread, ((seconds - (before.get(thread) ?? 0)) * 1000) / block.deliveries])
					.filter(([, ms]) => ms >= 0.5)
					.sort((a, b) => b[1] - a[1]);
				const { byPackage, inclusive, topSelf } = analyse(profile, block.deliveries);
				const fmt = (list: Array<[string, number]>) => list.map(([key, ms]) => `    ${ms.toFixed(2).padStart(7)} ms  ${key}`).join('\n');
				lines.push(
					`\n== ${name}: ${block.perSecond.toFixed(1)}/s, ${block.cpuMsPerDelivery.toFixed(1)} ms CPU/delivery (n8n and children), ${block.failed} failed`,
					`  CPU per delivery by thread of n8n's process:\n${fmt(threads)}`,
					`  main thread, self time per delivery by package:\n${fmt(byPackage)}`,
					`  main thread, time per delivery inside:\n${fmt(inclusive)}`,
					`  main thread, top self time per delivery:\n${fmt(topSelf)}`,
				);
				settings.progress(`B4 profile: ${name} done (${block.cpuMsPerDelivery.toFixed(1)} ms CPU/delivery)`);
			}
		} finally {
			client.close();
		}
	} finally {
		await ctx.close();
	}
	return lines.join('\n');
}
