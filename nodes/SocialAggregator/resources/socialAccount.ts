import type { INodeProperties } from 'n8n-workflow';

import { requireText } from '../common/checks';
import { listFields } from '../common/fields';
import { route } from '../common/routing';

const show = { resource: ['socialAccount'] };

export const socialAccountDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Create Connection Link',
				value: 'createConnectionLink',
				description:
					'Create a one-time link (valid 30 minutes) where the account owner connects a social account, as some term types need',
				action: 'Create a connection link',
				routing: route({
					method: 'POST',
					url: '/social_accounts/connect_url',
					prepare: [requireText('provider', 'Provider')],
					verify: 'whether a new link is needed (each link can be used once, so asking again is harmless)',
				}),
			},
			{
				name: 'Disconnect',
				value: 'disconnect',
				description: 'Disconnect a social account; sources that need it stop collecting',
				action: 'Disconnect a social account',
				routing: route({ method: 'DELETE', url: '=/social_accounts/{{$parameter.socialAccountId}}' }),
			},
			{
				name: 'Get Connection Status',
				value: 'getConnectionStatus',
				description: 'Get which platforms that need a connected account are connected, one item per platform',
				action: 'Get the connection status of social accounts',
				routing: route({ method: 'GET', url: '/social_accounts/status', answersList: true }),
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get the connected social accounts',
				action: 'Get many social accounts',
				routing: route({ method: 'GET', url: '/social_accounts', list: 'paged' }),
			},
		],
		default: 'getConnectionStatus',
	},

	// Create Connection Link
	{
		displayName: 'Provider Name or ID',
		name: 'provider',
		type: 'options',
		required: true,
		default: '',
		description:
			'The service to connect an account of, as the platforms list names it. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		typeOptions: { loadOptionsMethod: 'getConnectionProviders' },
		displayOptions: { show: { ...show, operation: ['createConnectionLink'] } },
		routing: { send: { type: 'body', property: 'provider' } },
	},

	// Disconnect
	{
		displayName: 'Social Account Name or ID',
		name: 'socialAccountId',
		type: 'options',
		required: true,
		default: '',
		description:
			'The connected account to disconnect. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		typeOptions: { loadOptionsMethod: 'getSocialAccounts' },
		displayOptions: { show: { ...show, operation: ['disconnect'] } },
	},

	// Get Many
	...listFields({ ...show, operation: ['getAll'] }),
];
