import type { IDataObject } from 'n8n-workflow';

import {
	applyDataResponse,
	matchPlatform,
	nextDataRound,
	platformStatus,
	postKey,
	startDataRounds,
	type DataRoundOptions,
	type PlatformProgress,
} from '../../../shared/pagination';
import type { DataPost, DataPostsResponse, PlatformStatus } from '../../../shared/types';

/**
 * The Data API search as cursor rounds: every request carries every platform
 * that still has more and still needs more, so a Return All costs as many
 * requests as the deepest platform has pages. Pure apart from `fetchRound`,
 * which sends one request; the node passes the transport, tests pass a fake.
 */

export interface SearchPlan {
	platforms: string[];
	/** Posts wanted per platform; undefined for Return All. */
	limit?: number;
	/** Cursors to resume from, per platform. */
	cursors?: Record<string, string>;
	/** Extra attempts for a platform after `fetch_timeout` or `platform_error`. */
	maxPlatformRetries: number;
	/** Stop at the first platform that fails for good (the user chose to fail the item). */
	stopOnFailure: boolean;
	/** A safety net against a service that never stops paging. */
	maxRequests?: number;
}

export interface SearchRound {
	platforms: string[];
	cursor?: string;
}

/** One platform's answer in one round: a page, or a failed attempt. */
export interface PageRecord {
	platform: string;
	/** The request (1-based) that brought it. */
	request: number;
	/** This platform's page number (1-based) when it succeeded. */
	page?: number;
	status: PlatformStatus;
	/** The distinct posts this page added, within the limit. */
	posts: DataPost[];
	/** The cursor this page was asked with (null for a first page). */
	cursorSent: string | null;
	/** True when the failure will be asked again in a later round. */
	willRetry?: boolean;
}

export interface SearchOutcome {
	posts: DataPost[];
	pages: PageRecord[];
	progress: PlatformProgress[];
	requests: number;
	/** The platform that failed for good when `stopOnFailure` ended the search early. */
	stoppedBy?: PlatformProgress;
	/** True when `maxRequests` ended the search. */
	requestCapReached?: boolean;
}

export const DEFAULT_MAX_REQUESTS = 1000;

/**
 * Runs a search to its end: the rounds of nodes/shared/pagination.ts, with
 * posts de-duplicated across pages and held to the limit per platform.
 */
export async function runSearch(
	plan: SearchPlan,
	fetchRound: (round: SearchRound) => Promise<DataPostsResponse>,
): Promise<SearchOutcome> {
	const options: DataRoundOptions = { limit: plan.limit, maxPlatformRetries: plan.maxPlatformRetries };
	const maxRequests = plan.maxRequests ?? DEFAULT_MAX_REQUESTS;
	let progress = startDataRounds(plan.platforms, plan.cursors);
	const seen = new Set<string>();
	const posts: DataPost[] = [];
	const pages: PageRecord[] = [];
	const pageCount: Record<string, number> = {};
	let requests = 0;

	for (;;) {
		const round = nextDataRound(progress, options);
		if (!round) break;
		if (requests >= maxRequests) {
			return { posts, pages, progress, requests, requestCapReached: true };
		}
		const response = await fetchRound(round);
		requests++;
		const statuses = Array.isArray(response?.meta?.platforms) ? response.meta.platforms : [];
		const data = Array.isArray(response?.data) ? response.data : [];

		// Distinct posts per platform, held to what each platform still needs.
		const added: Record<string, DataPost[]> = {};
		const stray: DataPost[] = [];
		for (const post of data) {
			const platform = matchPlatform(post?.platform, round.platforms);
			const key = postKey(post);
			if (key !== undefined && seen.has(key)) continue;
			if (!platform) {
				// A post for a platform not asked: kept (it was paid for), outside any limit.
				if (key !== undefined) seen.add(key);
				stray.push(post);
				continue;
			}
			const before = progress.find((p) => p.platform === platform)!;
			const list = (added[platform] ??= []);
			if (plan.limit !== undefined && before.collected + list.length >= plan.limit) continue;
			if (key !== undefined) seen.add(key);
			list.push(post);
		}
		const counts: Record<string, number> = {};
		for (const [platform, list] of Object.entries(added)) counts[platform] = list.length;

		const previous = progress;
		progress = applyDataResponse(progress, round.platforms, statuses, counts, options);

		for (const platform of round.platforms) {
			const before = previous.find((p) => p.platform === platform)!;
			const after = progress.find((p) => p.platform === platform)!;
			const status = platformStatus(statuses, platform) ?? {
				platform,
				success: false,
				error_code: after.error?.code ?? 'missing_status',
				message: after.error?.message ?? 'The service did not report on this platform',
			};
			if (status.success) {
				pageCount[platform] = (pageCount[platform] ?? 0) + 1;
				// A cursor that does not move would page forever: stop that platform.
				if (after.state === 'more' && before.cursor !== null && after.cursor === before.cursor) {
					progress = progress.map((p) => (p.platform === platform ? { ...p, state: 'done' } : p));
				}
			}
			pages.push({
				platform,
				request: requests,
				page: status.success ? pageCount[platform] : undefined,
				status,
				posts: status.success ? (added[platform] ?? []) : [],
				cursorSent: before.cursor,
				willRetry: status.success ? undefined : after.state !== 'failed',
			});
			posts.push(...(added[platform] ?? []));
		}
		posts.push(...stray);

		if (plan.stopOnFailure) {
			const failed = progress.find(
				(p) => p.state === 'failed' && previous.find((q) => q.platform === p.platform)?.state !== 'failed',
			);
			if (failed) return { posts, pages, progress, requests, stoppedBy: failed };
		}
	}
	return { posts, pages, progress, requests };
}

