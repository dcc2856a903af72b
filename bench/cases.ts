/**
 * The benchmark cases. Each one seeds the fake service and names its workflows (`prepare`,
 * before n8n starts), then runs them in the started n8n (`run`) and returns its table rows.
 * Both sides of a comparison run alternately (A B, B A, …) and the table shows medians.
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';

import { node, webhookPath, workflow } from '../test/e2e/lib/workflow';
import type { FakeService } from '../test/fake-service';
import { deliverBlock, type DeliveryBlock, type DeliveryTarget } from './lib/deliveries';
import { runThroughWebhook, type BenchN8n, type BenchRefs, type Published } from './lib/harness';
import { folderSize, loadTimes, medianLoadMs, runtimeDependencies } from './lib/package';
import { bytes, integer, median, ratio, seconds, spread } from './lib/stats';
import { yes, type Row } from './lib/table';
import {
	B2_PAGES,
	B2_TERM,
	FEED_COMPLETE,
	httpDataSearch,
	httpFeedPosts,
	oursDataSearch,
	oursFeedPosts,
	webhookStart,
} from './workflows';

export interface BenchSettings {
	/** alternations of each timed comparison */
	runs: number;
	/** runs of B3's rate-limited Return All */
	rateLimitRuns: number;
	/** runs of B3 without Retry-After (each waits a real minute) */
	noRetryAfterRuns: number;
	/** runs of B3B, the wait for a key's hourly budget (each about 80 s) */
	budgetRuns: number;
	/** B4: deliveries per side, blocks they are split into (alternating sides), senders at once */
	deliveries: number;
	deliveryBlocks: number;
	deliveryConcurrency: number;
	/** B5: fresh-process samples of n8n's loader */
	loadSamples: number;
	/** latency the fake service adds to every /v1 request in B1–B3 */
	latencyMs: number;
	progress: (message: string) => void;
}

export type Context = BenchN8n & { ids: Map<string, string> };

/**
 * BENCH_BASELINE: a second n8n (own user folder, port and fake service; the same n8n) with
 * the package built from another commit. B1 to B3 run its Social Aggregator side too,
 * alternating with this tree's, and add a row for it.
 */
export interface Baseline {
	ctx: Context;
	/** the ref as given and its commit, for the table */
	label: string;
	/** also run B3's real-minute case without Retry-After (BENCH_BASELINE_NO_RETRY_AFTER=1) */
	noRetryAfter: boolean;
}

export interface BenchCase {
	id: string;
	/** Seeds a fake service and names the workflows; called once per n8n (the baseline's too). */
	prepare(fake: FakeService, refs: BenchRefs): Published[];
	run(ctx: Context, settings: BenchSettings, baseline?: Baseline): Promise<Row[]>;
}

type Json = Record<string, unknown>;

/** What one timed run of one side gave. */
export interface SideRun {
	ms: number;
	requests: number;
	status: string;
	items: Json[];
	error?: string;
}

/** Runs a webhook-started workflow once; requests are the fake's log of that run (on `pathPrefix`). */
async function runSide(
	ctx: Context,
	name: string,
	webhook: string,
	outputNode: string,
	{ body = {}, pathPrefix }: { body?: unknown; pathPrefix: string },
): Promise<SideRun> {
	const control = ctx.fake.control;
	control.requests.clear();
	const run = await runThroughWebhook(ctx.n8n, ctx.ids.get(name)!, webhook, body);
	const requests = control.requests.list().filter((entry) => entry.path.startsWith(pathPrefix)).length;
	const execution = await ctx.n8n.execution(run.executionId);
	let items: Json[] = [];
	try {
		items = execution.items(outputNode) as Json[];
	} catch {
		// the node did not run or failed: no items
	}
	const error = execution.error ? String(execution.error.message ?? '') : undefined;
	return { ms: run.ms, requests, status: run.status, items, error };
}

/** Alternates sides `runs` times, forwards then backwards (A B C, C B A, A B C, …); the runs of each side. */
export async function alternateAll<T>(runs: number, sides: Array<() => Promise<T>>): Promise<T[][]> {
	const result = sides.map(() => [] as T[]);
	for (let index = 0; index < runs; index++) {
		const order = sides.map((_, side) => side);
		if (index % 2 === 1) order.reverse();
		for (const side of order) result[side].push(await sides[side]());
	}
	return result;
}

