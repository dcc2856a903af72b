/**
 * `npm run bench` (scripts/bench.sh): the package against n8n's own nodes in a real n8n,
 * the fake service as backend. Prints one table. See bench/README.md.
 */
import * as os from 'node:os';

import {
	budgetCase,
	dataSearchCase,
	deliveriesCase,
	feedPostsCase,
	packageRows,
	rateLimitCase,
	type BenchCase,
	type BenchSettings,
	type Baseline,
	type Context,
} from './cases';
import { runBurst } from './burst';
import { runChecked, runCheckedInQueue } from './checked';
import { runPeakMemory } from './peakMemory';
import { runProfile } from './profile';
import { packBaseline, type BaselinePackage } from './lib/baseline';
import { startBench } from './lib/harness';
import { renderTable, type Row } from './lib/table';

function numberFromEnv(name: string, fallback: number): number {
	const value = Number(process.env[name]);
	return Number.isFinite(value) && value > 0 ? value : fallback;
}

const settings: BenchSettings & { memoryRuns: number; memoryPosts: number } = {
	runs: numberFromEnv('BENCH_RUNS', 5),
	rateLimitRuns: numberFromEnv('BENCH_RATE_LIMIT_RUNS', 3),
	noRetryAfterRuns: numberFromEnv('BENCH_NO_RETRY_AFTER_RUNS', 2),
	budgetRuns: numberFromEnv('BENCH_BUDGET_RUNS', 2),
	deliveries: numberFromEnv('BENCH_DELIVERIES', 2000),
	deliveryBlocks: numberFromEnv('BENCH_DELIVERY_BLOCKS', 4),
	deliveryConcurrency: numberFromEnv('BENCH_DELIVERY_CONCURRENCY', 8),
	loadSamples: numberFromEnv('BENCH_LOAD_SAMPLES', 5),
	latencyMs: numberFromEnv('BENCH_LATENCY_MS', 30),
	memoryRuns: numberFromEnv('BENCH_MEMORY_RUNS', 3),
	memoryPosts: numberFromEnv('BENCH_MEMORY_POSTS', 50_000),
	progress: (message) => process.stderr.write(`[bench] ${message}\n`),
};

/** B1–B4 and B6 to run (BENCH_ONLY=B1,B3); B5 always runs. BENCH_DIAGNOSE=0 skips B4's second n8n. */
const only = (process.env.BENCH_ONLY ?? '').split(',').map((id) => id.trim().toUpperCase()).filter(Boolean);
const diagnose = process.env.BENCH_DIAGNOSE !== '0' && (only.length === 0 || only.includes('B4'));
/** B4 against the hand-built signature check, in one process and in queue mode (BENCH_QUEUE=0 skips the latter). */
const checked = only.length === 0 || only.includes('B4') || only.includes('B4C');
const queue = checked && process.env.BENCH_QUEUE !== '0';
/**
 * BENCH_BASELINE=<git ref>: B1 to B3 also for the package built from that commit, in a second
 * n8n, alternating with this tree's runs. BENCH_BASELINE_NO_RETRY_AFTER=1 adds B3's
 * real-minute case without Retry-After (a minute a run) to the baseline's runs.
 */
const baselineRef = (process.env.BENCH_BASELINE ?? '').trim();
const BASELINE_CASES = ['B1', 'B2', 'B3'];
/**
 * B4 burst (BENCH_ONLY=B4B): BENCH_BURST deliveries (5,000) per side in blocks of BENCH_BURST_BLOCK
 * (1,000), the Trigger one block more, in a fresh n8n under the default expression engine.
 * B4L: the same with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, 2 blocks a side, with B4M's sides.
 */
