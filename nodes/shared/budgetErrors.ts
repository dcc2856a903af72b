import type { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { duration, planText, platformCredits, type BudgetPlan } from './budget';
import { plural } from './utils';
import { BUDGET_WAIT_FIELD } from './requestOptions';

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
