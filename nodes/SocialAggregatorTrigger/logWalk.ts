import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { listAnswer } from '../shared/answerShapes';
import { MAX_PER_PAGE } from '../shared/constants';
import { deliveriesPath } from '../shared/deliveryLog';
import { apiRequestChecked } from '../shared/transport';
import { deliveringBefore, readLog, type LogEntry } from './catchUpPlan';

// The one walk over a subscription's delivery log (docs/service.md#delivery-log). Its order is not documented, nor
// is its `status` filter: the walk tells newest first from oldest first by the entries' times, and asks no filter.

/** Pages of the log one look back reads at most; a poll for one redelivered entry reads POLL_PAGES. */
const MAX_LOG_PAGES = 50;
const POLL_PAGES = 3;

interface LogPage {
	records: IDataObject[];
	totalPages?: number;
	/** The service answered 404: a route it does not offer. */
	missing: boolean;
}

async function logPage(ctx: IExecuteFunctions, subscriptionId: string, page: number): Promise<LogPage> {
	const request = { method: 'GET' as const, path: deliveriesPath(subscriptionId), qs: { page, per_page: MAX_PER_PAGE }, acceptStatuses: [404] };
	const answer = await apiRequestChecked(ctx, request, (body, at) => (at.statusCode === 404 ? undefined : listAnswer(body, { ...at, page })));
	if (!answer) return { records: [], missing: true };
	const total = answer.meta?.total_pages;
	return { records: answer.data, totalPages: typeof total === 'number' ? total : undefined, missing: false };
}

const entryTime = (record: IDataObject) => (typeof record.created_at === 'string' ? Date.parse(record.created_at) : NaN);

/** How a page lists the log, by its first and last entries' times; undefined when they cannot tell (one time). */
function pageOrder(records: IDataObject[]): 'newest' | 'oldest' | undefined {
	const times = records.map(entryTime).filter((at) => !Number.isNaN(at));
	if (times.length < 2 || times[0] === times[times.length - 1]) return undefined;
	return times[0] > times[times.length - 1] ? 'newest' : 'oldest';
}

/**
 * The pages to read after page 1, and whether they run from the newest entries back: 2, 3, … for a log listed newest
 * first; the last page, then back, for one listed oldest first with a page count; else 2, 3, … to the end, in an order
 * that decides nothing before the whole is read.
 */
function laterPages(first: LogPage): { pages: number[]; fromNewest: boolean } {
	const order = pageOrder(first.records);
	const total = first.totalPages;
	const cap = MAX_LOG_PAGES - 1;
	if (order === 'oldest' && total !== undefined) {
		return { pages: Array.from({ length: Math.min(total - 1, cap) }, (_, i) => total - i), fromNewest: true };
	}
	return { pages: Array.from({ length: cap }, (_, i) => i + 2), fromNewest: order === 'newest' };
}

/** What a look back read of the log: its entries (oldest first), the page each was found on, and whether it has none. */
export interface LogRead {
	entries: LogEntry[];
	pageOf: Map<string, number>;
	missing: boolean;
}

const ended = (page: LogPage, number: number) =>
	page.records.length === 0 || (page.totalPages !== undefined ? number >= page.totalPages : page.records.length < MAX_PER_PAGE);

/**
 * The log's entries from the newest back to the span's start (`floor`), in either order the service lists them. It
 * stops once the newest entries read decide that the subscription was delivering (one page, on one that was), at a
 * page wholly before the floor, at the log's end, or after MAX_LOG_PAGES pages. Listed oldest first, page 1 holds the
 * oldest: it decides nothing, and the walk goes on from the last page back.
 */
export async function readLogBack(ctx: IExecuteFunctions, subscriptionId: string, kick: { id: string; at: number }, floor: number): Promise<LogRead> {
	const first = await logPage(ctx, subscriptionId, 1);
	const pageOf = new Map<string, number>();
	const take = (records: IDataObject[], number: number) => {
		for (const record of records) if (record.id !== undefined && record.id !== null) pageOf.set(String(record.id), number);
		return records;
	};
	const all = [...take(first.records, 1)];
	if (first.missing || ended(first, 1)) return { entries: readLog(all), pageOf, missing: first.missing };
	const { pages, fromNewest } = laterPages(first);
	// The entries read from the newest end on, which alone may decide.
	const newest = pages[0] === 2 ? all : [];
	// Read from the newest end, a page wholly before the floor ends the walk; the newest entries may decide sooner.
	const decided = (last: IDataObject[]) =>
		fromNewest && (deliveringBefore(readLog(newest), kick) || (last.length > 0 && last.every((record) => entryTime(record) < floor)));
	if (decided(newest)) return { entries: readLog(all), pageOf, missing: false };
	for (const number of pages) {
		const page = await logPage(ctx, subscriptionId, number);
		all.push(...take(page.records, number));
		if (fromNewest) newest.push(...page.records);
		if (decided(page.records) || (pages[0] === 2 && ended(page, number))) break;
	}
	return { entries: readLog(all), pageOf, missing: false };
}

/**
 * Whether the log still shows delivery `id` waiting to be sent, read from the page it was found on (`page`) and the
 * next ones (a log listed newest first moves it down as deliveries are added), POLL_PAGES at most, no `status`
 * filter asked (a service may ignore it and answer the whole log). Not found there: not waited for.
 */
export async function stillPending(ctx: IExecuteFunctions, subscriptionId: string, id: string, page = 1): Promise<boolean> {
	for (let number = page; number < page + POLL_PAGES; number++) {
		const answer = await logPage(ctx, subscriptionId, number);
		const entry = readLog(answer.records.filter((record) => String(record.id) === id))[0];
		if (entry) return entry.state === 'pending';
		if (answer.records.length === 0 || (answer.totalPages !== undefined && number >= answer.totalPages)) return false;
	}
	return false;
}