/** Alternates two sides `runs` times (A B, B A, A B, …). */
export async function alternate<T>(runs: number, a: () => Promise<T>, b: () => Promise<T>): Promise<{ a: T[]; b: T[] }> {
	const [first, second] = await alternateAll(runs, [a, b]);
	return { a: first, b: second };
}

/** The row of the baseline's Social Aggregator side, against this tree's. */
function baselineRow(
	label: string,
	baseline: Baseline,
	side: string,
	runs: { current: SideRun[]; base: SideRun[] },
	result: string,
	complete: boolean,
): Row {
	const ms = (list: SideRun[]) => list.map((run) => run.ms);
	const timeRatio = median(ms(runs.current)) / median(ms(runs.base));
	const requestsNow = median(runs.current.map((run) => run.requests));
	const requestsBefore = median(runs.base.map((run) => run.requests));
	return {
		case: label,
		side: `${side}, baseline ${baseline.label}`,
		requests: requestCell(runs.base.map((run) => run.requests)),
		time: timeCell(ms(runs.base)),
		result,
		ratio: `this tree ${ratio(timeRatio)} of its time`,
		target: '≤1.10x of its time, ≤ its requests',
		met: yes(timeRatio <= 1.1 && requestsNow <= requestsBefore && complete),
	};
}

export const count = (value: number) => value.toLocaleString('en-US');
export const timeCell = (values: number[]) => `${seconds(median(values))} (${spread(values, seconds)})`;
export const requestCell = (values: number[]) => {
	const low = Math.min(...values);
	const high = Math.max(...values);
	return low === high ? integer(low) : `${integer(median(values))} (${low}–${high})`;
};

/** The ids of a list as the service orders it, read page after page outside n8n. */
export async function serviceOrder(ctx: Context, feedId: number, pages: number): Promise<unknown[]> {
	const ids: unknown[] = [];
	for (let page = 1; page <= pages; page++) {
		const response = await fetch(`${ctx.backend.url}/feeds/${feedId}/posts?page=${page}&per_page=100`, {
			headers: { Authorization: `Bearer ${ctx.backend.apiKey}` },
		});
		const body = (await response.json()) as { data: Array<{ id: unknown }> };
		ids.push(...body.data.map((post) => post.id));
	}
	return ids;
}

/** A seeded feed's order under normal limits, read without the added latency, which is then set to `latencyMs`. */
async function feedOrder(on: Context, feedId: number, pages: number, latencyMs: number): Promise<unknown[]> {
	normalLimits(on.fake);
	on.fake.control.setLatency(0);
	const ids = await serviceOrder(on, feedId, pages);
	on.fake.control.setLatency(latencyMs);
	return ids;
}

export function sameOrder(items: Json[], expected: unknown[]): boolean {
	return items.length === expected.length && items.every((item, index) => item.id === expected[index]);
}

/** Sets the fake's rate limits to the Team plan of the seeded owner, with fresh windows. */
export function normalLimits(fake: FakeService): void {
	fake.control.rateLimits.clear();
	fake.control.rateLimits.setEnabled(true);
	fake.control.rateLimits.setWindowScale(1);
}

// ---------------------------------------------------------------------------
// B1: feed posts, Return All, 5,000 posts, 30 ms a request
// ---------------------------------------------------------------------------

