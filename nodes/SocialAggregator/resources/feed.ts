import type { INodeProperties } from 'n8n-workflow';

import { requireText, requireUpdateFields } from '../common/checks';
import { collection, feedLocator, listFields } from '../common/fields';
import { applyModeration, checkModerationFirst, MODERATION_LABELS, moderationFields, bodyModeration } from '../common/moderation';
import { route } from '../common/routing';

const show = { resource: ['feed'] };
/** The fields of a collection in the panel's alphabetical order. */
const byName = (a: INodeProperties, b: INodeProperties) => a.displayName.localeCompare(b.displayName);
const feedUrl = '=/feeds/{{$parameter.feedId}}';

/** How often the feed collects new posts; 0 stands for the plan's default and is sent as null. */
const syncInterval: INodeProperties = {
	displayName: 'Sync Interval',
	name: 'syncInterval',
	type: 'options',
	options: [
		{ name: 'Every Minute', value: 1 },
		{ name: 'Every 5 Minutes', value: 5 },
		{ name: 'Every 10 Minutes', value: 10 },
		{ name: 'Every 30 Minutes', value: 30 },
		{ name: 'Every Hour', value: 60 },
		{ name: 'Every 4 Hours', value: 240 },
		{ name: 'Every Day', value: 1440 },
		{ name: 'Plan Default', value: 0 },
	],
	default: 0,
	description: 'How often the feed collects new posts. Short intervals may need a higher plan.',
	routing: { send: { type: 'body', property: 'sync_interval', value: '={{ $value === 0 ? null : $value }}' } },
};

const newName: INodeProperties = {
	displayName: 'Name',
	name: 'name',
	type: 'string',
	default: '',
	placeholder: 'e.g. Brand mentions',
	description: 'The new name of the feed',
	routing: { send: { type: 'body', property: 'name' } },
};

export const feedDescription: INodeProperties[] = [
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
				description: 'Create a feed, with its moderation settings; the plan decides how many feeds an account can have',
				action: 'Create a feed',
				routing: route({
					method: 'POST',
					url: '/feeds',
					prepare: [requireText('name', 'Name'), checkModerationFirst('additionalFields')],
					verify: 'whether the feed exists (Feed › Get Many)',
					after: applyModeration('additionalFields'),
				}),
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a feed with its sources and posts',
				action: 'Delete a feed',
				routing: route({ method: 'DELETE', url: feedUrl }),
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a feed',
				action: 'Get a feed',
				routing: route({ method: 'GET', url: feedUrl }),
			},
			{
				name: 'Get Embed Code',
				value: 'getEmbedCode',
				description: 'Get the snippets that show a feed on a website: script, iframe and WordPress',
				action: 'Get the embed code of a feed',
				routing: route({ method: 'GET', url: `${feedUrl}/embed` }),
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get many feeds',
				action: 'Get many feeds',
				routing: route({ method: 'GET', url: '/feeds', list: 'paged' }),
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Rename a feed, change how often it collects posts, or change its moderation settings',
				action: 'Update a feed',
				routing: route({
					method: 'PATCH',
					url: feedUrl,
					prepare: [
						bodyModeration('updateFields'),
						requireUpdateFields('updateFields', { name: 'Name', syncInterval: 'Sync Interval', ...MODERATION_LABELS }),
					],
					verify: 'the feed (Feed › Get)',
				}),
			},
		],
		default: 'getAll',
	},

	feedLocator({ ...show, operation: ['delete', 'get', 'getEmbedCode', 'update'] }),

	// Create
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Brand mentions',
		description: 'The name of the feed',
		displayOptions: { show: { ...show, operation: ['create'] } },
		routing: { send: { type: 'body', property: 'name' } },
	},
	collection('Additional Fields', 'additionalFields', { ...show, operation: ['create'] }, [...moderationFields, syncInterval].sort(byName)),

	// Get Many
	...listFields({ ...show, operation: ['getAll'] }),
	collection('Options', 'options', { ...show, operation: ['getAll'] }, [
		{
			displayName: 'Include Sources',
			name: 'includeSources',
			type: 'boolean',
			default: true,
			description: 'Whether to include the sources of each feed',
			routing: { send: { type: 'query', property: 'include', value: '={{ $value ? "sources" : "" }}' } },
		},
	]),

	// Update
	collection(
		'Update Fields',
		'updateFields',
		{ ...show, operation: ['update'] },
		[newName, syncInterval, ...moderationFields].sort(byName),
	),
];
