import { NodeOperationError } from 'n8n-workflow';
import type { IAllExecuteFunctions, IDataObject, IExecuteFunctions, INode, NodeApiError } from 'n8n-workflow';

import { checkBaseUrl } from './baseUrl';
import { BudgetLedger, DEFAULT_LIMITS, duration, ledgerFor, planText, platformCredits, type BudgetPlan, type KeyLimits } from './budget';
import { CREDENTIAL_NAME } from './constants';
import { BUDGET_WAIT_FIELD } from './requestOptions';
import { RESET_MARGIN_MS, retryTiming, type RetryPolicy } from './retry';
import { isEmptyValue, plural } from './utils';

// A run's use of the key's budget (budget.ts keeps the ledger): what the run may wait for it, the wait before each
// attempt and after a 429 the ledger explains, the budget a node run takes from its credential, and what the user
// reads when the budget stops a run.

/** What one run (a Return All, a search, a poll) may wait for the key's budget, and has waited, across its requests. */
export interface RunBudget {
	/** The most the run may wait in all, in milliseconds; 0: it may not wait. */
	capMs: number;
	/** Time spent waiting, counted once however many requests wait together. */
	waitedMs: number;
	/** The end of the last wait counted. */
	waitedUntil: number;
	/** Says what the run does about the budget, and every wait before it starts (the execution's log). */
	log?: (text: string) => void;
}

function runBudget(capMs = 0, log?: RunBudget['log']): RunBudget {
	return { capMs, waitedMs: 0, waitedUntil: 0, log };
}

/** What a request counts itself against: the key's ledger, and its run's share of waiting. */
export interface BudgetUse {
	ledger: BudgetLedger;
	run: RunBudget;
}

/**
 * Before an attempt: when the key's budget has nothing left and the run may wait, the wait, within the run's cap; then
 * the attempt's place in the budget, taken at once.
 */
export async function awaitBudget(node: INode, budget: BudgetUse, itemIndex: number | undefined): Promise<void> {
	const { ledger, run } = budget;
	for (;;) {
		const now = retryTiming.now();
		if (run.capMs <= 0 || ledger.left(now) > 0) {
			ledger.reserve(now);
			return;
		}
		const waitMs = Math.max(1, ledger.freesAt(now) - now);
		// Requests waiting side by side wait the same time once.
		const counted = Math.max(0, now + waitMs - Math.max(now, run.waitedUntil));
		if (run.waitedMs + counted > run.capMs) throw budgetCapError(node, ledger, run, waitMs, itemIndex);
		if (counted > 0) {
			run.log?.(`waiting ${duration(waitMs)}: the key's rate-limit budget is spent until then (waited ${duration(run.waitedMs)} of the ${duration(run.capMs)} allowed)`);
		}
		run.waitedMs += counted;
		run.waitedUntil = Math.max(run.waitedUntil, now + waitMs);
		await retryTiming.sleep(waitMs);
	}
}

/** The budget ran out and the run may not wait (long enough): the numbers, and what to do. */
function budgetSpentError(node: INode, ledger: BudgetLedger, itemIndex: number | undefined): NodeOperationError {
	const now = retryTiming.now();
	return new NodeOperationError(node, `The key's rate-limit budget is spent: no request is allowed for ${duration(ledger.freesAt(now) - now)}`, {
		itemIndex,
		description: `The service answered 429 (rate limit exceeded) and ${ledger.limits.perWindow > 0 ? `the key's ${ledger.limits.perWindow} requests per hour are used up` : 'the limit is not the burst'}. Run again once it frees up, or set "${BUDGET_WAIT_FIELD}" under Request Options to let the node wait for it.`,
	});
}

/** Waiting for the budget would pass the cap the user set. */
function budgetCapError(node: INode, ledger: BudgetLedger, run: RunBudget, waitMs: number, itemIndex: number | undefined) {
	const plan = ledger.plan(1, retryTiming.now());
	return new NodeOperationError(
		node,
		`The key's rate-limit budget is spent and waiting ${duration(waitMs)} more would pass the ${duration(run.capMs)} allowed ("${BUDGET_WAIT_FIELD}")`,
		{ itemIndex, description: `${planText(plan, retryTiming.now())}. Raise "${BUDGET_WAIT_FIELD}" under Request Options, or run again once the budget frees up.` },
	);
}

/**
 * After a 429 without Retry-After: whether the ledger explains it as the hour's budget spent (not the burst), and what
 * to do. `'not spent'`: the retry policy decides. `'in run'`: the run may wait for the budget, so the next attempt waits
 * in `awaitBudget` (not counted as an attempt). Else the wait until the budget frees, or the error when that wait would
 * pass `maxTotalWaitMs` with what the request `waitedMs` already.
 */
