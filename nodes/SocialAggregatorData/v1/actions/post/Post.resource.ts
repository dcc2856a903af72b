import type { INodeProperties } from 'n8n-workflow';

import * as search from './search.operation';

export { search };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['post'] } },
		options: [
			{
				name: 'Search',
				value: 'search',
				description: 'Look up recent posts for a term on several platforms at once, without creating a feed',
				action: 'Search posts',
			},
		],
		default: 'search',
	},
	...search.description,
];
