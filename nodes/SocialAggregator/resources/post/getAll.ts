import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { feedPostShape } from '../../../shared/simplify';
import { queryDateTimeRange } from '../../common/checks';
import { collection } from '../../common/fields';
import { route } from '../../common/routing';
import { postsUrl, show } from './feedPost';

export const postGetAll: INodePropertyOptions = {
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
};

/** Its Return All, Limit, Simplify and Output Fields are the index's, shared with Search Across Feeds. */
export const postGetAllFields: INodeProperties[] = [
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