export function hourBudgetWait(
	node: INode,
	budget: BudgetUse | undefined,
	waited: { waitedMs: number; maxTotalWaitMs: number; itemIndex: number | undefined },
): 'not spent' | 'in run' | number {
	const now = retryTiming.now();
	if (!budget?.ledger.spentWindow(now)) return 'not spent';
	const { ledger, run } = budget;
	if (run.capMs > 0) return 'in run';
	const freeMs = ledger.freesAt(now) - now + RESET_MARGIN_MS;
	if (waited.waitedMs + freeMs > waited.maxTotalWaitMs) throw budgetSpentError(node, ledger, waited.itemIndex);
	return freeMs;
}

/**
 * The key's limits from the credential (the defaults of docs/service.md#rate-limits where a field is missing), over an hour: a service
 * that counts another window tells it in its `X-RateLimit-*` headers, which the ledger reads.
 */
function limitsFrom(credentials: { requestsPerHour?: unknown; burstPerMinute?: unknown }): KeyLimits {
	const read = (value: unknown, fallback: number) => {
		const n = Number(value);
		return isEmptyValue(value) || !Number.isFinite(n) || n < 0 ? fallback : n;
	};
	return {
		perWindow: Math.floor(read(credentials.requestsPerHour, DEFAULT_LIMITS.perWindow)),
		burst: Math.floor(read(credentials.burstPerMinute, DEFAULT_LIMITS.burst)),
		windowMs: DEFAULT_LIMITS.windowMs,
	};
}

/** The key's budget for a run's requests, from the credential; none when the credential cannot be read. */
export async function keyBudget(
	ctx: IAllExecuteFunctions,
	itemIndex: number | undefined,
	run: RunBudget = runBudget(),
): Promise<BudgetUse | undefined> {
	try {
		const credentials = await ctx.getCredentials<{ apiKey?: string; baseUrl?: string }>(CREDENTIAL_NAME, itemIndex);
		const limits = limitsFrom(credentials as IDataObject);
		// One service however its Base URL is typed (case of the host, trailing slashes): one ledger.
		const base = checkBaseUrl(credentials.baseUrl);
		const service = base.ok ? base.value : String(credentials.baseUrl ?? '');
		return { ledger: ledgerFor(service, String(credentials.apiKey ?? ''), limits), run };
	} catch {
		return undefined;
	}
}

/** The wait after a burst 429 without Retry-After: the key's minute, so the retry lands in a new one. */
export function burstRetry(budget: BudgetUse | undefined): Partial<RetryPolicy> {
	return budget ? { rateLimitWindowMs: budget.ledger.burstWindowMs() } : {};
}

/** A run's budget that logs its waits: the execution is waiting, not stuck. */
export function loggedRunBudget(ctx: IAllExecuteFunctions, capMs: number): RunBudget {
	const name = ctx.getNode().name;
	// In a manual run of a programmatic node, the editor's console shows it live too.
	const toEditor = (ctx as Partial<IExecuteFunctions>).sendMessageToUI;
	return runBudget(capMs, (text) => {
		ctx.logger.info(`${name}: ${text}`);
		if (typeof toEditor === 'function') toEditor.call(ctx, `${name}: ${text}`);
	});
}

/** A Return All refused because the key's budget cannot carry it (within the wait allowed): the numbers and what to do. */
export class BudgetRefusal extends Error {
	constructor(
		message: string,
		public readonly description: string,
	) {
		super(message);
	}
}

/** The seconds to allow under Request Options for a plan, rounded up to a tenth more than it needs. */
function secondsToAllow(plan: BudgetPlan): number {
	// Whole numbers until the one division: 3,000,000 ms × 1.1 would be 3300.0000000000005 s, advised as 3301.
	return Math.ceil((plan.waitMs * 11) / 10_000);
}

/** Page 1 of a page-numbered list said how many pages it has, and the budget cannot carry them. */
export function budgetRefusal(
	plan: BudgetPlan,
	now: number,
	list: { totalPages: number; capMs: number; perPage: number; limit?: number },
): BudgetRefusal {
	const allowed = list.capMs > 0 ? ` and the ${duration(list.capMs)} of waiting allowed` : '';
	const what = list.limit === undefined ? 'Return All' : `A Limit of ${list.limit}`;
	const message = `${what} needs ${plan.needed + 1} pages, more than the key's rate limit${allowed} can carry: ${planText(plan, now)}`;
	const description = [
		`Only page 1 of ${list.totalPages} was fetched (1 request); nothing more was spent.`,
		`Do one of: use a Limit of at most ${plan.left * list.perPage + list.perPage} (page 1 and the ${plural(plan.left, 'request')} left),`,
		`narrow the list (a status, a search or a date range),`,
		`or set "${BUDGET_WAIT_FIELD}" under Request Options to at least ${secondsToAllow(plan)} so the node waits for the rate limit and finishes.`,
	].join(' ');
	return new BudgetRefusal(message, description);
}

