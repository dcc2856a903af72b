import type { INodeProperties } from 'n8n-workflow';

import { route } from '../common/routing';

const show = { resource: ['account'] };

export const accountDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get the account the API key belongs to, with its plan and role',
				action: 'Get the account',
				routing: route({ method: 'GET', url: '/account' }),
			},
		],
		default: 'get',
	},
];
