import type { INodeProperties } from 'n8n-workflow';

import * as lookUp from './lookUp.operation';

export { lookUp };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['profile'] } },
		options: [
			{
				name: 'Look Up',
				value: 'lookUp',
				description: 'Find the profiles (and Google place IDs) behind up to 5 handles on several platforms',
				action: 'Look up profiles',
			},
		],
		default: 'lookUp',
	},
	...lookUp.description,
];
