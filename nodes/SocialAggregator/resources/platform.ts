import type { INodeProperties } from 'n8n-workflow';

import { listFields } from '../common/fields';
import { route } from '../common/routing';

const show = { resource: ['platform'] };

export const platformDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'Get the platforms sources can collect from, each with its term types and the connected account a term type needs',
				action: 'Get many platforms',
				routing: route({ method: 'GET', url: '/platforms', list: 'whole' }),
			},
		],
		default: 'getAll',
	},
	...listFields({ ...show, operation: ['getAll'] }),
];
