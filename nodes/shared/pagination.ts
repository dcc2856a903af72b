import type { IDataObject } from 'n8n-workflow';

import { UnusableAnswer } from './answers';
import { canonicalPlatform } from './dataSearch';
import { MAX_PER_PAGE } from './constants';
import type { ListMeta, PlatformStatus } from './types';

// Page-numbered lists

export interface Page<T> {
	data: T[];
	meta?: Partial<ListMeta>;
	/** The HTTP status it came with, named in an error about it. */
	statusCode?: number;
}

interface CollectPagesOptions<T> {
	returnAll: boolean;
	/** Items wanted when not returning all. */
	limit?: number;
	/** Fetches one page; retries (and resuming at that page) are its job. */
	fetchPage: (page: number, perPage: number) => Promise<Page<T>>;
	maxPerPage?: number;
	/** Pages fetched at once once the first page has told how many there are. */
	concurrency?: number;
	/** Identity of an item, to drop one seen on an earlier page when the list shifts. */
	key?: (item: T) => string | number | undefined;
	/** After page 1 gave the page count: may refuse (throw) the `needed` pages still to fetch, before any is asked. */
	beforeRest?: (needed: number, totalPages: number) => void;
	/** A failure after page 1 throws `StoppedPartWay` with what was fetched, instead of the failure itself. */
	keepPartial?: boolean;
}

/**
 * The record with this `id` in a page-numbered list, asked page by page until it is found or the list ends (a
 * short or empty page, or `meta.total_pages`). For a record the live service has no single read of: its endpoint
 * map lacks `GET /webhooks/{id}`, and its own node finds a subscription in `GET /webhooks`.
 */
export async function findInPages<T extends { id?: unknown }>(
	fetchPage: (page: number, perPage: number) => Promise<Page<T>>,
	id: string,
): Promise<T | undefined> {
	for (let page = 1; ; page++) {
		// The same bounds as collectPages: a page count past MAX_PAGES, or full pages without end, is an unusable answer.
		if (page > MAX_PAGES) throw new UnusableAnswer(`${MAX_PAGES} full pages came without a page count and without an end`, page - 1);
		const { data, meta, statusCode } = await fetchPage(page, MAX_PER_PAGE);
		if (page === 1 && typeof meta?.total_pages === 'number') checkPageCount(meta, statusCode);
		const found = data.find((record) => String(record.id) === id);
		if (found) return found;
		const last = typeof meta?.total_pages === 'number' ? page >= meta.total_pages : data.length < MAX_PER_PAGE;
		if (last || data.length === 0) return undefined;
	}
}

/**
 * A list that stopped after some pages (a refusal after page 1, a fault after its retries): the items of the pages
 * fetched without a gap, in order, so that what was spent can still be output.
 */
export class StoppedPartWay<T> extends Error {
	constructor(
		public readonly reason: unknown,
		public readonly items: T[],
		/** Pages fetched from page 1 on without a gap. */
		public readonly pages: number,
		/** The list's page count, when the service gave it. */
		public readonly totalPages?: number,
	) {
		super(reason instanceof Error ? reason.message : String(reason));
	}
}

/** A page not asked because another page of the same list had already failed. */
export class ListAlreadyFailed extends Error {
	constructor() {
		super('Another page of the list failed');
	}
}

/** The items of pages in order, without repeats, at most `wanted`. */
function joinPages<T>(pages: T[][], wanted: number, key?: (item: T) => string | number | undefined): T[] {
	const seen = new Set<string | number>();
	const result: T[] = [];
	for (const item of pages.flat()) {
		const id = key?.(item);
		if (id !== undefined) {
			if (seen.has(id)) continue;
			seen.add(id);
		}
		result.push(item);
		if (result.length >= wanted) break;
	}
	return result;
}

/** The most pages the node asks of one list (a million items at 100 a page): a count beyond it cannot be right. */
const MAX_PAGES = 10_000;

/** Refuses, before a second request, a page count past the cap or past what `total_count` at `per_page` allows. */
function checkPageCount(meta: Partial<ListMeta>, statusCode?: number): void {
	const { total_pages: pages = 0, total_count: count, per_page: perPage } = meta;
	if (pages > MAX_PAGES) {
		throw new UnusableAnswer(`\`meta.total_pages\` is ${pages}, more than the ${MAX_PAGES} pages a list may take`, 1, statusCode);
	}
	if (count !== undefined && perPage !== undefined && perPage > 0 && pages > Math.max(1, Math.ceil(count / perPage))) {
		throw new UnusableAnswer(
			`\`meta.total_pages\` (${pages}) is more than \`meta.total_count\` (${count}) at \`meta.per_page\` (${perPage}) a page allows`,
			1,
			statusCode,
		);
	}
}

/** The page size and page count a request for `limit` items needs, at most `maxPerPage` a page. */
export function pagePlan(returnAll: boolean, limit: number | undefined, maxPerPage = MAX_PER_PAGE) {
	if (returnAll) return { perPage: maxPerPage, wanted: Number.POSITIVE_INFINITY };
	const wanted = Math.max(1, Math.floor(limit ?? 50));
	return { perPage: Math.min(maxPerPage, wanted), wanted };
}

/**
 * Every page-numbered list: Return All at the largest page size, a Limit never asking a page it does not need. Once
 * page 1 gives `total_pages`, the rest come `concurrency` at a time, kept in the service's order.
 */
