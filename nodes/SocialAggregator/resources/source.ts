import type { INodeProperties } from 'n8n-workflow';

import { requireText, bodyJsonObject } from '../common/checks';
import { collection, feedLocator, listFields, sourceLocator } from '../common/fields';
import { route } from '../common/routing';

const show = { resource: ['source'] };
const sourcesUrl = '=/feeds/{{$parameter.feedId}}/sources';

export const sourceDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Add a source to a feed: a handle, hashtag or other term on one platform. The plan decides how many sources an account can have.',
				action: 'Create a source',
				routing: route({
					method: 'POST',
					url: sourcesUrl,
					prepare: [
						requireText('platform', 'Platform'),
						requireText('termType', 'Term Type'),
						requireText('term', 'Term'),
						bodyJsonObject('options.sourceOptions', 'options', 'Source Options'),
					],
					verify: "the feed's sources (Source › Get Many)",
				}),
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Remove a source from a feed',
				action: 'Delete a source',
				routing: route({ method: 'DELETE', url: `${sourcesUrl}/{{$parameter.sourceId}}` }),
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get the sources of a feed',
				action: 'Get many sources',
				routing: route({ method: 'GET', url: sourcesUrl, list: 'paged' }),
			},
		],
		default: 'getAll',
	},

	feedLocator(show),

	// Create
	{
		displayName: 'Platform Name or ID',
		name: 'platform',
		type: 'options',
		required: true,
		default: '',
		description:
			'The platform to collect from. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		typeOptions: { loadOptionsMethod: 'getPlatforms' },
		displayOptions: { show: { ...show, operation: ['create'] } },
		routing: { send: { type: 'body', property: 'platform' } },
	},
	{
		displayName: 'Term Type Name or ID',
		name: 'termType',
		type: 'options',
		required: true,
		default: '',
		description:
			'How the term is read on the platform: a username, a hashtag, a channel, and so on. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		hint: 'Some term types need a connected social account: check Social Account → Get Connection Status, and use Create Connection Link to connect one',
		typeOptions: { loadOptionsMethod: 'getTermTypes', loadOptionsDependsOn: ['platform'] },
		displayOptions: { show: { ...show, operation: ['create'] } },
		routing: { send: { type: 'body', property: 'term_type' } },
	},
	{
		displayName: 'Term',
		name: 'term',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. @nasa or #sunset',
		description: 'The handle, hashtag, channel or keyword to collect posts for',
		displayOptions: { show: { ...show, operation: ['create'] } },
		routing: { send: { type: 'body', property: 'term' } },
	},
	collection('Options', 'options', { ...show, operation: ['create'] }, [
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			placeholder: 'e.g. NASA on Instagram',
			description: 'A name for the source; the service names it after the term otherwise',
			routing: { send: { type: 'body', property: 'name' } },
		},
		{
			displayName: 'Source Options',
			name: 'sourceOptions',
			type: 'json',
			default: '{}',
			description: 'Platform-specific settings of the source, as a JSON object',
		},
	]),

	// Delete
	sourceLocator({ ...show, operation: ['delete'] }, 'The source to remove, one of the chosen feed’s sources'),

	// Get Many
	...listFields({ ...show, operation: ['getAll'] }),
];