// ---------------------------------------------------------------------------
// Output shaping
// ---------------------------------------------------------------------------

export type SearchOutputMode = 'posts' | 'pages' | 'postsAndStatus';

/** One platform's summary after a search. */
export function platformStatusItem(progress: PlatformProgress, outcome: SearchOutcome): IDataObject {
	const pages = outcome.pages.filter((p) => p.platform === progress.platform);
	const succeeded = progress.state !== 'failed';
	const posts = pages.reduce((sum, p) => sum + p.posts.length, 0);
	const attempts = pages.filter((p) => !p.status.success).length;
	const item: IDataObject = {
		type: 'platform_status',
		platform: progress.platform,
		success: succeeded,
		posts,
		pages: pages.filter((p) => p.status.success).length,
	};
	if (succeeded) {
		// The cursor continues after the last page fetched; with a limit that ended
		// mid-page, the rest of that page is not part of it.
		item.has_more = Boolean(progress.cursor);
		item.next_cursor = progress.cursor ?? null;
		if (progress.state === 'first' || progress.state === 'more') item.stopped_early = true;
	} else {
		item.error_code = progress.error?.code ?? 'platform_error';
		item.message = progress.error?.message ?? 'The platform failed';
		item.failed_attempts = attempts;
		// Where the platform was when it failed, to resume from later (null: its first page).
		item.resume_cursor = progress.cursor ?? null;
	}
	return item;
}

/** One item per platform page (with its status and cursor); a platform's final failure is a page item too. */
export function pageItem(record: PageRecord): IDataObject {
	const { status } = record;
	if (status.success) {
		return {
			type: 'platform_page',
			platform: record.platform,
			page: record.page ?? null,
			success: true,
			count: record.posts.length,
			reported_count: status.count ?? null,
			has_more: Boolean(status.next_cursor) && status.has_more !== false,
			next_cursor: status.next_cursor ?? null,
			cursor: record.cursorSent,
			posts: record.posts,
		};
	}
	return {
		type: 'platform_page',
		platform: record.platform,
		page: null,
		success: false,
		error_code: status.error_code ?? 'platform_error',
		message: status.message ?? status.error_code ?? 'The platform failed',
		cursor: record.cursorSent,
		posts: [],
	};
}

/**
 * The items of one search, in the chosen output mode. `includeFailures` adds a
 * status item per platform that failed for good (continue mode).
 */
export function shapeSearchOutput(
	outcome: SearchOutcome,
	mode: SearchOutputMode,
	includeFailures: boolean,
): IDataObject[] {
	const failed = outcome.progress.filter((p) => p.state === 'failed');
	if (mode === 'pages') {
		// Retried attempts are not pages; the last failure of a platform is reported once.
		const items = outcome.pages
			.filter((record) => record.status.success || !record.willRetry)
			.filter((record) => record.status.success || includeFailures)
			.map(pageItem);
		return items;
	}
	const items: IDataObject[] = outcome.posts.map((post) => ({ ...post }));
	if (mode === 'postsAndStatus') {
		items.push(...outcome.progress.map((p) => platformStatusItem(p, outcome)));
	} else if (includeFailures) {
		items.push(...failed.map((p) => platformStatusItem(p, outcome)));
	}
	return items;
}
