import type { IAllExecuteFunctions, IDataObject } from 'n8n-workflow';

import { dataApiAnswer } from './answerShapes';
import type { DataSearch } from './dataSearch';
import { matchPlatform, platformStatus } from './platforms';
import type { RetryPolicy } from './retry';
import { apiRequestChecked, type RunBudget } from './transport';
import type { DataPost, PlatformStatus } from './types';
import { recordKey } from './utils';

/**
 * Data API cursor rounds: every platform that still has more, in one request per round (docs/service.md#cursor-rounds). The walk
 * (`collectRounds`) takes its fetcher as an argument; `requestDataRound` is the one request a search round sends.
 */

/** Per-platform failures worth asking again in a later round. */
const RETRYABLE_PLATFORM_ERRORS = ['fetch_timeout', 'platform_error'];

type PlatformState = 'first' | 'more' | 'done' | 'failed';

export interface PlatformProgress {
	platform: string;
	state: PlatformState;
	/** The cursor to continue from; none for a first page. */
	cursor: string | null;
	/** Distinct posts collected so far. */
	collected: number;
	/** Failed attempts in a row. */
	failures: number;
	error?: { code: string; message: string };
}

/** One round's answer: the items and `meta.platforms`. */
export interface RoundAnswer<T> {
	data: T[];
	statuses: PlatformStatus[];
}

/** One platform's answer in one round: a page, or a failed attempt. */
export interface PageRecord<T> {
	platform: string;
	/** This platform's page number (1-based) when it succeeded. */
	page?: number;
	status: PlatformStatus;
	/** The new items this page added, within the limit. */
	items: T[];
	/** The cursor this page was asked with (null for a first page). */
	cursorSent: string | null;
	/** True when the failure will be asked again in a later round. */
	willRetry?: boolean;
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

/**
 * One round's items by the platform asked they belong to. Items of no platform asked, or of one that failed, are
 * strays: kept (they were paid for), outside any limit, each once.
 */
export function sortRound<T extends { [key: string]: unknown }>(
	data: T[],
	asked: string[],
	report: Record<string, PlatformStatus | undefined>,
	fresh: (item: T) => boolean,
): { groups: Record<string, T[]>; stray: T[] } {
	const groups: Record<string, T[]> = Object.fromEntries(asked.map((p) => [p, []]));
	const stray: T[] = [];
	for (const item of data) {
		// With one platform asked, every item is that platform's, whatever it is called.
		const platform = asked.length === 1 ? asked[0] : matchPlatform(item.platform, asked);
		if (platform && report[platform]?.success) groups[platform].push(item);
		else if (fresh(item)) stray.push(item);
	}
	return { groups, stray };
}

/** The status of a platform asked that the answer did not report on: a failure, asked again like any other. */
function missingStatus(platform: string): PlatformStatus {
	return { platform, success: false, error_code: 'missing_status', message: 'The service did not report on this platform' };
}

/** How a round's pages are kept: the limit per platform, the retries, `take`, one check of every item, the pages so far. */
export interface PageRules<T> {
	limit: number;
	maxPlatformRetries: number;
	take?: RoundPlan<T>['take'];
	fresh: (item: T) => boolean;
	pageCount: Record<string, number>;
}

/**
 * One platform's page in a round: a success keeps its new items within the limit and moves its cursor and state on;
 * a failure is counted, and ends the platform unless it is worth asking again.
 */
export function settlePage<T>(
	p: PlatformProgress,
	status: PlatformStatus,
	candidates: T[],
	rules: PageRules<T>,
): PageRecord<T> {
	const record: PageRecord<T> = { platform: p.platform, status, items: [], cursorSent: p.cursor };
	if (!status.success) {
		const code = status.error_code ?? 'platform_error';
		p.error = { code, message: status.message ?? code };
		p.failures++;
		if (!RETRYABLE_PLATFORM_ERRORS.includes(code) || p.failures > rules.maxPlatformRetries) p.state = 'failed';
		record.willRetry = p.state !== 'failed';
		return record;
	}
	const taken = rules.take ? rules.take(p.platform, candidates) : { items: candidates };
	const room = rules.limit - p.collected;
	for (const item of taken.items) if (record.items.length < room && rules.fresh(item)) record.items.push(item);
	p.collected += record.items.length;
	p.cursor = status.next_cursor ?? null;
	// A cursor that does not move would page forever.
	const stuck = record.cursorSent !== null && p.cursor === record.cursorSent;
	const hasMore = Boolean(status.next_cursor) && status.has_more !== false;
	p.state = hasMore && p.collected < rules.limit && !stuck && !taken.finished ? 'more' : 'done';
	p.failures = 0;
	p.error = undefined;
	record.page = rules.pageCount[p.platform] = (rules.pageCount[p.platform] ?? 0) + 1;
	return record;
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