export function feedPostsCase(): BenchCase {
	const POSTS = 5000;
	const PAGES = POSTS / 100;
	/** the seeded feed in each fake service (this tree's n8n, the baseline's) */
	const feeds = new Map<FakeService, number>();
	return {
		id: 'B1',
		prepare(fake, refs) {
			const feedId = fake.control.seedFeed({ posts: POSTS, name: 'Bench B1' }).feedId;
			feeds.set(fake, feedId);
			return [
				{ spec: oursFeedPosts('B1 Social Aggregator', 'bench-b1-ours', feedId), webhooks: ['bench-b1-ours'] },
				{ spec: httpFeedPosts('B1 HTTP Request', 'bench-b1-http', feedId, refs), webhooks: ['bench-b1-http'] },
			];
		},
		async run(ctx, settings, baseline) {
			const order = async (on: Context) => await feedOrder(on, feeds.get(on.fake)!, PAGES, settings.latencyMs);
			const expected = await order(ctx);
			const expectedBefore = baseline ? await order(baseline.ctx) : [];
			const side = (on: Context, name: string, webhook: string, output: string, tag = '') => async () => {
				normalLimits(on.fake);
				const run = await runSide(on, name, webhook, output, { pathPrefix: `/feeds/${feeds.get(on.fake)!}/posts` });
				settings.progress(`B1 ${name}${tag}: ${run.ms} ms, ${run.requests} requests, ${run.items.length} posts`);
				return run;
			};
			const [ours, http, before = []] = await alternateAll(settings.runs, [
				side(ctx, 'B1 Social Aggregator', 'bench-b1-ours', 'Social Aggregator'),
				side(ctx, 'B1 HTTP Request', 'bench-b1-http', 'Posts'),
				...(baseline ? [side(baseline.ctx, 'B1 Social Aggregator', 'bench-b1-ours', 'Social Aggregator', `, baseline ${baseline.label}`)] : []),
			]);
			ctx.fake.control.setLatency(0);
			baseline?.ctx.fake.control.setLatency(0);
			const result = (list: SideRun[], ids = expected) => {
				const complete = list.filter((run) => run.status === 'success' && sameOrder(run.items, ids)).length;
				return `${count(median(list.map((run) => run.items.length)))} posts; ${complete}/${list.length} runs complete, in order`;
			};
			const speedup = median(http.map((run) => run.ms)) / median(ours.map((run) => run.ms));
			const ourRequests = median(ours.map((run) => run.requests));
			const allComplete = ours.every((run) => run.status === 'success' && sameOrder(run.items, expected));
			const label = `B1 feed posts Return All (${count(POSTS)} posts, ${settings.latencyMs} ms/request)`;
			return [
				{
					case: label,
					side: 'Social Aggregator',
					requests: requestCell(ours.map((run) => run.requests)),
					time: timeCell(ours.map((run) => run.ms)),
					result: result(ours),
					ratio: `${ratio(speedup, 1)} faster`,
					target: `${PAGES} requests, ≥2x faster`,
					met: yes(ourRequests === PAGES && speedup >= 2 && allComplete),
				},
				...(baseline
					? [baselineRow(label, baseline, 'Social Aggregator', { current: ours, base: before }, result(before, expectedBefore), allComplete)]
					: []),
				{
					case: label,
					side: 'HTTP Request, documented pagination',
					requests: requestCell(http.map((run) => run.requests)),
					time: timeCell(http.map((run) => run.ms)),
					result: result(http),
					ratio: '1.0x',
					target: '',
					met: '',
				},
			];
		},
	};
}

// ---------------------------------------------------------------------------
// B2: Data API, Return All over 6 platforms of 1 to 8 pages
// ---------------------------------------------------------------------------

