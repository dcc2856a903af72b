import type { INodeProperties } from 'n8n-workflow';

import { bodyIdList, requireOneOf, requireText, queryDateTimeRange } from '../common/checks';
import { BULK_ACTIONS, BULK_MODERATION_URL, moderationSummary } from '../common/bulkModeration';
import { collection, feedLocator, listFields, postLocator } from '../common/fields';
import { MEDIA_CHOICES } from '../common/media/medium';
import { feedPostShape, simplifyField, toolOutputFields } from '../../shared/simplify';
import { checkDownloadFields, downloadMedia, downloadMediaFields } from '../common/media/downloadMedia';
import { route } from '../common/routing';

const show = { resource: ['post'] };
const postsUrl = '=/feeds/{{$parameter.feedId}}/posts';
const postUrl = `${postsUrl}/{{$parameter.postId}}`;

function postAction(action: 'approve' | 'pin' | 'reject' | 'unpin') {
	return route({ method: 'POST', url: `${postUrl}/${action}`, verify: 'the post (Post › Get)' });
}

export const postDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Approve',
				value: 'approve',
				description: 'Make a moderated, rejected or deleted post public again',
				action: 'Approve a post',
				routing: postAction('approve'),
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Hide a post from the feed. The delete is soft: Approve brings the post back.',
				action: 'Delete a post',
				routing: route({ method: 'DELETE', url: postUrl }),
			},
			{
				name: 'Download Media',
				value: 'downloadMedia',
				description: 'Download the images and videos of a post as files, one item per file',
				action: 'Download the media of a post',
				routing: route({
					method: 'GET',
					url: postUrl,
					shape: feedPostShape,
					ofFeed: true,
					prepare: [requireOneOf('media', 'Media', MEDIA_CHOICES), checkDownloadFields],
					files: downloadMedia,
				}),
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a post of a feed',
				action: 'Get a post',
				routing: route({ method: 'GET', url: postUrl, shape: feedPostShape, ofFeed: true }),
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get the posts of a feed, newest first, optionally filtered',
				action: 'Get many posts',
				routing: route({
					method: 'GET',
					url: postsUrl,
					list: 'paged',
					shape: feedPostShape,
					ofFeed: true,
					prepare: [
						queryDateTimeRange(
							{ path: 'filters.after', label: 'After date', property: 'starting_at' },
							{ path: 'filters.before', label: 'Before date', property: 'ending_at' },
						),
					],
				}),
			},
			{
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
			},
			{
				name: 'Pin',
				value: 'pin',
				description: 'Pin a post to the top of the feed',
				action: 'Pin a post',
				routing: postAction('pin'),
			},
			{
				name: 'Reject',
				value: 'reject',
				description: 'Reject a post so that the feed no longer shows it',
				action: 'Reject a post',
				routing: postAction('reject'),
			},
			{
				name: 'Search Across Feeds',
				value: 'search',
				description: 'Search the posts of every feed of the account; each post names its feed',
				action: 'Search posts across feeds',
				routing: route({
					method: 'GET',
					url: '/search/posts',
					list: 'paged',
					shape: feedPostShape,
					prepare: [requireText('query', 'Search Text')],
				}),
			},
			{
				name: 'Unpin',
				value: 'unpin',
				description: 'Unpin a pinned post',
				action: 'Unpin a post',
				routing: postAction('unpin'),
			},
		],
		default: 'getAll',
	},

	feedLocator({ ...show, operation: ['approve', 'delete', 'downloadMedia', 'get', 'getAll', 'moderateMany', 'pin', 'reject', 'unpin'] }),
	postLocator({ ...show, operation: ['approve', 'delete', 'downloadMedia', 'get', 'pin', 'reject', 'unpin'] }, 'The post, one of the chosen feed’s posts'),

	// Download Media
	...downloadMediaFields,

	// Moderate Many
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

	// Search Across Feeds
	{
		displayName: 'Search Text',
		name: 'query',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. launch',
		description: 'Words to find in the posts of every feed',
		hint: 'Searches the posts the feeds have already collected, without spending credits. For a fresh lookup on the platforms (which spends credits per platform and page), use the Social Aggregator Data node.',
		displayOptions: { show: { ...show, operation: ['search'] } },
		routing: { send: { type: 'query', property: 'q' } },
	},

	...listFields({ ...show, operation: ['getAll', 'search'] }),
	// On for the lists; a single post asked for by ID comes whole unless asked otherwise.
	simplifyField({ ...show, operation: ['getAll', 'search'] }, true),
	simplifyField({ ...show, operation: ['get'] }, false),
	// On for Download Media: the post comes with each of its files.
	simplifyField({ ...show, operation: ['downloadMedia'] }, true),
	...toolOutputFields({ ...show, operation: ['downloadMedia', 'get', 'getAll', 'search'] }, feedPostShape),

	// Get Many
	collection('Filters', 'filters', { ...show, operation: ['getAll'] }, [
		{
			displayName: 'After',
			name: 'after',
			type: 'dateTime',
			default: '',
			description: 'Only posts published after this time (in the workflow time zone)',
		},
		{
			displayName: 'Before',
			name: 'before',
			type: 'dateTime',
			default: '',
			description: 'Only posts published before this time (in the workflow time zone)',
		},
		{
			displayName: 'Search Text',
			name: 'search',
			type: 'string',
			default: '',
			placeholder: 'e.g. launch',
			description: 'Only posts whose message, poster name or description contains this text',
			routing: { send: { type: 'query', property: 'search' } },
		},
		{
			displayName: 'Source Names or IDs',
			name: 'sources',
			type: 'multiOptions',
			default: [],
			description:
				'Only posts from these sources of the feed. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			typeOptions: { loadOptionsMethod: 'getFeedSources', loadOptionsDependsOn: ['feedId.value'] },
			routing: {
				send: {
					type: 'query',
					property: 'filter',
					value: '={{ [].concat($value).map(s => String(s).trim()).filter(s => s).join(",") }}',
				},
			},
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			default: 'public',
			description: 'Only posts in this moderation state',
			options: [
				{ name: 'Moderated', value: 'moderated', description: 'Held back for review' },
				{ name: 'Public', value: 'public', description: 'Shown in the feed' },
				{ name: 'Rejected', value: 'rejected', description: 'Refused by a moderator or the AI moderation' },
			],
			routing: { send: { type: 'query', property: 'status' } },
		},
	]),
];
