/**
 * B6: the peak memory of a Return All of 50,000 posts, the Social Aggregator node against
 * n8n's HTTP Request node paginated as documented then Split Out (B1's two workflows on a
 * bigger feed), as the resident memory (RSS) of n8n's process.
 *
 * A process's high-water mark (`VmHWM`) cannot be reset, and what one run leaves on V8's heap
 * changes the next run's peak: so every run (each side, each time) gets a fresh `n8n start`
 * of the same user folder and database, waits for n8n to settle, and is measured alone
 * (bench/lib/memory.ts). The sides alternate (A B, B A, …). Both run under the same settings:
 * the execution data is saved to the database (`EXECUTIONS_DATA_SAVE_ON_SUCCESS=all`, n8n's
 * default), no binary data is involved, the Webhook node answers when the last node has
 * finished (no data). The measurement ends when n8n's record says the execution has stopped;
 * the run's items are read back afterwards, to check them.
 */
import type { FakeService } from '../test/fake-service';
import { count, normalLimits, requestCell, sameOrder, serviceOrder, timeCell, type BenchSettings, type Context } from './cases';
import { runThroughWebhook, startBench, type TimedRun } from './lib/harness';
import { mib, sampleMemory, type MemoryRun } from './lib/memory';
import { median, ratio, spread } from './lib/stats';
import { yes, type Row } from './lib/table';
import { httpFeedPosts, oursFeedPosts } from './workflows';

type Json = Record<string, unknown>;

export interface PeakMemorySettings extends BenchSettings {
	/** alternations of B6 (each run is a fresh n8n) */
	memoryRuns: number;
	/** posts in B6's feed */
	memoryPosts: number;
}

interface MemorySide extends MemoryRun {
	ms: number;
	requests: number;
	posts: number;
	complete: boolean;
	status: string;
}

/** How long n8n gets after its start (webhooks answering) before the idle RSS is read. */
const SETTLE_MS = 3000;