export function dataSearchCase(): BenchCase {
	const deepest = Math.max(...Object.values(B2_PAGES));
	const sum = Object.values(B2_PAGES).reduce((total, pages) => total + pages, 0);
	return {
		id: 'B2',
		prepare(fake, refs) {
			for (const [platform, pages] of Object.entries(B2_PAGES)) {
				fake.control.data.configure(platform, { term: B2_TERM, termType: 'username', pages });
			}
			return [
				{ spec: oursDataSearch('B2 Social Aggregator Data', 'bench-b2-ours'), webhooks: ['bench-b2-ours'] },
				{ spec: httpDataSearch('B2 HTTP Request', 'bench-b2-http', refs), webhooks: ['bench-b2-http'] },
			];
		},
		async run(ctx, settings, baseline) {
			ctx.fake.control.setLatency(settings.latencyMs);
			baseline?.ctx.fake.control.setLatency(settings.latencyMs);
			const body = { platforms: Object.keys(B2_PAGES) };
			const side = (on: Context, name: string, webhook: string, output: string, tag = '') => async () => {
				normalLimits(on.fake);
				const run = await runSide(on, name, webhook, output, { body, pathPrefix: '/data/posts' });
				settings.progress(`B2 ${name}${tag}: ${run.ms} ms, ${run.requests} requests, ${run.items.length} posts`);
				return run;
			};
			const [ours, http, before = []] = await alternateAll(settings.runs, [
				side(ctx, 'B2 Social Aggregator Data', 'bench-b2-ours', 'Social Aggregator Data'),
				side(ctx, 'B2 HTTP Request', 'bench-b2-http', 'Posts'),
				...(baseline
					? [side(baseline.ctx, 'B2 Social Aggregator Data', 'bench-b2-ours', 'Social Aggregator Data', `, baseline ${baseline.label}`)]
					: []),
			]);
			ctx.fake.control.setLatency(0);
			baseline?.ctx.fake.control.setLatency(0);
			const keys = (run: SideRun) => run.items.map((post) => `${String(post.platform)}:${String(post.id)}`).sort().join('\n');
			const reference = keys(http[0]);
			const result = (list: SideRun[]) => {
				const same = list.filter((run) => run.status === 'success' && keys(run) === reference).length;
				return `${count(median(list.map((run) => run.items.length)))} posts; ${same}/${list.length} runs with the same posts`;
			};
			const fewer = median(http.map((run) => run.requests)) / median(ours.map((run) => run.requests));
			const faster = median(http.map((run) => run.ms)) / median(ours.map((run) => run.ms));
			const label = `B2 Data API Return All (6 platforms, ${Math.min(...Object.values(B2_PAGES))}–${deepest} pages, ${sum} in all)`;
			return [
				{
					case: label,
					side: 'Social Aggregator Data',
					requests: requestCell(ours.map((run) => run.requests)),
					time: timeCell(ours.map((run) => run.ms)),
					result: result(ours),
					ratio: `${ratio(fewer, 1)} fewer requests, ${ratio(faster, 1)} faster`,
					target: `${deepest} requests (deepest), ≥2x fewer`,
					met: yes(ours.every((run) => run.requests === deepest && keys(run) === reference) && fewer >= 2),
				},
				...(baseline
					? [
							baselineRow(
								label,
								baseline,
								'Social Aggregator Data',
								{ current: ours, base: before },
								result(before),
								ours.every((run) => run.status === 'success' && keys(run) === reference),
							),
						]
					: []),
				{
					case: label,
					side: 'HTTP Request per platform (6 items)',
					requests: requestCell(http.map((run) => run.requests)),
					time: timeCell(http.map((run) => run.ms)),
					result: result(http),
					ratio: '1.0x',
					target: '',
					met: '',
				},
			];
		},
	};
}

// ---------------------------------------------------------------------------
// B3: Return All of 100 pages under a rate limit; the HTTP Request node and one 429
// ---------------------------------------------------------------------------

