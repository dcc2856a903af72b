import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult, INodePropertyOptions } from 'n8n-workflow';

import { DATA_API_TERM_TYPES, KNOWN_WEBHOOK_EVENTS, MAX_PER_PAGE, PLATFORM_DISPLAY_NAMES } from './constants';
import { isObject } from './utils';
import { fieldText, findList, listIn, toOption, toOptions, type OptionFields } from './options';
import { locatorValue } from './input';
import { collectPages, type Page } from './pages';
import { apiRequest } from './transport';

/** The most pages a dropdown reads (1,000 choices at 100 a page): a list longer than that is searched in a picker. */
const DROPDOWN_MAX_PAGES = 10;

/** Dropdowns must open fast: at most one retry and a short wait, no long backoff. Answers are read as any JSON. */
const DROPDOWN_REQUEST = { retry: { maxAttempts: 2, maxTotalWaitMs: 3_000 } };

const FEED: OptionFields = {
	value: ['id'],
	name: ['name'],
	label: (name, id) => (name ? `${name} (${id})` : `Feed ${id}`),
};

/** Feeds for the resource locator's list mode, filtered by name, paged by the service. */
export async function searchFeeds(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage.call(this, { path: '/feeds', fields: FEED, keys: ['feeds'] }, filter, paginationToken);
}

/** Where a list search reads its page, and whether the service filters it (`searchQuery`) or the node does. */
interface SearchSource {
	path: string;
	fields: OptionFields;
	keys: string[];
	/** The query parameter the service searches by; without one, the page's labels are filtered here. */
	searchQuery?: string;
}

/**
 * One page of a list for a resource locator's list mode, filtered by `filter` (in the label or description,
 * or the ID itself), with the next page's number as the token while the answer's page count says there is one.
 */
async function searchPage(
	this: ILoadOptionsFunctions,
	source: SearchSource,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = paginationToken ? Number(paginationToken) : 1;
	const needle = (filter ?? '').trim().toLowerCase();
	const qs = source.searchQuery && needle ? { [source.searchQuery]: filter!.trim() } : {};
	const { data, meta } = await optionsPage.call(this, source.path, source.fields, source.keys, page, MAX_PER_PAGE, qs);
	const matches = (option: INodePropertyOptions) =>
		!needle ||
		source.searchQuery !== undefined ||
		option.name.toLowerCase().includes(needle) ||
		(option.description ?? '').toLowerCase().includes(needle) ||
		String(option.value) === needle;
	const results = data.filter(matches).map(({ name, value, description }) => ({
		name,
		value: String(value),
		...(description ? { description } : {}),
	}));
	return {
		results,
		paginationToken: page < (meta?.total_pages ?? 0) ? String(page + 1) : undefined,
	};
}

/** One page of a list as options, with its page count when the answer gives one: without it, no next page is known. */
async function optionsPage(
	this: ILoadOptionsFunctions,
	path: string,
	fields: OptionFields,
	keys: string[],
	page: number,
	perPage: number,
	query: IDataObject = {},
): Promise<Page<INodePropertyOptions>> {
	const qs = { ...query, page, per_page: perPage };
	const answer = await apiRequest.call(this, { method: 'GET', path, qs, ...DROPDOWN_REQUEST });
	const data = toOptions(listIn(answer, keys), fields);
	const pages = Number(isObject(answer) && isObject(answer.meta) ? answer.meta.total_pages : undefined);
	return Number.isSafeInteger(pages) ? { data, meta: { total_pages: pages } } : { data };
}

/** A page-numbered list as options through the page collector, `DROPDOWN_MAX_PAGES` at most, so a dropdown opens fast. */
export async function pagedOptions(
	this: ILoadOptionsFunctions,
	path: string,
	fields: OptionFields,
	keys: string[],
): Promise<INodePropertyOptions[]> {
	return await collectPages<INodePropertyOptions>({
		returnAll: false,
		limit: DROPDOWN_MAX_PAGES * MAX_PER_PAGE,
		key: (option) => String(option.value),
		fetchPage: async (page, perPage) => await optionsPage.call(this, path, fields, keys, page, perPage),
	});
}

/** The account's feeds as multi-select options, in every node that offers them. */
export async function getFeeds(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return await pagedOptions.call(this, '/feeds', FEED, ['feeds']);
}

const PLATFORM: OptionFields = { value: ['platform', 'name'], name: ['display_name', 'name'] };
const TERM_TYPE: OptionFields = { value: ['term_type', 'type', 'name'], name: ['display_name', 'name'] };

