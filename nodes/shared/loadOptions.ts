import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodePropertyOptions,
} from 'n8n-workflow';

import { DATA_API_TERM_TYPES, KNOWN_WEBHOOK_EVENTS, PLATFORM_DISPLAY_NAMES } from './constants';
import { apiRequest } from './transport';
import type { ListResponse, PlatformEntry } from './types';

/** Dropdowns must open fast: one attempt and a short wait, no long backoff. */
const QUICK = { retry: { maxAttempts: 2, maxTotalWaitMs: 3_000 } };

function byName(a: INodePropertyOptions, b: INodePropertyOptions): number {
	return a.name.localeCompare(b.name);
}

/** A parameter's value whether it is plain or a resource locator. */
export function locatorValue(value: unknown): string {
	if (value && typeof value === 'object' && 'value' in value) {
		return String((value as { value: unknown }).value ?? '');
	}
	return value === undefined || value === null ? '' : String(value);
}

/** Feeds for the resource locator's list mode, filtered by name, paged by the service. */
export async function searchFeeds(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = paginationToken ? Number(paginationToken) : 1;
	const response = (await apiRequest.call(this, {
		method: 'GET',
		path: '/feeds',
		qs: { page, per_page: 100 },
		...QUICK,
	})) as ListResponse;
	const needle = (filter ?? '').toLowerCase();
	const results = response.data
		.filter((feed) => !needle || String(feed.name ?? '').toLowerCase().includes(needle) || String(feed.id) === needle)
		.map((feed) => ({ name: `${String(feed.name ?? 'Feed')} (${String(feed.id)})`, value: String(feed.id) }));
	const more = response.meta && response.meta.page < response.meta.total_pages;
	return { results, paginationToken: more ? String(page + 1) : undefined };
}

export async function fetchPlatforms(this: ILoadOptionsFunctions): Promise<PlatformEntry[]> {
	const response = (await apiRequest.call(this, { method: 'GET', path: '/platforms', ...QUICK })) as {
		data: PlatformEntry[];
	};
	return response.data;
}

/** Every platform a feed source can use. */
export async function getPlatforms(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const platforms = await fetchPlatforms.call(this);
	return platforms
		.map((p) => ({ name: p.display_name || p.platform, value: p.platform }))
		.sort(byName);
}

/** The term types of the platform chosen in the `platform` parameter, with what each needs. */
export async function getTermTypes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const chosen = String(this.getCurrentNodeParameter('platform') ?? '');
	const platforms = await fetchPlatforms.call(this);
	const entry = platforms.find((p) => p.platform === chosen);
	if (!entry) return [];
	return entry.term_types.map((t) => ({
		name: t.display_name || t.term_type,
		value: t.term_type,
		description: t.requires_connection
			? `Needs a connected ${t.requires_connection.provider} account: ${t.requires_connection.description}`
			: undefined,
	}));
}

/**
 * Platforms the Data API can search without a connected account. Falls back
 * to SPEC.md's table when the service cannot be asked, so the dropdown still
 * works while the key is being set up.
 */
export async function getDataPlatforms(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const fallback = Object.keys(DATA_API_TERM_TYPES).map((platform) => ({
		name: PLATFORM_DISPLAY_NAMES[platform] ?? platform,
		value: platform,
	}));
	let platforms: PlatformEntry[];
	try {
		platforms = await fetchPlatforms.call(this);
	} catch (error) {
		this.logger.debug('Platform list unavailable, using the built-in table', {
			error: (error as Error).message,
		});
		return fallback.sort(byName);
	}
	return platforms
		.filter((p) =>
			p.term_types.some(
				(t) => !t.requires_connection && (DATA_API_TERM_TYPES[p.platform] ?? []).includes(t.term_type as never),
			),
		)
		.map((p) => ({ name: PLATFORM_DISPLAY_NAMES[p.platform] ?? (p.display_name || p.platform), value: p.platform }))
		.sort(byName);
}

/** The sources of the feed chosen in the `feedId` parameter. */
export async function getFeedSources(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const feedId = locatorValue(this.getCurrentNodeParameter('feedId'));
	if (!feedId) return [];
	const response = (await apiRequest.call(this, {
		method: 'GET',
		path: `/feeds/${encodeURIComponent(feedId)}/sources`,
		qs: { page: 1, per_page: 100 },
		...QUICK,
	})) as ListResponse;
	return response.data.map((source: IDataObject) => ({
		name: `${String(source.platform)}: ${String(source.term)}`,
		value: String(source.id),
		description: source.term_type ? `Term type: ${String(source.term_type)}` : undefined,
	}));
}

/** Webhook events the service lists, or the known ones when it does not answer. */
export async function getWebhookEvents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	let events = KNOWN_WEBHOOK_EVENTS;
	try {
		const response = (await apiRequest.call(this, { method: 'GET', path: '/webhook_events', ...QUICK })) as {
			data: Array<{ name: string; description?: string }>;
		};
		if (Array.isArray(response.data) && response.data.length > 0) {
			const listed = response.data.map((e) => ({ name: e.name, description: e.description ?? '' }));
			const extra = KNOWN_WEBHOOK_EVENTS.filter((k) => !listed.some((e) => e.name === k.name));
			events = [...listed, ...extra];
		}
	} catch (error) {
		this.logger.debug('Webhook event list unavailable, using the known events', {
			error: (error as Error).message,
		});
	}
	return events.map((e) => ({ name: e.name, value: e.name, description: e.description }));
}