export async function collectPages<T>(options: CollectPagesOptions<T>): Promise<T[]> {
	const { perPage, wanted } = pagePlan(options.returnAll, options.limit, options.maxPerPage);
	const first = await options.fetchPage(1, perPage);
	const pages: T[][] = [first.data];
	const totalPages = first.meta?.total_pages;
	let failure: unknown;
	const fetch = async (page: number) => {
		try {
			pages[page - 1] = (await options.fetchPage(page, perPage)).data;
		} catch (error) {
			// The first real failure is the one to report, not a page it stopped.
			if (failure === undefined || failure instanceof ListAlreadyFailed) failure = error;
		}
	};

	if (typeof totalPages === 'number') checkPageCount(first.meta!, first.statusCode);
	try {
		if (typeof totalPages === 'number') {
			const needed = Math.min(totalPages, Math.ceil(wanted / perPage));
			if (needed > 1) options.beforeRest?.(needed - 1, totalPages);
			const concurrency = Math.max(1, options.concurrency ?? 1);
			let next = 2;
			const worker = async () => {
				while (failure === undefined && next <= needed) await fetch(next++);
			};
			await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(0, needed - 1)) }, worker));
		} else {
			// Without a page count, a short or empty page is the last one.
			let collected = first.data.length;
			for (let page = 2; pages[page - 2].length >= perPage && collected < wanted; page++) {
				if (page > MAX_PAGES) {
					failure = new UnusableAnswer(`${MAX_PAGES} full pages came without a page count and without an end`, page - 1);
					break;
				}
				await fetch(page);
				if (failure !== undefined) break;
				collected += pages[page - 1].length;
			}
		}
	} catch (error) {
		failure = error;
	}

	if (failure !== undefined) {
		if (!options.keepPartial) throw failure;
		const done = Array.from(pages, (page) => page !== undefined).indexOf(false);
		const fetched = done < 0 ? pages.length : done;
		throw new StoppedPartWay(failure, joinPages(pages.slice(0, fetched), wanted, options.key), fetched, totalPages);
	}
	return joinPages(pages, wanted, options.key);
}

// Data API cursor rounds

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

/** The platform among `platforms` a name from the service stands for, in any case or as SPEC.md's alias (`X`). */
export function matchPlatform(name: unknown, platforms: string[]): string | undefined {
	const text = String(name ?? '');
	const canonical = canonicalPlatform(text);
	return platforms.find((p) => p.toLowerCase() === text.toLowerCase() || p === canonical);
}

/** A platform's entry in `meta.platforms`. */
export function platformStatus(statuses: PlatformStatus[], platform: string): PlatformStatus | undefined {
	return statuses.find((s) => matchPlatform(s?.platform, [platform]));
}

/** An item's identity: a feed post's feed and ID, else platform and platform_id or URL (the Data Trigger stores these). */
export function postKey(post: { [key: string]: unknown }): string | undefined {
	if (typeof post.id === 'number' || typeof post.id === 'string') {
		return post.feed_id === undefined ? String(post.id) : `${String(post.feed_id)}:${String(post.id)}`;
	}
	const platform = String(post.platform ?? '').toLowerCase();
	if (post.platform_id !== undefined && post.platform_id !== null && String(post.platform_id) !== '') {
		return `${platform}:id:${String(post.platform_id)}`;
	}
	if (post.url) return `${platform}:url:${String(post.url)}`;
	return undefined;
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
	/** An item's identity, to drop one already kept; `postKey` unless given. */
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
		const key = (plan.key ?? postKey)(item);
		if (key !== undefined && seen.has(key)) return false;
		if (key !== undefined) seen.add(key);
		return true;
	};

	for (;;) {
		// Every platform that has and needs more, with their cursors comma-joined (SPEC.md rule 4).
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
		const { data, statuses } = answer;
		outcome.requests++;
		const report = Object.fromEntries(asked.map((p) => [p, platformStatus(statuses, p)]));
		const groups: Record<string, T[]> = Object.fromEntries(asked.map((p) => [p, []]));
		// Items of no platform asked, or of one that failed, are kept (they were paid for), outside any limit.
		const stray: T[] = [];
		for (const item of data) {
			// With one platform asked, every item is that platform's, whatever it is called.
			const platform = asked.length === 1 ? asked[0] : matchPlatform(item.platform, asked);
			if (platform && report[platform]?.success) groups[platform].push(item);
			else if (fresh(item)) stray.push(item);
		}

		for (const p of open) {
			const status = report[p.platform] ?? {
				platform: p.platform,
				success: false,
				error_code: 'missing_status',
				message: 'The service did not report on this platform',
			};
			const record: PageRecord<T> = { platform: p.platform, status, items: [], cursorSent: p.cursor };
			if (status.success) {
				const taken = plan.take ? plan.take(p.platform, groups[p.platform]) : { items: groups[p.platform] };
				const room = limit - p.collected;
				for (const item of taken.items) if (record.items.length < room && fresh(item)) record.items.push(item);
				p.collected += record.items.length;
				p.cursor = status.next_cursor ?? null;
				// A cursor that does not move would page forever.
				const stuck = record.cursorSent !== null && p.cursor === record.cursorSent;
				const hasMore = Boolean(status.next_cursor) && status.has_more !== false;
				p.state = hasMore && p.collected < limit && !stuck && !taken.finished ? 'more' : 'done';
				p.failures = 0;
				p.error = undefined;
				record.page = pageCount[p.platform] = (pageCount[p.platform] ?? 0) + 1;
			} else {
				const code = status.error_code ?? 'platform_error';
				p.error = { code, message: status.message ?? code };
				p.failures++;
				if (!RETRYABLE_PLATFORM_ERRORS.includes(code) || p.failures > maxPlatformRetries) p.state = 'failed';
				record.willRetry = p.state !== 'failed';
			}
			outcome.pages.push(record);
			outcome.items.push(...record.items);
		}
		outcome.items.push(...stray);

		const failed = open.find((p) => p.state === 'failed');
		if (plan.stopOnFailure && failed) return { ...outcome, stoppedBy: failed };
	}
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
