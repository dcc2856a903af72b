import type { IAllExecuteFunctions, IDataObject } from 'n8n-workflow';

import { dataApiAnswer } from './answerShapes';
import type { DataSearch } from './dataSearch';
import { platformStatus } from './platforms';
import type { RetryPolicy } from './retry';
import { apiRequestChecked } from './transport';
import type { DataPost, PlatformStatus } from './types';
import { recordKey } from './utils';
import { settlePage, sortRound, type PageRecord, type PlatformProgress } from './roundPage';
import { type RunBudget } from './runBudget';

/**
 * Data API cursor rounds: every platform that still has more, in one request per round (docs/service.md#cursor-rounds). The walk
 * (`collectRounds`) takes its fetcher as an argument; `requestDataRound` is the one request a search round sends.
 */

/** One round's answer: the items and `meta.platforms`. */
export interface RoundAnswer<T> {
	data: T[];
	statuses: PlatformStatus[];
}

export interface RoundPlan<T> {
	platforms: string[];
	/** Posts wanted per platform; none for Return All. */
	limit?: number;
	/** Extra attempts for a platform after a retryable failure. */
	maxPlatformRetries?: number;
	/** Cursors to resume from, per platform. */
	cursors?: Record<string, string>;
	/** The most requests to send; the rest is left in `progress`. */
	maxRequests: number;
	/** Stop at the first platform that fails for good. */
	stopOnFailure?: boolean;
	fetchRound: (round: { platforms: string[]; cursor?: string }) => Promise<RoundAnswer<T>>;
	/** An item's identity, to drop one already kept; `recordKey` unless given. */
	key?: (item: T) => string | undefined;
	/** Which of a platform's new items to keep, and whether that platform needs no more pages. */
	take?: (platform: string, items: T[]) => { items: T[]; finished?: boolean };
	/** Before every request after the first, with the platforms it would continue: may refuse it (throw). */
	beforeRound?: (open: PlatformProgress[]) => void;
	/** A failure ends the rounds with what was collected and `failure` set, instead of throwing. */
	keepPartial?: boolean;
}

export interface RoundOutcome<T> {
	/** Every item kept, in the order the answers gave them. */
	items: T[];
	pages: Array<PageRecord<T>>;
	progress: PlatformProgress[];
	requests: number;
	/** The platform that failed for good when `stopOnFailure` ended the rounds. */
	stoppedBy?: PlatformProgress;
	/** True when `maxRequests` ended the rounds with platforms still open. */
	requestCapReached?: boolean;
	/** What ended the rounds part way (`keepPartial`): a refusal, or a request that failed after its retries. */
	failure?: unknown;
}

/**
 * Every Data API walk (search, profiles, the poll): each request carries every platform that has and needs more, so
 * Return All costs as many requests as the deepest platform has pages. Items are de-duplicated and held to the limit.
 */
export async function collectRounds<T extends { [key: string]: unknown }>(
	plan: RoundPlan<T>,
): Promise<RoundOutcome<T>> {
	const { limit = Number.POSITIVE_INFINITY, maxPlatformRetries = 2, cursors = {} } = plan;
	const progress = plan.platforms.map(
		(platform): PlatformProgress => ({
			platform,
			state: cursors[platform] ? 'more' : 'first',
			cursor: cursors[platform] ?? null,
			collected: 0,
			failures: 0,
		}),
	);
	const outcome: RoundOutcome<T> = { items: [], pages: [], progress, requests: 0 };
	const seen = new Set<string>();
	const pageCount: Record<string, number> = {};
	const fresh = (item: T) => {
		const key = (plan.key ?? recordKey)(item);
		if (key !== undefined && seen.has(key)) return false;
		if (key !== undefined) seen.add(key);
		return true;
	};

	for (;;) {
		// Every platform that has and needs more, with their cursors comma-joined (docs/service.md#cursor-rounds).
		const open = progress.filter((p) => (p.state === 'first' || p.state === 'more') && p.collected < limit);
		if (open.length === 0) return outcome;
		if (outcome.requests >= plan.maxRequests) return { ...outcome, requestCapReached: true };
		const asked = open.map((p) => p.platform);
		const cursor = open.flatMap((p) => (p.cursor ? [p.cursor] : [])).join(',');
		const fetch = async () => {
			if (outcome.requests > 0) plan.beforeRound?.(open);
			return await plan.fetchRound({ platforms: asked, ...(cursor ? { cursor } : {}) });
		};
		let answer: RoundAnswer<T>;
		if (plan.keepPartial) {
			try {
				answer = await fetch();
			} catch (error) {
				return { ...outcome, failure: error };
			}
		} else {
			answer = await fetch();
		}
		outcome.requests++;
		const report = Object.fromEntries(asked.map((p) => [p, platformStatus(answer.statuses, p)]));
		const { groups, stray } = sortRound(answer.data, asked, report, fresh);
		for (const p of open) {
			const status = report[p.platform] ?? missingStatus(p.platform);
			const record = settlePage(p, status, groups[p.platform], { limit, maxPlatformRetries, take: plan.take, fresh, pageCount });
			outcome.pages.push(record);
			outcome.items.push(...record.items);
		}
		outcome.items.push(...stray);

		const failed = open.find((p) => p.state === 'failed');
		if (plan.stopOnFailure && failed) return { ...outcome, stoppedBy: failed };
	}
}

/** The status of a platform asked that the answer did not report on: a failure, asked again like any other. */
function missingStatus(platform: string): PlatformStatus {
	return { platform, success: false, error_code: 'missing_status', message: 'The service did not report on this platform' };
}

/** The item for a platform that failed for good, in every Data API output. */
export function platformFailureItem(
	platform: string,
	error: { code?: string; message?: string } | undefined,
	failedAttempts: number,
): IDataObject {
	const code = error?.code ?? 'platform_error';
	return {
		type: 'platform_status',
		platform,
		success: false,
		error_code: code,
		message: error?.message ?? code,
		failed_attempts: failedAttempts,
	};
}

/** One round of a search (GET /data/posts), its answer checked before it is used. */
export async function requestDataRound(
	ctx: IAllExecuteFunctions,
	search: DataSearch,
	round: { platforms: string[]; cursor?: string },
	options: { itemIndex?: number; retry?: Partial<RetryPolicy>; budget?: RunBudget } = {},
): Promise<RoundAnswer<DataPost>> {
	const qs: IDataObject = { term: search.term, platforms: round.platforms.join(',') };
	if (search.termType) qs.term_type = search.termType;
	if (round.cursor) qs.cursor = round.cursor;
	const request = { method: 'GET' as const, path: '/data/posts', qs, ...options };
	return (await apiRequestChecked(ctx, request, dataApiAnswer)) as RoundAnswer<DataPost>;
}