export function rateLimitCase(): BenchCase {
	const POSTS = 10_000;
	const PAGES = POSTS / 100;
	const BURST = 60;
	const WINDOW_MS = 6000; // 60 s scaled by 0.1
	const FAULT_PAGE = PAGES / 2;
	/** the seeded feed in each fake service (this tree's n8n, the baseline's) */
	const feeds = new Map<FakeService, number>();
	const http = [
		{ name: 'B3 HTTP Request', webhook: 'bench-b3-http', side: 'HTTP Request, documented pagination', extra: {} },
		{
			name: 'B3 HTTP Request, Retry On Fail',
			webhook: 'bench-b3-http-retry',
			side: 'HTTP Request + Retry On Fail (3 tries)',
			extra: { settings: { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 } },
		},
		{
			name: 'B3 HTTP Request, Never Error',
			webhook: 'bench-b3-http-never',
			side: 'HTTP Request + Never Error, `?.` in Complete When',
			extra: { neverError: true, complete: FEED_COMPLETE.replace(/\.meta\./g, '.meta?.') },
		},
	];
	return {
		id: 'B3',
		prepare(fake, refs) {
			const feedId = fake.control.seedFeed({ posts: POSTS, name: 'Bench B3' }).feedId;
			feeds.set(fake, feedId);
			return [
				{ spec: oursFeedPosts('B3 Social Aggregator', 'bench-b3-ours', feedId), webhooks: ['bench-b3-ours'] },
				...http.map((variant) => ({
					spec: httpFeedPosts(variant.name, variant.webhook, feedId, refs, variant.extra),
					webhooks: [variant.webhook],
				})),
			];
		},
		async run(ctx, settings, baseline) {
			const control = ctx.fake.control;
			const prefixOf = (on: Context) => `/feeds/${feeds.get(on.fake)!}/posts`;
			const order = async (on: Context) => await feedOrder(on, feeds.get(on.fake)!, PAGES, settings.latencyMs);
			const expected = await order(ctx);
			const expectedBefore = baseline ? await order(baseline.ctx) : [];
			const rows: Row[] = [];

			// Under the limit: 60 requests a minute, fresh windows for every run. With Retry-After the
			// minute is scaled to 6 s; without it the node waits the documented minute, so the window is real.
			// The baseline's side, when there is one, alternates with this tree's (A B, B A, …).
			const underLimit = async (options: { windowMs: number; retryAfter: boolean; runs: number; target: number; withBaseline: boolean }) => {
				const floorMs = (Math.ceil(PAGES / BURST) - 1) * options.windowMs;
				const label = options.retryAfter ? '' : ' without Retry-After';
				type Limited = SideRun & { limited: number };
				const side = (on: Context, tag = '') => async (): Promise<Limited> => {
					const limits = on.fake.control.rateLimits;
					limits.clear();
					limits.setWindowScale(options.windowMs / 60_000);
					limits.setRetryAfter(options.retryAfter);
					limits.set(on.fake.control.keys.owner, { burstPerMinute: BURST, requestsPerHour: null });
					const path = prefixOf(on);
					const run = await runSide(on, 'B3 Social Aggregator', 'bench-b3-ours', 'Social Aggregator', { pathPrefix: path });
					const refused = on.fake.control.requests.list().filter((entry) => entry.path.startsWith(path) && entry.status === 429).length;
					settings.progress(`B3 Social Aggregator${tag} under the limit${label}: ${run.ms} ms (${(run.ms / floorMs).toFixed(3)}x), ${run.requests} requests, ${refused} answered 429`);
					limits.setRetryAfter(true);
					normalLimits(on.fake);
					return { ...run, limited: refused };
				};
				const before = options.withBaseline && baseline ? baseline : undefined;
				const [limited, limitedBefore = []] = await alternateAll(options.runs, [
					side(ctx),
					...(before ? [side(before.ctx, `, baseline ${before.label}`)] : []),
				]);
				const failed = (list: Limited[], ids: unknown[]) => list.filter((run) => run.status !== 'success' || !sameOrder(run.items, ids)).length;
				const failures = failed(limited, expected);
				const limitRatio = median(limited.map((run) => run.ms)) / floorMs;
				const scaled = options.windowMs === 60_000 ? '' : ` scaled to ${BURST}/${options.windowMs / 1000} s`;
				const caseLabel = `B3 Return All ${PAGES} pages, limit ${BURST}/min${scaled}${label}`;
				const requests = (list: Limited[]) => `${requestCell(list.map((run) => run.requests))} (${requestCell(list.map((run) => run.limited))} were 429)`;
				const result = (list: Limited[], ids: unknown[]) =>
					`${count(median(list.map((run) => run.items.length)))} posts; ${failed(list, ids)} failed or incomplete of ${list.length}`;
				rows.push({
					case: caseLabel,
					side: 'Social Aggregator',
					requests: requests(limited),
					time: timeCell(limited.map((run) => run.ms)),
					result: result(limited, expected),
					ratio: `${ratio(limitRatio)} of ${seconds(floorMs)} floor`,
					target: `≤${options.target}x, 0 failures`,
					met: yes(limitRatio <= options.target && failures === 0),
				});
				if (before) {
					const runs = { current: limited, base: limitedBefore };
					const row = baselineRow(caseLabel, before, 'Social Aggregator', runs, result(limitedBefore, expectedBefore), failures === 0);
					const ratioBefore = median(limitedBefore.map((run) => run.ms)) / floorMs;
					rows.push({ ...row, requests: requests(limitedBefore), ratio: `${row.ratio}; ${ratio(ratioBefore)} of floor` });
				}
			};
			await underLimit({ windowMs: WINDOW_MS, retryAfter: true, runs: settings.rateLimitRuns, target: 1.15, withBaseline: true });
			await underLimit({
				windowMs: 60_000,
				retryAfter: false,
				runs: settings.noRetryAfterRuns,
				target: 1.2,
				withBaseline: baseline?.noRetryAfter === true,
			});

			// One 429 half-way, no limit otherwise: what each side returns, and whether it says so.
			const label = `B3 one 429 (Retry-After: 1) at page ${FAULT_PAGE} of ${PAGES}`;
			const oneFault = async (name: string, webhook: string, output: string, on: Context = ctx, tag = '') => {
				const faults = on.fake.control;
				faults.faults.clear();
				faults.injectFault({ kind: 'error', status: 429, method: 'GET', path: '/feeds/:id/posts', query: { page: String(FAULT_PAGE) }, retryAfter: 1 });
				normalLimits(on.fake);
				const run = await runSide(on, name, webhook, output, { pathPrefix: prefixOf(on) });
				faults.faults.clear();
				settings.progress(`B3 ${name}${tag} with one 429: ${run.status}, ${run.items.length} posts, ${run.requests} requests`);
				return run;
			};
			const says = (run: SideRun) =>
				run.status === 'success' ? 'execution "success", no error' : `execution "${run.status}": ${run.error ?? ''}`;
			const ours = await oneFault('B3 Social Aggregator', 'bench-b3-ours', 'Social Aggregator');
			rows.push({
				case: label,
				side: 'Social Aggregator',
				requests: integer(ours.requests),
				time: seconds(ours.ms),
				result: `${count(ours.items.length)} of ${count(POSTS)} posts${sameOrder(ours.items, expected) ? ', in order' : ''}; ${says(ours)}`,
				ratio: '',
				target: 'all posts, no error',
				met: yes(ours.status === 'success' && sameOrder(ours.items, expected)),
			});
			if (baseline) {
				const before = await oneFault('B3 Social Aggregator', 'bench-b3-ours', 'Social Aggregator', baseline.ctx, `, baseline ${baseline.label}`);
				rows.push({
					case: label,
					side: `Social Aggregator, baseline ${baseline.label}`,
					requests: integer(before.requests),
					time: seconds(before.ms),
					result: `${count(before.items.length)} of ${count(POSTS)} posts${sameOrder(before.items, expectedBefore) ? ', in order' : ''}; ${says(before)}`,
					ratio: `this tree ${ratio(ours.ms / before.ms)} of its time (one run)`,
					target: '',
					met: '',
				});
			}
			for (const variant of http) {
				const run = await oneFault(variant.name, variant.webhook, 'Posts');
				const lost = POSTS - run.items.length;
				rows.push({
					case: label,
					side: variant.side,
					requests: integer(run.requests),
					time: seconds(run.ms),
					result: `${count(run.items.length)} of ${count(POSTS)} posts; ${says(run)}`,
					ratio: lost > 0 && run.status === 'success' ? `${count(lost)} posts lost silently` : lost > 0 ? 'fails, no posts' : '',
					target: '',
					met: '',
				});
			}
			control.setLatency(0);
			baseline?.ctx.fake.control.setLatency(0);
			return rows;
		},
	};
}

