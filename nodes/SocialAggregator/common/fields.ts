import type { INodeProperties } from 'n8n-workflow';

/** Parameters several resources share. */

type Show = Record<string, string[]>;

/** What an ID locator picks: its parameter, its label, what it says, and the list search that finds it. */
interface IdLocator {
	name: string;
	displayName: string;
	/** The thing picked, in lower case after "a": `feed`, `webhook`. */
	noun: string;
	searchListMethod: string;
	description: string;
	example?: string;
	/** Picked within the feed chosen in `feedId`: the list reloads when that feed changes. */
	inFeed?: boolean;
}

/**
 * An ID from a searchable list or typed in (modes From List and By ID). No By URL: the service documents no
 * dashboard address that carries these IDs. A saved workflow's plain text value still works: every reader
 * (`$parameter.x` in routing, `parameterText`, `locatorValue`) takes either form.
 */
function idLocator(show: Show, locator: IdLocator): INodeProperties {
	const { noun, example = '42' } = locator;
	return {
		displayName: locator.displayName,
		name: locator.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: locator.description,
		displayOptions: { show },
		...(locator.inFeed ? { typeOptions: { loadOptionsDependsOn: ['feedId.value'] } } : {}),
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select a ${noun}...`,
				typeOptions: {
					searchListMethod: locator.searchListMethod,
					searchable: true,
				},
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: `e.g. ${example}`,
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '^\\s*[0-9]+\\s*$',
							errorMessage: `A ${noun} ID is a number, such as ${example}`,
						},
					},
				],
			},
		],
	};
}

/** The feed, from a searchable list of the account's feeds or by ID (parameter `feedId`). */
export function feedLocator(show: Show, description = 'The feed to work on'): INodeProperties {
	return idLocator(show, {
		name: 'feedId',
		displayName: 'Feed',
		noun: 'feed',
		searchListMethod: 'searchFeeds',
		description,
	});
}

/** A webhook subscription of the account, searchable by its URL, or by ID (parameter `webhookId`). */
export function webhookLocator(show: Show): INodeProperties {
	return idLocator(show, {
		name: 'webhookId',
		displayName: 'Webhook',
		noun: 'webhook',
		searchListMethod: 'searchWebhooks',
		description: 'The webhook subscription',
		example: '7',
	});
}

/** A source of the feed chosen in `feedId`, searchable by term or platform, or by ID (parameter `sourceId`). */
export function sourceLocator(show: Show, description: string): INodeProperties {
	return idLocator(show, {
		name: 'sourceId',
		displayName: 'Source',
		noun: 'source',
		searchListMethod: 'searchSources',
		description,
		inFeed: true,
	});
}

/** A post of the feed chosen in `feedId`, searchable by its text (the service's post search), or by ID. */
export function postLocator(show: Show, description: string): INodeProperties {
	return idLocator(show, {
		name: 'postId',
		displayName: 'Post',
		noun: 'post',
		searchListMethod: 'searchPosts',
		description,
		example: '1234',
		inFeed: true,
	});
}

/** Return All and Limit for a list operation. */
export function listFields(show: Show): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions: { show },
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			default: 50,
			typeOptions: { minValue: 1 },
			description: 'Max number of results to return',
			displayOptions: { show: { ...show, returnAll: [false] } },
		},
	];
}

const PLACEHOLDERS: Record<string, string> = {
	Filters: 'Add Filter',
	Options: 'Add Option',
};

/** A collection of optional fields: Additional Fields, Update Fields, Options or Filters. */
export function collection(displayName: string, name: string, show: Show, options: INodeProperties[]): INodeProperties {
	const placeholder = PLACEHOLDERS[displayName] ?? 'Add Field';
	return {
		displayName,
		name,
		type: 'collection',
		placeholder,
		default: {},
		displayOptions: { show },
		options,
	};
}

/** A notice in the panel: what the user should know before running the operation. */
export function notice(name: string, show: Show, text: string): INodeProperties {
	return {
		displayName: text,
		name,
		type: 'notice',
		default: '',
		displayOptions: { show },
	};
}
