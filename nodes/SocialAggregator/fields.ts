import type { INodeProperties } from 'n8n-workflow';

/** Parameters several resources share. */

type Show = Record<string, string[]>;

/** The feed, from a searchable list of the account's feeds or by ID (parameter `feedId`). */
export function feedLocator(show: Show, description = 'The feed to work on'): INodeProperties {
	return {
		displayName: 'Feed',
		name: 'feedId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		displayOptions: { show },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a feed...',
				typeOptions: { searchListMethod: 'searchFeeds', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 42',
				validation: [
					{
						type: 'regex',
						properties: { regex: '^\\s*[0-9]+\\s*$', errorMessage: 'A feed ID is a number, such as 42' },
					},
				],
			},
		],
	};
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

const PLACEHOLDERS: Record<string, string> = { Filters: 'Add Filter', Options: 'Add Option' };

/** A collection of optional fields: Additional Fields, Update Fields, Options or Filters. */
export function collection(displayName: string, name: string, show: Show, options: INodeProperties[]): INodeProperties {
	const placeholder = PLACEHOLDERS[displayName] ?? 'Add Field';
	return { displayName, name, type: 'collection', placeholder, default: {}, displayOptions: { show }, options };
}

/** A notice in the panel: what the user should know before running the operation. */
export function notice(name: string, show: Show, text: string): INodeProperties {
	return { displayName: text, name, type: 'notice', default: '', displayOptions: { show } };
}