// ---------------------------------------------------------------------------
// B3B: Return All of 100 pages over a key's hourly budget, waiting for it
// ---------------------------------------------------------------------------

/**
 * The key may send 30 requests an "hour" of 20 s (a burst of 10 a "minute" of a third of a second), the stand-in sends
 * no Retry-After, and its X-RateLimit-* headers tell the window. A Return All of 100 pages with *Wait for Rate
 * Limit Budget* allowed: the floor is pages ÷ budget per window, 100 ÷ 30 × 20 s = 66.7 s. Every post once, in order.
 */
export function budgetCase(): BenchCase {
	const POSTS = 10_000;
	const PAGES = POSTS / 100;
	const PER_HOUR = 30;
	const BURST = 10;
	const HOUR_MS = 20_000;
	const floorMs = (PAGES / PER_HOUR) * HOUR_MS;
	const feeds = new Map<FakeService, number>();
	const name = 'B3B Social Aggregator, wait for the budget';
	return {
		id: 'B3B',
		prepare(fake, refs) {
			const feedId = fake.control.seedFeed({ posts: POSTS, name: 'Bench B3B' }).feedId;
			feeds.set(fake, feedId);
			const spec = oursFeedPosts(name, 'bench-b3b-ours', feedId, { budgetWait: 600 });
			const ours = spec.nodes.find((entry) => entry.name === 'Social Aggregator')!;
			if (refs.shrunkHour) ours.credentials = { socialAggregatorApi: { id: refs.shrunkHour.id, name: refs.shrunkHour.name } };
			return [{ spec, webhooks: ['bench-b3b-ours'] }];
		},
		async run(ctx, settings) {
			const feedId = feeds.get(ctx.fake)!;
			const expected = await feedOrder(ctx, feedId, PAGES, settings.latencyMs);
			const limits = ctx.fake.control.rateLimits;
			const runs: Array<SideRun & { lost: number; duplicated: number; limited: number }> = [];
			for (let index = 0; index < settings.budgetRuns; index++) {
				// A new "hour" for the stand-in and for n8n's count of the key (it outlives a run, as for users).
				await new Promise((resolve) => setTimeout(resolve, HOUR_MS + 500));
				limits.clear();
				limits.setWindowScale(HOUR_MS / 3_600_000);
				limits.setRetryAfter(false);
				limits.set(ctx.fake.control.keys.owner, { requestsPerHour: PER_HOUR, burstPerMinute: BURST });
				const path = `/feeds/${feedId}/posts`;
				const run = await runSide(ctx, name, 'bench-b3b-ours', 'Social Aggregator', { pathPrefix: path });
				const limited = ctx.fake.control.requests.list().filter((entry) => entry.path === path && entry.status === 429).length;
				limits.setRetryAfter(true);
				normalLimits(ctx.fake);
				const ids = run.items.map((item) => item.id);
				const lost = expected.filter((id) => !ids.includes(id)).length;
				const duplicated = ids.length - new Set(ids).size;
				settings.progress(`B3B run ${index + 1}: ${run.ms} ms (${(run.ms / floorMs).toFixed(3)}x of the floor), ${run.requests} requests (${limited} answered 429), ${lost} lost, ${duplicated} duplicated, ${run.status}`);
				runs.push({ ...run, lost, duplicated, limited });
			}
			ctx.fake.control.setLatency(0);
			const failures = runs.filter((run) => run.status !== 'success' || run.lost > 0 || run.duplicated > 0 || !sameOrder(run.items, expected)).length;
			const timeRatio = median(runs.map((run) => run.ms)) / floorMs;
			return [
				{
					case: `B3B Return All ${PAGES} pages, ${PER_HOUR} requests per ${HOUR_MS / 1000} s "hour" (burst ${BURST}), no Retry-After, wait for the budget`,
					side: 'Social Aggregator',
					requests: `${requestCell(runs.map((run) => run.requests))} (${requestCell(runs.map((run) => run.limited))} were 429)`,
					time: timeCell(runs.map((run) => run.ms)),
					result: `${count(median(runs.map((run) => run.items.length)))} posts; ${runs.reduce((sum, run) => sum + run.lost, 0)} lost, ${runs.reduce((sum, run) => sum + run.duplicated, 0)} duplicated; ${failures} failed, incomplete or out of order of ${runs.length}`,
					ratio: `${ratio(timeRatio)} of ${seconds(floorMs)} floor`,
					target: '≤1.1x, 0 lost, 0 duplicated',
					met: yes(timeRatio <= 1.1 && failures === 0),
				},
			];
		},
	};
}

