/**
 * B4 burst: what a burst costs n8n, the Social Aggregator Trigger beside n8n's plain Webhook node
 * in the same n8n. Both start the same side effect (an HTTP Request carrying the delivery id,
 * counted at the service). Deliveries go in blocks of `block` (1,000), 8 senders at once, the
 * sides alternating block by block; a block ends when its last execution has stopped. A 503 is
 * retried after its Retry-After, as the service does. Per block: deliveries per second (first send
 * until the last execution stopped), n8n's CPU per delivery (utime + stime of the `n8n start`
 * process and its children, from /proc), the most executions in flight, how long the last
 * execution ran on after the last answer, and the peak RSS of the n8n process while the block ran.
 * The Trigger gets one block more than the Webhook node: after as many deliveries as the Webhook
 * side got, it has that many remembered (the steady state). Every delivery is checked to have been
 * acted on exactly once.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

import { node, webhookPath, workflow, type CredentialRef, type WorkflowSpec } from '../test/e2e/lib/workflow';
import { marker, oursChecked, subscriptionSecret } from './checked';
import { deliveryBody, sign } from './lib/deliveries';
import { executionPage, startBench, type BenchN8n } from './lib/harness';
import type { N8n } from '../test/e2e/lib/n8n';
import type { FakeService } from '../test/fake-service';
import { descendants, mib, sampleMemory } from './lib/memory';
import { integer as count, ratio } from './lib/stats';
import { yes, type Row } from './lib/table';

const MARK = 'bench_delivery';

/** The plain Webhook node (respond at once) → the same side effect. */
export function plainMarked(refs: { bearer: CredentialRef; baseUrl: string }, path: string): WorkflowSpec {
	return workflow('B4B Webhook', [marker('={{ $json.body.id }}', refs)], {
		first: {
			type: 'n8n-nodes-base.webhook',
			name: 'Webhook',
			typeVersion: 2.1,
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		},
	});
}

/** How many times the side effect ran for each delivery id, from the service's request log. */
export function actedOnCounts(fake: FakeService): Map<string, number> {
	const acted = new Map<string, number>();
	for (const request of fake.control.requests.list({ method: 'GET', path: '/account' })) {
		const id = (request.query as Record<string, unknown>)[MARK];
		if (typeof id === 'string') acted.set(id, (acted.get(id) ?? 0) + 1);
	}
	return acted;
}

