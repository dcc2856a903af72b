import { matchPlatform } from './platforms';
import type { PlatformStatus } from './types';

// One round's answer settled platform by platform: whose items are whose, and what each platform's page did to its
// progress (the cursor, the count, a failure asked again or final). The walk over rounds is in rounds.ts.

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

/** How a round's pages are kept: the limit per platform, the retries, `take`, one check of every item, the pages so far. */
interface PageRules<T> {
	limit: number;
	maxPlatformRetries: number;
	take?: (platform: string, items: T[]) => { items: T[]; finished?: boolean };
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