const burst = only.includes('B4B');
const lazy = only.includes('B4L');
/** B4M: the Trigger (versions 2 and 1), the Webhook node and a minimal trigger (bench/minimal) under the default engine, 2 blocks a side. */
const minimalRun = only.includes('B4M');
const burstSettings = {
	burst: numberFromEnv('BENCH_BURST', 5000),
	block: numberFromEnv('BENCH_BURST_BLOCK', 1000),
	deliveryConcurrency: settings.deliveryConcurrency,
	progress: settings.progress,
};
/**
 * B4P: a CPU profile of n8n per delivery, Webhook node, minimal trigger and Trigger in one n8n
 * (BENCH_PROFILE_DELIVERIES a side, 300); BENCH_PROFILE_LAZY=1 under N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true.
 */
const profileRun = only.includes('B4P');
/** B6, peak memory: its own n8n, started afresh for every run. */
const memory = only.length === 0 || only.includes('B6');

const load = () => os.loadavg()[0].toFixed(2);

async function main(): Promise<void> {
	const started = Date.now();
	const loads: string[] = [`${load()} at the start`];
	const cases: BenchCase[] = [feedPostsCase(), dataSearchCase(), rateLimitCase(), budgetCase(), deliveriesCase()].filter(
		(entry) => only.length === 0 || only.includes(entry.id),
	);
	const rows: Row[] = [];
	let versions = '';
	const compared = baselineRef ? cases.filter((entry) => BASELINE_CASES.includes(entry.id)) : [];
	let baselinePackage: BaselinePackage | undefined;
	if (compared.length > 0) {
		settings.progress(`BENCH_BASELINE=${baselineRef}: building and packing that commit's package`);
		baselinePackage = await packBaseline(baselineRef, settings.progress);
	}

	settings.progress('packing the package, starting the fake service and n8n (workflows published before the start)');
	const ctx = await startBench((fake, refs) => cases.flatMap((entry) => entry.prepare(fake, refs)));
	let baselineCtx: Context | undefined;
	try {
		versions = `n8n ${ctx.n8n.runtime.n8nVersion} on ${ctx.n8n.runtime.nodeBin.includes('node-24') ? 'Node 24' : 'Node'}; ${ctx.pkg.name} ${ctx.pkg.version}`;
		settings.progress(`n8n ready in ${ctx.startMs.ready} ms, webhooks active after ${ctx.startMs.webhooks ?? '-'} ms`);
		let baseline: Baseline | undefined;
		if (baselinePackage) {
			settings.progress(`baseline ${baselinePackage.label}: a second n8n with that package, its own fake service`);
			baselineCtx = await startBench((fake, refs) => compared.flatMap((entry) => entry.prepare(fake, refs)), {
				pkg: baselinePackage,
				label: 'n8n-bench-baseline',
			});
			baseline = { ctx: baselineCtx, label: baselinePackage.label, noRetryAfter: process.env.BENCH_BASELINE_NO_RETRY_AFTER === '1' };
			versions += `; baseline ${baselinePackage.label} = ${baselinePackage.commit} in a second n8n (dependencies: ${baselinePackage.dependencies})`;
		}
		for (const entry of cases) {
			settings.progress(`${entry.id} (load ${load()})`);
			rows.push(...(await entry.run(ctx, settings, compared.includes(entry) ? baseline : undefined)));
			loads.push(`${load()} after ${entry.id}`);
		}
		if (baselineCtx) {
			await baselineCtx.close();
			baselineCtx = undefined;
		}
		if (checked) {
			settings.progress(`B4 checked: the Trigger against Webhook + Crypto + IF (load ${load()})`);
			rows.push(...(await runChecked(ctx, { ...settings, steadyAfter: numberFromEnv('BENCH_CHECKED_STEADY', 5000) })));
			loads.push(`${load()} after B4 checked`);
		}
		rows.push(...(await packageRows(ctx, settings)));
	} finally {
		await baselineCtx?.close();
		await ctx.close();
	}

	if (diagnose) {
		// Where B4's gap comes from: n8n's default expression engine ("vm") takes an isolate for a
		// trigger's webhook phase unless the trigger is n8n's own Webhook node.
		const engine = 'legacy';
		settings.progress(`B4 diagnosis: a second n8n with N8N_EXPRESSION_ENGINE=${engine}`);
		const diagnosis = deliveriesCase({ label: ` diagnosis, N8N_EXPRESSION_ENGINE=${engine}:`, blocks: 2 });
		const second = await startBench((fake, refs) => diagnosis.prepare(fake, refs), { env: { N8N_EXPRESSION_ENGINE: engine } });
		try {
			rows.push(...(await diagnosis.run(second, { ...settings, deliveries: Math.ceil(settings.deliveries / 4) })));
			if (checked) {
				const rowsChecked = await runChecked(second, { ...settings, deliveries: Math.ceil(settings.deliveries / 4) });
				rows.push(...rowsChecked.map((row) => ({ ...row, case: row.case ? `${row.case} (diagnosis, N8N_EXPRESSION_ENGINE=${engine})` : '', met: '' })));
			}
			loads.push(`${load()} after the diagnosis`);
		} finally {
			await second.close();
		}
	}

	if (queue) {
		settings.progress('B4 queue mode: PostgreSQL, Redis, a main process, 2 workers, webhook processes A and B');
		rows.push(...(await runCheckedInQueue(settings)));
		loads.push(`${load()} after B4 queue mode`);
	}

	if (burst) {
		settings.progress(`B4 burst: ${burstSettings.burst} deliveries a side, default expression engine (load ${load()})`);
		rows.push(...(await runBurst(burstSettings, { label: ' (default engine)', minimal: process.env.BENCH_BURST_MINIMAL === '1' })));
		loads.push(`${load()} after B4 burst`);
	}

	if (minimalRun) {
		settings.progress(`B4 against a minimal trigger, default engine (load ${load()})`);
		rows.push(...(await runBurst({ ...burstSettings, burst: 2 * burstSettings.block }, { label: ', with a minimal trigger', steady: false, minimal: true })));
		loads.push(`${load()} after B4 minimal`);
	}

	let profileReport = '';
	if (profileRun) {
		const env: Record<string, string> = process.env.BENCH_PROFILE_LAZY === '1' ? { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } : {};
		settings.progress(`B4 profile ${JSON.stringify(env)} (load ${load()})`);
		profileReport = await runProfile({ ...burstSettings, deliveries: numberFromEnv('BENCH_PROFILE_DELIVERIES', 300) }, env);
		loads.push(`${load()} after B4 profile`);
	}

	if (lazy) {
		settings.progress(`B4 burst under N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true (load ${load()})`);
		const env = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };
		rows.push(...(await runBurst({ ...burstSettings, burst: 2 * burstSettings.block }, { env, label: ', N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true', steady: false, minimal: true, rateTarget: 0.9 })));
		loads.push(`${load()} after B4 lazy`);
	}

	if (memory) {
		settings.progress(`B6: peak memory of a Return All of ${settings.memoryPosts} posts, a fresh n8n per run (load ${load()})`);
		rows.push(...(await runPeakMemory(settings)));
		loads.push(`${load()} after B6`);
	}

	const minutes = ((Date.now() - started) / 60_000).toFixed(1);
	const header = [
		`npm run bench: ${versions}; fake service on 127.0.0.1 (${settings.latencyMs} ms added per request in B1–B3)`,
		`${new Date().toISOString()}, ${os.cpus().length} cores, 1-minute load average ${loads.join(', ')}; ${minutes} min`,
		`Times are n8n's execution records (startedAt to stoppedAt) of webhook-started runs; each comparison alternates its sides ${settings.runs} times (B3: ${settings.rateLimitRuns} runs under the limit, ${settings.noRetryAfterRuns} without Retry-After at the real minute${memory ? `; B6: ${settings.memoryRuns}, a fresh n8n each run` : ''}), medians with min–max.`,
	];
	process.stdout.write(`${header.join('\n')}\n\n${renderTable(rows)}\n${profileReport ? `\n${profileReport}\n` : ''}`);
}

main().catch((error) => {
	process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exit(1);
});