export async function runPeakMemory(settings: PeakMemorySettings): Promise<Row[]> {
	const POSTS = settings.memoryPosts;
	const PAGES = Math.ceil(POSTS / 100);
	let feedId = 0;
	const sides = {
		ours: { name: 'B6 Social Aggregator', webhook: 'bench-b6-ours', output: 'Social Aggregator' },
		http: { name: 'B6 HTTP Request', webhook: 'bench-b6-http', output: 'Posts' },
	};
	const prepare = (fake: FakeService, refs: Parameters<typeof httpFeedPosts>[3]) => {
		feedId = fake.control.seedFeed({ posts: POSTS, name: 'Bench B6' }).feedId;
		return [
			{ spec: oursFeedPosts(sides.ours.name, sides.ours.webhook, feedId), webhooks: [sides.ours.webhook] },
			{ spec: httpFeedPosts(sides.http.name, sides.http.webhook, feedId, refs), webhooks: [sides.http.webhook] },
		];
	};
	const ctx: Context = await startBench(prepare, { label: 'n8n-bench-b6' });
	try {
		const control = ctx.fake.control;
		normalLimits(ctx.fake);
		control.setLatency(0);
		const expected = await serviceOrder(ctx, feedId, PAGES);
		if (new Set(expected).size !== POSTS) throw new Error(`B6: the service lists ${new Set(expected).size} distinct posts, not ${POSTS}`);
		let fresh = true;
		const run = (side: keyof typeof sides) => async (): Promise<MemorySide> => {
			const { name, webhook, output } = sides[side];
			if (!fresh) await ctx.restart();
			fresh = false;
			await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
			normalLimits(ctx.fake);
			control.setLatency(settings.latencyMs);
			control.requests.clear();
			const pid = ctx.n8n.pid;
			if (pid === undefined) throw new Error('B6: n8n is not running');
			const sampler = sampleMemory(pid);
			let timed: TimedRun;
			try {
				timed = await runThroughWebhook(ctx.n8n, ctx.ids.get(name)!, webhook, {}, { waitMs: 300_000 });
			} catch (error) {
				sampler.stop();
				throw error;
			}
			const memory: MemoryRun = sampler.stop();
			control.setLatency(0);
			const requests = control.requests.list().filter((entry) => entry.path.startsWith(`/feeds/${feedId}/posts`)).length;
			// Read back after the measurement: n8n's answer with 50,000 posts costs memory of its own.
			let items: Json[] = [];
			try {
				items = (await ctx.n8n.execution(timed.executionId)).items(output) as Json[];
			} catch {
				// the node did not run or failed: no items
			}
			const result: MemorySide = {
				...memory,
				ms: timed.ms,
				requests,
				posts: items.length,
				complete: timed.status === 'success' && sameOrder(items, expected),
				status: timed.status,
			};
			settings.progress(
				`B6 ${name}: peak RSS ${mib(result.peakKb)}${result.exact ? ' (VmHWM)' : ' (sampled)'}, idle ${mib(result.idleKb)}; ` +
					`tree of ${result.processes} processes ${mib(result.treeIdleKb)} → ${mib(result.treePeakKb)}; ` +
					`${timed.ms} ms, ${requests} requests, ${items.length} posts${result.complete ? ' in order' : ''}, ${result.samples} samples`,
			);
			return result;
		};
		const ours: MemorySide[] = [];
		const http: MemorySide[] = [];
		for (let index = 0; index < settings.memoryRuns; index++) {
			if (index % 2 === 0) {
				ours.push(await run('ours')());
				http.push(await run('http')());
			} else {
				http.push(await run('http')());
				ours.push(await run('ours')());
			}
		}

		const peak = (list: MemorySide[]) => list.map((entry) => entry.peakKb);
		const growth = (list: MemorySide[]) => list.map((entry) => entry.peakKb - entry.idleKb);
		const peakRatio = median(peak(ours)) / median(peak(http));
		const growthRatio = median(growth(ours)) / median(growth(http));
		const memoryCell = (list: MemorySide[]) => {
			const exact = list.filter((entry) => entry.exact).length;
			const children = Math.max(...list.map((entry) => entry.processes)) - 1;
			return (
				`peak RSS ${mib(median(peak(list)))} (${spread(peak(list), mib)}; VmHWM in ${exact}/${list.length}), ` +
				`${mib(median(growth(list)))} above idle ${mib(median(list.map((entry) => entry.idleKb)))} (${spread(growth(list), mib)}); ` +
				`with its ${children} child process${children === 1 ? '' : 'es'} ${mib(median(list.map((entry) => entry.treePeakKb)))}; ` +
				`${count(median(list.map((entry) => entry.posts)))} posts, ${list.filter((entry) => entry.complete).length}/${list.length} runs complete, in order`
			);
		};
		const label = `B6 peak memory, Return All of ${count(POSTS)} posts (n8n's process RSS, fresh n8n per run)`;
		const allComplete = [...ours, ...http].every((entry) => entry.complete);
		return [
			{
				case: label,
				side: 'Social Aggregator',
				requests: requestCell(ours.map((entry) => entry.requests)),
				time: timeCell(ours.map((entry) => entry.ms)),
				result: memoryCell(ours),
				ratio: `peak ${ratio(peakRatio)} of HTTP Request's; above idle ${ratio(growthRatio)}`,
				target: '≤1.1x of peak RSS',
				met: yes(peakRatio <= 1.1 && allComplete),
			},
			{
				case: label,
				side: 'HTTP Request paginated, then Split Out',
				requests: requestCell(http.map((entry) => entry.requests)),
				time: timeCell(http.map((entry) => entry.ms)),
				result: memoryCell(http),
				ratio: '1.00x',
				target: '',
				met: '',
			},
		];
	} finally {
		await ctx.close();
	}
}