/** A list that stopped part way: how much was fetched, whether it is output, and how to go on. */
export function partialNote(
	error: NodeApiError | NodeOperationError,
	stopped: { items: number; pages: number; totalPages?: number; kept: boolean },
): void {
	const of = stopped.totalPages === undefined ? '' : ` of ${stopped.totalPages}`;
	const range = stopped.pages === 1 ? 'page 1' : `pages 1 to ${stopped.pages}`;
	const said = stopped.kept
		? `Stopped after ${plural(stopped.pages, 'page')}${of}. The ${plural(stopped.items, 'item')} of ${range}${of} ${stopped.items === 1 ? 'is' : 'are'} output before this error item, in order. To get the rest, run again with a Limit or a narrower filter, or once the rate limit frees up.`
		: `Stopped after ${plural(stopped.pages, 'page')}${of}: ${plural(stopped.items, 'item')} of ${range} were fetched and are not output: turn on Continue On Fail (Settings → On Error) to keep what a Return All fetched when it stops.`;
	// An unusable page's advice says nothing was output; with Continue On Fail the pages before it are.
	const before = stopped.kept ? error.description?.replace(/^Nothing was output for this item rather than a result with items missing\. /, '') : error.description;
	error.description = [before, said].filter(Boolean).join('\n');
}

/** The credits of pages of these platforms, in all and platform by platform ("Instagram 3 + Facebook 6"). */
function creditsOf(platforms: string[]): { total: number; text: string } {
	const count: Record<string, number> = {};
	for (const platform of platforms) count[platform] = (count[platform] ?? 0) + platformCredits(platform);
	const total = Object.values(count).reduce((sum, n) => sum + n, 0);
	return { total, text: Object.entries(count).map(([platform, n]) => `${platform} ${n}`).join(' + ') };
}

/** A Data API search the key's budget cannot carry further now, refused before its next request. */
export function roundsRefusal(plan: BudgetPlan, now: number, platforms: string[]): BudgetRefusal {
	const next = creditsOf(platforms);
	return new BudgetRefusal(
		`The key's rate limit allows no more requests now, so the search stopped before its next page: ${planText(plan, now)}`,
		`The next request (${platforms.join(', ')}) would cost ${plural(next.total, 'credit')} (${next.text}).`,
	);
}

/** What a Data API search that stopped part way fetched and paid, whether it is output, and how to go on. */
export function roundsNote(
	error: NodeApiError | NodeOperationError,
	outcome: {
		requests: number;
		items: unknown[];
		pages: Array<{ platform: string; status: { success: boolean } }>;
		progress: Array<{ platform: string; state: string; cursor: string | null }>;
	},
	kept: boolean,
): void {
	const paid = creditsOf(outcome.pages.filter((page) => page.status.success).map((page) => page.platform));
	const open = outcome.progress.filter((p) => p.state === 'first' || p.state === 'more');
	const next = creditsOf(open.map((p) => p.platform));
	const spent = `${plural(outcome.requests, 'request')} fetched ${plural(outcome.items.length, 'post')} and spent ${plural(paid.total, 'credit')}${paid.total > 0 ? ` (${paid.text})` : ''}`;
	const output = kept
		? 'They are output before this error item, with a status item per platform holding its next_cursor.'
		: 'They are not output: turn on Continue On Fail (Settings → On Error) to keep what a search fetched when it stops.';
	const cursors = open.filter((p) => p.cursor).map((p) => `${p.platform}: ${p.cursor}`);
	const unasked = open.filter((p) => !p.cursor).map((p) => p.platform);
	const platforms = open.map((p) => p.platform).join(', ');
	const resume =
		open.length > 0
			? `To go on without buying those pages again, search only ${platforms}${cursors.length > 0 ? ` with Options → Resume From Cursors (${cursors.join('; ')})` : ''}${unasked.length > 0 ? ` (${unasked.join(', ')} from the first page)` : ''}; each further request costs ${plural(next.total, 'credit')} (${next.text}) while these platforms have more.`
			: '';
	error.description = [error.description, `Stopped after ${spent}. ${output}`, resume].filter(Boolean).join('\n');
}