// ---------------------------------------------------------------------------
// B4: signed deliveries to the Trigger and to n8n's plain Webhook node
// ---------------------------------------------------------------------------

export function deliveriesCase({ label = '', blocks }: { label?: string; blocks?: number } = {}): BenchCase {
	const trigger = workflow('B4 Social Aggregator Trigger', [], {
		first: node('socialAggregatorTrigger', { events: ['post.created'], options: { allowHttp: true } }, { name: 'On New Posts', typeVersion: 2 }),
	});
	const plain = workflow('B4 Webhook', [], { first: webhookStart('bench-b4-plain', { responseMode: 'onReceived' }) });
	const triggerPath = webhookPath(trigger, 'On New Posts');
	return {
		id: 'B4',
		prepare() {
			return [
				{ spec: trigger, webhooks: [triggerPath] },
				{ spec: plain, webhooks: ['bench-b4-plain'] },
			];
		},
		async run(ctx, settings) {
			const headers = { Authorization: `Bearer ${ctx.backend.apiKey}` };
			const subscriptions = (await (await fetch(`${ctx.backend.url}/webhooks?per_page=100`, { headers })).json()) as {
				data: Array<{ id: number; url: string }>;
			};
			const triggerUrl = ctx.n8n.webhookUrl(triggerPath);
			const subscription = subscriptions.data.find((entry) => entry.url === triggerUrl);
			if (!subscription) throw new Error(`B4: the Trigger did not subscribe ${triggerUrl} with the service`);
			const secret = ctx.fake.control.webhooks.secret(subscription.id);
			const post = ((await (await fetch(`${ctx.backend.url}/feeds/1/posts?per_page=1`, { headers })).json()) as { data: Json[] }).data[0];
			const targets: Record<'ours' | 'plain', DeliveryTarget> = {
				ours: { url: triggerUrl, workflowId: ctx.ids.get(trigger.name)!, secret },
				plain: { url: ctx.n8n.webhookUrl('bench-b4-plain'), workflowId: ctx.ids.get(plain.name)!, secret },
			};
			const blockCount = blocks ?? settings.deliveryBlocks;
			const perBlock = Math.ceil(settings.deliveries / blockCount);
			const block = (side: 'ours' | 'plain') => async () => {
				const result = await deliverBlock(ctx.n8n, targets[side], post, { count: perBlock, concurrency: settings.deliveryConcurrency });
				settings.progress(
					`B4${label} ${side === 'ours' ? 'Trigger' : 'Webhook'}: ${result.deliveries} deliveries, ${result.perSecond.toFixed(1)}/s, ${result.failed} not 200, ${result.succeeded}/${result.executions} executions succeeded`,
				);
				return result;
			};
			const runs = await alternate(blockCount, block('ours'), block('plain'));
			const perSecond = (list: DeliveryBlock[]) => list.map((entry) => entry.perSecond);
			const rate = (list: DeliveryBlock[]) => `${median(perSecond(list)).toFixed(1)}/s (${spread(perSecond(list), (v) => v.toFixed(1))})`;
			const outcome = (list: DeliveryBlock[]) => {
				const sent = list.reduce((total, entry) => total + entry.deliveries, 0);
				const ok = list.reduce((total, entry) => total + entry.deliveries - entry.failed, 0);
				const succeeded = list.reduce((total, entry) => total + entry.succeeded, 0);
				return `${count(ok)}/${count(sent)} answered 200, ${count(succeeded)} executions succeeded`;
			};
			const relative = median(perSecond(runs.a)) / median(perSecond(runs.b));
			const total = perBlock * blockCount;
			const caseLabel = `B4${label} ${count(total)} signed deliveries/side, ${settings.deliveryConcurrency} at once, ${blockCount} alternating blocks`;
			const allGood = runs.a.every((entry) => entry.failed === 0 && entry.succeeded === entry.deliveries);
			return [
				{
					case: caseLabel,
					side: 'Social Aggregator Trigger',
					requests: count(total),
					time: rate(runs.a),
					result: outcome(runs.a),
					ratio: `${ratio(relative)} of Webhook`,
					target: label ? '(diagnosis)' : '≥0.9x of Webhook',
					met: label ? '' : yes(relative >= 0.9 && allGood),
				},
				{
					case: caseLabel,
					side: 'Webhook node (plain)',
					requests: count(total),
					time: rate(runs.b),
					result: outcome(runs.b),
					ratio: '1.00x',
					target: '',
					met: '',
				},
			];
		},
	};
}