/** A term type of a platform entry, and the connected account it needs if any. */
interface TermTypeChoice {
	option: INodePropertyOptions;
	needsConnection: boolean;
	provider?: string;
	needs?: string;
}

/** An entry of `GET /platforms`, whatever fields the service left out. */
interface PlatformChoice {
	option: INodePropertyOptions;
	/** Undefined when the entry lists no term types at all (then none are known). */
	termTypes?: TermTypeChoice[];
}

function termTypeChoice(entry: unknown): TermTypeChoice | undefined {
	const option = toOption(entry, TERM_TYPE);
	if (!option) return undefined;
	const connection = isObject(entry) ? entry.requires_connection : undefined;
	return {
		option,
		needsConnection: Boolean(connection),
		provider: fieldText(connection, ['provider', 'name']),
		needs: isObject(connection) ? fieldText(connection, ['description']) : undefined,
	};
}

export async function fetchPlatforms(this: ILoadOptionsFunctions): Promise<PlatformChoice[]> {
	const answer = await apiRequest.call(this, { method: 'GET', path: '/platforms', ...DROPDOWN_REQUEST });
	const choices: PlatformChoice[] = [];
	for (const entry of listIn(answer, ['platforms'])) {
		const option = toOption(entry, PLATFORM);
		if (!option || choices.some((c) => c.option.value === option.value)) continue;
		const listed = isObject(entry) && Array.isArray(entry.term_types) ? (entry.term_types as unknown[]) : undefined;
		const termTypes = listed?.map(termTypeChoice).filter((t): t is TermTypeChoice => t !== undefined);
		choices.push({ option, termTypes });
	}
	return choices;
}

/** A platform's term types in docs/service.md#term-types; none for a platform outside that table. */
function specTermTypes(platform: string): string[] {
	return Object.prototype.hasOwnProperty.call(DATA_API_TERM_TYPES, platform) ? DATA_API_TERM_TYPES[platform] : [];
}

/** Platform options by name; the table of docs/service.md#term-types when the service lists none. */
function platformOptions(listed: INodePropertyOptions[]): INodePropertyOptions[] {
	const spec = (platform: string) => ({ name: PLATFORM_DISPLAY_NAMES[platform] ?? platform, value: platform });
	const options = listed.length > 0 ? listed : Object.keys(DATA_API_TERM_TYPES).map(spec);
	return options.sort((a, b) => a.name.localeCompare(b.name));
}

/** Every platform a feed source can use; the table of docs/service.md#term-types when the answer lists none. */
export async function getPlatforms(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return platformOptions((await fetchPlatforms.call(this)).map((p) => p.option));
}

/** The chosen platform's term types with what each needs; those of docs/service.md#term-types when the answer lists none. */
export async function getTermTypes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const chosen = String(this.getCurrentNodeParameter('platform') ?? '');
	const listed = (await fetchPlatforms.call(this)).find((p) => p.option.value === chosen)?.termTypes ?? [];
	if (listed.length === 0) return specTermTypes(chosen).map((t) => ({ name: t, value: t }));
	return listed.map((t) => {
		const account = t.provider ? `a connected ${t.provider} account` : 'a connected account';
		const description = t.needsConnection ? `Needs ${account}${t.needs ? `: ${t.needs}` : ''}` : undefined;
		return { ...t.option, ...(description ? { description } : {}) };
	});
}

/** Platforms the Data API searches without a connection; the table of docs/service.md#term-types when the service cannot say, as while setting up. */
export async function getDataPlatforms(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const platforms = await fetchPlatforms.call(this).catch((error: Error) => {
		this.logger.debug('Platform list unavailable, using the built-in table', { error: error.message });
	});
	if (!platforms) return platformOptions([]);
	const searchable = platforms
		.filter(({ option, termTypes }) => {
			const spec = specTermTypes(String(option.value));
			// An entry without term types is taken at the table's word (docs/service.md#term-types).
			if (termTypes === undefined) return spec.length > 0;
			return termTypes.some((t) => !t.needsConnection && spec.includes(String(t.option.value)));
		})
		.map(({ option }) => ({ name: PLATFORM_DISPLAY_NAMES[String(option.value)] ?? option.name, value: option.value }));
	return platformOptions(searchable);
}

const SOURCE: OptionFields = {
	value: ['id'],
	name: ['term', 'name'],
	label: (term, id, source) => {
		const platform = fieldText(source, ['platform']);
		return platform ? `${platform}: ${term ?? id}` : term ?? `Source ${id}`;
	},
	description: (source) => {
		const termType = fieldText(source, ['term_type']);
		return termType && `Term type: ${termType}`;
	},
};

