import type { IDataObject } from 'n8n-workflow';

import { canonicalPlatform } from '../../shared/platforms';
import { type Checked, refuse } from '../../shared/refusal';
import type { PageRecord, PlatformProgress } from '../../shared/roundPage';
import { collectRounds, platformFailureItem, type RoundOutcome, type RoundPlan } from '../../shared/rounds';
import { dataPostShape, type OutputChoice, RAW, shapeRecord } from '../../shared/simplify';
import type { DataPost } from '../../shared/types';

// Posts → Search below its operation: the rounds, the resume cursors it may start from, and its output modes.

/** A safety net against a service that never stops paging. */
const MAX_SEARCH_REQUESTS = 1000;

export type SearchOutputMode = 'posts' | 'pages' | 'postsAndStatus';

/** Resume cursors per platform: opaque (docs/service.md#cursor-rounds), so only their platform is checked. */
export function checkResumeCursors(
	entries: Array<{ platform?: unknown; cursor?: unknown }>,
	platforms: string[],
): Checked<Record<string, string>> {
	const cursors: Record<string, string> = {};
	for (const entry of entries) {
		const cursor = String(entry.cursor ?? '').trim();
		const name = String(entry.platform ?? '').trim();
		if (cursor === '' && name === '') continue;
		const platform = canonicalPlatform(name);
		if (!platform || !platforms.includes(platform)) {
			return refuse({
				field: 'Resume From Cursors',
				platform: name || undefined,
				reason: name
					? `a cursor is given for ${name}, which is not among the searched platforms`
					: 'a cursor is given without its platform',
				hint: 'Each cursor continues one of the platforms in Platforms.',
			});
		}
		if (cursor === '') continue;
		if (/[,\s]/.test(cursor)) {
			return refuse({
				field: 'Resume From Cursors',
				platform,
				reason: 'a cursor contains a comma or a space, so it cannot be a single cursor the service gave',
				hint: 'Paste the next_cursor of that platform exactly as it came.',
			});
		}
		if (cursors[platform]) {
			return refuse({ field: 'Resume From Cursors', platform, reason: `two cursors are given for ${platform}` });
		}
		cursors[platform] = cursor;
	}
	return { ok: true, value: cursors };
}

/** One platform's summary after a search. */
function platformStatusItem(progress: PlatformProgress, outcome: RoundOutcome<DataPost>): IDataObject {
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
		// The cursor continues after the last page fetched: what a Limit left of that page is not in it.
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
function pageItem(record: PageRecord<DataPost>): IDataObject {
	const { status } = record;
	return {
		type: 'platform_page',
		platform: record.platform,
		page: record.page ?? null,
		success: status.success,
		...(status.success
			? {
					count: record.items.length,
					reported_count: status.count ?? null,
					has_more: Boolean(status.next_cursor) && status.has_more !== false,
					next_cursor: status.next_cursor ?? null,
				}
			: {
					error_code: status.error_code ?? 'platform_error',
					message: status.message ?? status.error_code ?? 'The platform failed',
				}),
		cursor: record.cursorSent,
		posts: record.items,
	};
}

/**
 * The items of one search in the chosen Output; `includeFailures` adds an item per platform failed for good.
 * `choice` (Simplify, Output Fields) shapes the posts, wherever they are; status items stay whole.
 */
export function shapeSearchOutput(
	outcome: RoundOutcome<DataPost>,
	mode: SearchOutputMode,
	includeFailures: boolean,
	/** A search that stopped part way: every platform's status follows the posts, with its cursor to resume from. */
	stopped = false,
	choice: OutputChoice = RAW,
): IDataObject[] {
	const shapePost = (post: DataPost) => (choice.mode === 'raw' ? { ...post } : shapeRecord(post, dataPostShape, choice));
	if (mode === 'pages') {
		// Retried attempts are not pages; the last failure of a platform is reported once.
		const pages = outcome.pages.filter((r) => r.status.success || (includeFailures && !r.willRetry)).map(pageItem);
		if (choice.mode === 'raw') return pages;
		return pages.map((page) => ({ ...page, posts: (page.posts as DataPost[]).map(shapePost) }));
	}
	const every = mode === 'postsAndStatus' || stopped;
	const statuses = outcome.progress.filter((p) => every || (includeFailures && p.state === 'failed'));
	return [...outcome.items.map(shapePost), ...statuses.map((p) => platformStatusItem(p, outcome))];
}

/**
 * Posts → Search's rounds: each request carries every platform that has and needs more, at most
 * `MAX_SEARCH_REQUESTS` of them; a failure after the first keeps what was paid for (`failure` set).
 */
export async function searchRounds(
	plan: Omit<RoundPlan<DataPost>, 'maxRequests' | 'keepPartial'> & { maxRequests?: number },
): Promise<RoundOutcome<DataPost>> {
	return await collectRounds<DataPost>({ maxRequests: MAX_SEARCH_REQUESTS, ...plan, keepPartial: true });
}
