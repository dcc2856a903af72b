import type { IDataObject } from 'n8n-workflow';

import {
	platformFailureItem,
	type PageRecord,
	type PlatformProgress,
	type RoundOutcome,
} from '../../../shared/pagination';
import type { DataPost } from '../../../shared/types';

type SearchOutcome = RoundOutcome<DataPost>;

/** A safety net against a service that never stops paging. */
export const DEFAULT_MAX_REQUESTS = 1000;

/** Posts → Search's items, from the Data API rounds (`collectRounds`) of one search. */
export type SearchOutputMode = 'posts' | 'pages' | 'postsAndStatus';

/** One platform's summary after a search. */
export function platformStatusItem(progress: PlatformProgress, outcome: SearchOutcome): IDataObject {
	const pages = outcome.pages.filter((p) => p.platform === progress.platform);
	const succeeded = progress.state !== 'failed';
	const posts = pages.reduce((sum, p) => sum + p.items.length, 0);
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
		// Where the platform was when it failed, to resume from later (null: its first page).
		Object.assign(item, platformFailureItem(progress.platform, progress.error, attempts), {
			resume_cursor: progress.cursor ?? null,
		});
	}
	return item;
}

/** One item per platform page (with its status and cursor); a platform's final failure is a page item too. */
export function pageItem(record: PageRecord<DataPost>): IDataObject {
	const { status } = record;
	if (status.success) {
		return {
			type: 'platform_page',
			platform: record.platform,
			page: record.page ?? null,
			success: true,
			count: record.items.length,
			reported_count: status.count ?? null,
			has_more: Boolean(status.next_cursor) && status.has_more !== false,
			next_cursor: status.next_cursor ?? null,
			cursor: record.cursorSent,
			posts: record.items,
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
	const items: IDataObject[] = outcome.items.map((post) => ({ ...post }));
	if (mode === 'postsAndStatus') {
		items.push(...outcome.progress.map((p) => platformStatusItem(p, outcome)));
	} else if (includeFailures) {
		items.push(...failed.map((p) => platformStatusItem(p, outcome)));
	}
	return items;
}