/** The sources of the feed chosen in the `feedId` parameter. */
export async function getFeedSources(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const feedId = locatorValue(this.getCurrentNodeParameter('feedId'));
	if (!feedId) return [];
	return await pagedOptions.call(this, `/feeds/${encodeURIComponent(feedId)}/sources`, SOURCE, ['sources']);
}

/** The feed chosen in the `feedId` parameter, as a path segment; none while no feed is chosen. */
function chosenFeedPath(this: ILoadOptionsFunctions): string | undefined {
	const feedId = locatorValue(this.getCurrentNodeParameter('feedId')).trim();
	return feedId ? `/feeds/${encodeURIComponent(feedId)}` : undefined;
}

/** The chosen feed's sources for the source locator, filtered by term, platform or term type. */
export async function searchSources(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const feed = chosenFeedPath.call(this);
	if (!feed) return { results: [] };
	return await searchPage.call(
		this,
		{ path: `${feed}/sources`, fields: SOURCE, keys: ['sources'] },
		filter,
		paginationToken,
	);
}

/** Text cut to `length` characters on one line without markup (posts may carry links as HTML), for a label. */
function short(text: string, length = 60): string {
	const line = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
	return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

const POST: OptionFields = {
	value: ['id'],
	name: ['message', 'description'],
	label: (message, id, post) => {
		const poster = fieldText(post.poster, ['name', 'username', 'screen_name']);
		const text = message ? `${short(message)} (${id})` : `Post ${id}`;
		return poster ? `${poster}: ${text}` : text;
	},
	description: (post) => {
		const parts = [
			fieldText(post, ['platform']),
			fieldText(post, ['moderation_status']),
			fieldText(post, ['external_created_at', 'created_at']),
		];
		return parts.filter(Boolean).join(' · ') || undefined;
	},
};

/** The chosen feed's posts for the post locator; the text is searched by the service (message, poster, description). */
export async function searchPosts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const feed = chosenFeedPath.call(this);
	if (!feed) return { results: [] };
	const source = {
		path: `${feed}/posts`,
		fields: POST,
		keys: ['posts'],
		searchQuery: 'search',
	};
	return await searchPage.call(this, source, filter, paginationToken);
}

const WEBHOOK: OptionFields = {
	value: ['id'],
	name: ['url'],
	label: (url, id) => (url ? `${url} (${id})` : `Webhook ${id}`),
	description: (webhook) => {
		const listed = webhook.subscribed_events ?? webhook.events;
		const events = (Array.isArray(listed) ? listed : [])
			.map((e) => fieldText(e, ['event', 'name']))
			.filter(Boolean)
			.join(', ');
		const status = fieldText(webhook, ['status']);
		return [status, events].filter(Boolean).join(': ') || undefined;
	},
};

/** The account's webhook subscriptions for the webhook locator, filtered by URL, status or event. */
export async function searchWebhooks(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage.call(
		this,
		{ path: '/webhooks', fields: WEBHOOK, keys: ['webhooks'] },
		filter,
		paginationToken,
	);
}

const WEBHOOK_EVENT: OptionFields = {
	value: ['event', 'name', 'id', 'key', 'type', 'value'],
	description: (event) => fieldText(event, ['description']),
};

/**
 * The event kinds of a `GET /webhook_events` answer, each once, as options (value: the event's name), in every legal
 * shape: names or `{ name | event, description }` objects, in `data` or not; none when the answer holds no list.
 * The dropdowns and Webhook › Get Event Kinds read it alike.
 */
export function webhookEventKinds(answer: unknown): INodePropertyOptions[] | undefined {
	const listed = findList(answer, ['events', 'webhook_events']);
	return listed && toOptions(listed, WEBHOOK_EVENT);
}

/** Webhook events the service lists with the known ones added, or the known ones when it lists none. */
export async function getWebhookEvents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const request = apiRequest.call(this, { method: 'GET', path: '/webhook_events', ...DROPDOWN_REQUEST });
	const answer = await request.catch((error: Error) => {
		this.logger.debug('Webhook event list unavailable, using the known events', { error: error.message });
	});
	const listed = webhookEventKinds(answer) ?? [];
	const known = KNOWN_WEBHOOK_EVENTS.map((e) => ({ name: e.name, value: e.name, description: e.description }));
	return [
		...listed.map((e) => ({ ...e, description: e.description ?? known.find((k) => k.value === e.value)?.description ?? '' })),
		...known.filter((k) => !listed.some((e) => e.value === k.value)),
	];
}