/** CPU seconds used so far by `pid` and its descendants (utime + stime). */
function cpuSeconds(pid: number): number {
	const ticks = (p: number) => {
		try {
			const fields = readFileSync(`/proc/${p}/stat`, 'utf8').slice(readFileSync(`/proc/${p}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ');
			return Number(fields[11]) + Number(fields[12]);
		} catch {
			return 0;
		}
	};
	return [pid, ...descendants(pid)].reduce((sum, p) => sum + ticks(p), 0) / 100;
}

export interface BurstBlock {
	deliveries: number;
	perSecond: number;
	cpuMsPerDelivery: number;
	/** answers 503 (retried) and answers neither 200 nor 503 */
	busy: number;
	failed: number;
	maxInFlight: number;
	/** ms from the last answer until the last execution of the block stopped */
	tailMs: number;
	peakRssKb: number;
	ids: string[];
}

/**
 * Sends one block to `url` and waits until its last execution has stopped. Without `actedOn` the
 * block's executions are counted and timed from n8n's records; with it (for an n8n that does not
 * keep successful executions, EXECUTIONS_DATA_SAVE_ON_SUCCESS=none), the block has been processed
 * once `actedOn` counts every delivery acted on (its side effect seen) and no execution of the
 * workflow is new or running.
 */
export async function sendBlock(
	n8n: N8n,
	workflowId: string,
	url: string,
	secret: string,
	post: Record<string, unknown>,
	size: number,
	concurrency: number,
	actedOn?: (ids: string[]) => number,
): Promise<BurstBlock> {
	const pid = n8n.pid;
	if (pid === undefined) throw new Error('B4 burst: n8n is not running');
	const before = (await executionPage(n8n, workflowId, 1)).count;
	const bodies = Array.from({ length: size }, () => deliveryBody(post));
	const cpuBefore = cpuSeconds(pid);
	const memory = sampleMemory(pid, 100);
	let next = 0;
	let busy = 0;
	let failed = 0;
	let maxInFlight = 0;
	let answered = 0;
	let polling = true;
	const poller = (async () => {
		while (polling) {
			const page = await executionPage(n8n, workflowId, 100);
			maxInFlight = Math.max(maxInFlight, page.results.filter((e) => !e.stoppedAt || ['new', 'running'].includes(e.status)).length);
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	})();
	const started = Date.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < size) {
				const body = bodies[next++];
				for (;;) {
					const response = await fetch(url, {
						method: 'POST',
						headers: { 'content-type': 'application/json', 'X-Service-Signature': sign(secret, body) },
						body,
					});
					await response.arrayBuffer();
					if (response.status === 503) {
						busy++;
						await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)));
						continue;
					}
					if (response.status !== 200) failed++;
					break;
				}
			}
		}),
	);
	answered = Date.now();
	let lastStop = answered;
	const ids = bodies.map((body) => (JSON.parse(body) as { id: string }).id);
	for (;;) {
		const page = await executionPage(n8n, workflowId, 100);
		const unfinished = page.results.some((e) => !e.stoppedAt || ['new', 'running'].includes(e.status));
		if (actedOn) {
			const acted = actedOn(ids);
			if (acted >= size - failed) lastStop = Math.max(lastStop, Date.now());
			if ((acted >= size - failed && !unfinished) || Date.now() - answered > 600_000) break;
		} else {
			const stops = page.results.map((e) => Date.parse(e.stoppedAt ?? '')).filter(Number.isFinite);
			if (stops.length > 0) lastStop = Math.max(lastStop, ...stops);
			if ((page.count - before >= size - failed && !unfinished) || Date.now() - answered > 600_000) break;
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	polling = false;
	await poller;
	const run = memory.stop();
	const cpu = cpuSeconds(pid) - cpuBefore;
	return {
		deliveries: size,
		perSecond: size / ((lastStop - started) / 1000),
		cpuMsPerDelivery: (1000 * cpu) / size,
		busy,
		failed,
		maxInFlight,
		tailMs: lastStop - answered,
		peakRssKb: run.peakKb,
		ids,
	};
}

/**
 * Blocks taken as one: deliveries per second over their summed time (each block's first send until
 * its last execution stopped), CPU per delivery weighted by deliveries, the worst tail, the highest
 * peak RSS.
 */
export function combined(blocks: BurstBlock[]): BurstBlock {
	const deliveries = blocks.reduce((sum, b) => sum + b.deliveries, 0);
	const sum = (value: (b: BurstBlock) => number) => blocks.reduce((total, b) => total + value(b), 0);
	return {
		deliveries,
		perSecond: deliveries / sum((b) => b.deliveries / b.perSecond),
		cpuMsPerDelivery: sum((b) => b.cpuMsPerDelivery * b.deliveries) / deliveries,
		busy: sum((b) => b.busy),
		failed: sum((b) => b.failed),
		maxInFlight: Math.max(...blocks.map((b) => b.maxInFlight)),
		tailMs: Math.max(...blocks.map((b) => b.tailMs)),
		peakRssKb: Math.max(...blocks.map((b) => b.peakRssKb)),
		ids: blocks.flatMap((b) => b.ids),
	};
}

/** One line of a block's figures, for progress output. */
export function describeBlock(b: BurstBlock): string {
	return `${b.perSecond.toFixed(1)}/s, ${b.cpuMsPerDelivery.toFixed(1)} ms CPU/delivery, ${b.busy} answered 503 (retried), ${b.failed} failed, at most ${b.maxInFlight} in flight, last execution ${(b.tailMs / 1000).toFixed(1)} s after its block's last answer, peak RSS ${mib(b.peakRssKb)}`;
}

export interface BurstSettings {
	burst: number;
	block: number;
	deliveryConcurrency: number;
	progress: (message: string) => void;
}

export interface BurstSide {
	id: string;
	/** the production webhook path */
	path: string;
	/** the secret its deliveries are signed with */
	secret: string;
}

/**
 * Publishes the sides of a burst in a started bench n8n: the Trigger (version 2, subscribed with the
 * fake service) and the plain Webhook node; when `minimal`, also the minimal trigger (version 2; its
 * package must be among the bench's `extraPackages`) and the Trigger at version 1 (what n8n costs a
 * version 1 webhook node). All start the same side effect.
 */
export async function publishSides(
	ctx: BenchN8n,
	minimal: boolean,
): Promise<{ post: Record<string, unknown>; ours: BurstSide; plain: BurstSide; extras: Array<{ label: string; side: BurstSide }> }> {
	const refs = { bearer: ctx.bearer, baseUrl: ctx.backend.url };
	const trigger = async (name: string, typeVersion: number) => {
		const spec = oursChecked(refs, name, typeVersion);
		const id = await ctx.n8n.importWorkflow(spec);
		const path = webhookPath(spec, 'On New Posts');
		await ctx.n8n.publish(id);
		await ctx.n8n.waitForWebhook(path);
		const { secret, post } = await subscriptionSecret(ctx.backend.url, ctx.backend.apiKey, ctx.fake, ctx.n8n.webhookUrl(path));
		return { side: { id, path, secret }, post };
	};
	const { side: ours, post } = await trigger('B4B Social Aggregator Trigger', 2);
	const plain = { id: await ctx.n8n.importWorkflow(plainMarked(refs, 'bench-b4-burst')), path: 'bench-b4-burst', secret: ours.secret };
	await ctx.n8n.publish(plain.id);
	await ctx.n8n.waitForWebhook(plain.path);
	const extras: Array<{ label: string; side: BurstSide }> = [];
	if (minimal) {
		const spec = workflow('B4B Minimal Trigger', [marker('={{ $json.id }}', refs)], {
			first: node('n8n-nodes-bench-minimal.benchMinimalTrigger', { secret: ours.secret }, { name: 'Minimal', typeVersion: 2, webhookId: randomUUID() }),
		});
		const mini = { id: await ctx.n8n.importWorkflow(spec), path: webhookPath(spec, 'Minimal'), secret: ours.secret };
		await ctx.n8n.publish(mini.id);
		await ctx.n8n.waitForWebhook(mini.path);
		extras.push({ label: MINIMAL, side: mini });
		extras.push({ label: VERSION_1, side: (await trigger('B4B Social Aggregator Trigger v1', 1)).side });
	}
	return { post, ours, plain, extras };
}

const MINIMAL = 'minimal trigger (benchmark only: verify, emit; version 2)';
const VERSION_1 = 'Social Aggregator Trigger, node version 1';

/**
 * B4 burst in a fresh n8n started with `env`; `steady`: the Trigger gets one block more; `rateTarget`: the
 * Trigger's rate it must reach against the Webhook node's.
 */
export async function runBurst(
	settings: BurstSettings,
	{
		env = {},
		label,
		steady = true,
		minimal = false,
		rateTarget,
	}: { env?: Record<string, string>; label: string; steady?: boolean; minimal?: boolean; rateTarget?: number },
): Promise<Row[]> {
	const extraPackages = minimal ? [path.join(__dirname, 'minimal')] : [];
	const ctx = await startBench(() => [], { env, label: 'n8n-bench-burst', extraPackages });
	try {
		const { post, ours, plain, extras } = await publishSides(ctx, minimal);
		ctx.fake.control.requests.clear();
		const extraBlocks = extras.map(() => [] as BurstBlock[]);

		const blocks = Math.ceil(settings.burst / settings.block);
		const oursBlocks: BurstBlock[] = [];
		const plainBlocks: BurstBlock[] = [];
		for (let i = 0; i < blocks + (steady ? 1 : 0); i++) {
			if (i < blocks) {
				const p = await sendBlock(ctx.n8n, plain.id, ctx.n8n.webhookUrl(plain.path), plain.secret, post, settings.block, settings.deliveryConcurrency);
				plainBlocks.push(p);
				settings.progress(`B4 burst${label} Webhook block ${i + 1}: ${describeBlock(p)}`);
			}
			const o = await sendBlock(ctx.n8n, ours.id, ctx.n8n.webhookUrl(ours.path), ours.secret, post, settings.block, settings.deliveryConcurrency);
			oursBlocks.push(o);
			settings.progress(`B4 burst${label} Trigger block ${i + 1}: ${describeBlock(o)}`);
			for (const [index, extra] of extras.entries()) {
				if (i >= blocks) break;
				const e = await sendBlock(ctx.n8n, extra.side.id, ctx.n8n.webhookUrl(extra.side.path), extra.side.secret, post, settings.block, settings.deliveryConcurrency);
				extraBlocks[index].push(e);
				settings.progress(`B4 burst${label} ${extra.label} block ${i + 1}: ${describeBlock(e)}`);
			}
		}

		const acted = actedOnCounts(ctx.fake);
		const outcome = (list: BurstBlock[]) => {
			const ids = list.flatMap((b) => b.ids);
			const never = ids.filter((id) => !acted.has(id)).length;
			const twice = ids.filter((id) => (acted.get(id) ?? 0) > 1).length;
			const tail = Math.max(...list.map((b) => b.tailMs));
			return { ids: ids.length, never, twice, tail, busy: list.reduce((s, b) => s + b.busy, 0), failed: list.reduce((s, b) => s + b.failed, 0) };
		};
		const burstOurs = oursBlocks.slice(0, blocks);
		const o = outcome(oursBlocks);
		const p = outcome(plainBlocks);
		const peak = (list: BurstBlock[]) => combined(list).peakRssKb;
		const rate = (list: BurstBlock[]) => combined(list).perSecond;
		const cpu = (list: BurstBlock[]) => combined(list).cpuMsPerDelivery;
		const memoryRatio = peak(burstOurs) / peak(plainBlocks);
		const lastVsFirst = burstOurs.at(-1)!.perSecond / burstOurs[0].perSecond;
		const caseLabel = `B4 burst${label}: ${count(blocks * settings.block)} signed deliveries/side in blocks of ${count(settings.block)}, ${settings.deliveryConcurrency} at once`;
		const rows: Row[] = [
			{
				case: caseLabel,
				side: 'Social Aggregator Trigger',
				requests: count(o.ids),
				time: `${rate(burstOurs).toFixed(1)}/s, ${cpu(burstOurs).toFixed(1)} ms CPU/delivery`,
				result: `${o.never} never acted on, ${o.twice} twice, ${o.busy} answered 503 (retried), ${o.failed} failed; last execution ≤${(o.tail / 1000).toFixed(1)} s after its block's last answer; peak RSS ${mib(peak(burstOurs))}; last/first block ${ratio(lastVsFirst)}`,
				ratio: `${ratio(rate(burstOurs) / rate(plainBlocks))} of Webhook (rate), ${ratio(cpu(burstOurs) / cpu(plainBlocks))} (CPU), ${ratio(memoryRatio)} (peak RSS)`,
				target: `once each, tail <60 s, RSS ≤1.5x, last/first ≥0.87x${rateTarget === undefined ? '' : `, rate ≥${rateTarget}x`}`,
				met: yes(
					o.never === 0 &&
						o.twice === 0 &&
						o.failed === 0 &&
						o.tail < 60_000 &&
						memoryRatio <= 1.5 &&
						lastVsFirst >= 0.87 &&
						(rateTarget === undefined || rate(burstOurs) / rate(plainBlocks) >= rateTarget),
				),
			},
			{
				case: caseLabel,
				side: 'Webhook node (plain)',
				requests: count(p.ids),
				time: `${rate(plainBlocks).toFixed(1)}/s, ${cpu(plainBlocks).toFixed(1)} ms CPU/delivery`,
				result: `${p.never} never acted on, ${p.twice} twice, ${p.failed} failed; last execution ≤${(p.tail / 1000).toFixed(1)} s after its block's last answer; peak RSS ${mib(peak(plainBlocks))}`,
				ratio: '1.00x',
				target: '',
				met: '',
			},
		];
		for (const [index, extra] of extras.entries()) {
			const list = extraBlocks[index];
			const e = outcome(list);
			const cpuRatio = cpu(burstOurs) / cpu(list);
			rows.push({
				case: caseLabel,
				side: extra.label,
				requests: count(e.ids),
				time: `${rate(list).toFixed(1)}/s, ${cpu(list).toFixed(1)} ms CPU/delivery`,
				result: `${e.never} never acted on, ${e.twice} twice, ${e.failed} failed; peak RSS ${mib(peak(list))}`,
				ratio: `${ratio(rate(list) / rate(plainBlocks))} of Webhook (rate), ${ratio(cpu(list) / cpu(plainBlocks))} (CPU); the Trigger's CPU ${ratio(cpuRatio)} of it`,
				target: extra.label === MINIMAL ? 'Trigger ≤1.1x' : '',
				met: extra.label === MINIMAL ? yes(cpuRatio <= 1.1) : '',
			});
		}
		if (steady && oursBlocks.length > blocks) {
			const first = oursBlocks[0].cpuMsPerDelivery;
			const last = oursBlocks.at(-1)!.cpuMsPerDelivery;
			rows.push({
				case: caseLabel,
				side: `Trigger, deliveries ${count(blocks * settings.block + 1)}–${count((blocks + 1) * settings.block)} (after ${count(blocks * settings.block)} remembered)`,
				requests: count(settings.block),
				time: `${oursBlocks.at(-1)!.perSecond.toFixed(1)}/s, ${last.toFixed(1)} ms CPU/delivery`,
				result: `deliveries 1–${count(settings.block)}: ${oursBlocks[0].perSecond.toFixed(1)}/s, ${first.toFixed(1)} ms CPU/delivery`,
				ratio: `${ratio(last / first)} of the first block's CPU`,
				target: '≤1.15x',
				met: yes(last / first <= 1.15),
			});
		}
		return rows;
	} finally {
		await ctx.close();
	}
}
