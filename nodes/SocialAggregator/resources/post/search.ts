import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { feedPostShape } from '../../../shared/simplify';
import { requireText } from '../../common/checks';
import { route } from '../../common/routing';
import { show } from './feedPost';

export const postSearch: INodePropertyOptions = {
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
};

/** Its Return All, Limit, Simplify and Output Fields are the index's, shared with Get Many. */
export const postSearchFields: INodeProperties[] = [
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
];