// ---------------------------------------------------------------------------
// B5: the package itself
// ---------------------------------------------------------------------------

export async function packageRows(ctx: Context, settings: BenchSettings): Promise<Row[]> {
	const packageDir = path.join(ctx.n8n.userFolder, '.n8n', 'nodes', 'node_modules', ctx.pkg.name);
	const samples = loadTimes(ctx.n8n.runtime, packageDir, settings.loadSamples);
	const loadMs = medianLoadMs(samples);
	settings.progress(`B5 load: ${samples.map((sample) => sample.ms.toFixed(1)).join(', ')} ms`);
	const dist = folderSize(path.join(packageDir, 'dist'));
	const tarballBytes = statSync(ctx.pkg.tarball).size;
	const dependencies = runtimeDependencies(packageDir);
	const { nodes, credentials } = samples[0];
	const label = 'B5 the package';
	return [
		{
			case: label,
			side: "n8n's package loader, fresh process",
			requests: '',
			time: `${(loadMs / 1000).toFixed(3)} s (${spread(samples.map((s) => s.ms / 1000), (v) => v.toFixed(3))})`,
			result: `${nodes} nodes, ${credentials} credential loaded`,
			ratio: '',
			target: '',
			met: '',
		},
		{
			case: label,
			side: 'dist as installed; packed tarball',
			requests: '',
			time: '',
			result: `${bytes(dist.bytes)} in ${dist.files} files; tarball ${bytes(tarballBytes)}`,
			ratio: '',
			target: '',
			met: '',
		},
		{
			case: label,
			side: 'runtime dependencies',
			requests: '',
			time: '',
			result: `${dependencies.declared.length} declared, ${dependencies.installed.length} installed beside it`,
			ratio: '',
			target: '0',
			met: yes(dependencies.declared.length === 0 && dependencies.installed.length === 0),
		},
	];
}
