import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { bodyIdList, requireOneOf } from '../../common/checks';
import { BULK_ACTIONS, BULK_MODERATION_URL, moderationSummary } from '../../common/bulkModeration';
import { route } from '../../common/routing';
import { show } from './feedPost';

export const postModerateMany: INodePropertyOptions = {
	name: 'Moderate Many',
	value: 'moderateMany',
	description: 'Approve, reject or delete several posts of a feed in one request',
	action: 'Moderate many posts',
	routing: route({
		method: 'POST',
		url: BULK_MODERATION_URL,
		prepare: [requireOneOf('bulkAction', 'Action', [...BULK_ACTIONS]), bodyIdList('postIds', 'ids', 'Post IDs', { required: true })],
		verify: 'the posts (Post › Get Many with a Status filter)',
		reshape: moderationSummary,
	}),
};

export const postModerateManyFields: INodeProperties[] = [
	{
		displayName: 'Action',
		name: 'bulkAction',
		type: 'options',
		required: true,
		default: 'approve',
		description: 'What to do with every post listed',
		options: [
			{ name: 'Approve', value: 'approve', description: 'Make the posts public (deleted ones come back)' },
			{ name: 'Delete', value: 'delete', description: 'Hide the posts from the feed; Approve brings them back' },
			{ name: 'Reject', value: 'reject', description: 'Reject the posts so that the feed no longer shows them' },
		],
		displayOptions: { show: { ...show, operation: ['moderateMany'] } },
		routing: { send: { type: 'body', property: 'action' } },
	},
	{
		displayName: 'Post IDs',
		name: 'postIds',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1001, 1002, 1003',
		description: 'The IDs of posts of the chosen feed, comma-separated, or a list given by an expression',
		hint: 'The output counts the posts acted on and, where the service lists its results, names those it could not act on',
		displayOptions: { show: { ...show, operation: ['moderateMany'] } },
	},
];
