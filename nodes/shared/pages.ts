import { UnusableAnswer } from './answerShapes';
import { MAX_PER_PAGE } from './constants';
import type { ListMeta } from './types';

/** Page-numbered lists (`page`, `per_page`, `meta.total_pages`): Return All, a Limit, the dropdowns, finding a record. */

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
 * The records of a page-numbered list, page by page from page 1, until `enough` holds for a page or the list ends (a
 * short or empty page, or `meta.total_pages`), at most `maxPages` pages: `complete` is false when those did not reach
 * an end. A page count past MAX_PAGES, or past what `total_count` allows, is an unusable answer.
 */
async function readPagesUntil<T>(
	fetchPage: (page: number, perPage: number) => Promise<Page<T>>,
	enough: (page: T[]) => boolean,
	maxPages = MAX_PAGES,
): Promise<{ records: T[]; complete: boolean }> {
	const records: T[] = [];
	for (let page = 1; page <= maxPages; page++) {
		const { data, meta, statusCode } = await fetchPage(page, MAX_PER_PAGE);
		if (page === 1 && typeof meta?.total_pages === 'number') checkPageCount(meta, statusCode);
		records.push(...data);
		const last = typeof meta?.total_pages === 'number' ? page >= meta.total_pages : data.length < MAX_PER_PAGE;
		if (last || data.length === 0 || enough(data)) return { records, complete: true };
	}
	return { records, complete: false };
}

/**
 * The record with this `id` in a page-numbered list, asked page by page until it is found or the list ends. For a
 * record the live service has no single read of: its endpoint map lacks `GET /webhooks/{id}`, and its own node finds
 * a subscription in `GET /webhooks`.
 */
export async function findInPages<T extends { id?: unknown }>(
	fetchPage: (page: number, perPage: number) => Promise<Page<T>>,
	id: string,
): Promise<T | undefined> {
	const matches = (record: T) => String(record.id) === id;
	const { records, complete } = await readPagesUntil(fetchPage, (page) => page.some(matches));
	const found = records.find(matches);
	// The same bounds as collectPages: full pages without a page count and without an end are an unusable answer.
	if (found || complete) return found;
	throw new UnusableAnswer(`${MAX_PAGES} full pages came without a page count and without an end`, MAX_PAGES);
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
function pagePlan(returnAll: boolean, limit: number | undefined, maxPerPage = MAX_PER_PAGE) {
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
