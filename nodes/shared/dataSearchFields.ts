import type { INodeProperties } from 'n8n-workflow';

import { AUTO_DETECT } from './dataSearch';

/** A Data API search's parameters as the Data node and the Data Trigger show them; checked by `checkDataSearch`. */

/** The platforms multi-select: live from GET /platforms (connection-free ones), SPEC.md’s table as fallback. */
export const platformsField: INodeProperties = {
	displayName: 'Platform Names or IDs',
	name: 'platforms',
	type: 'multiOptions',
	typeOptions: { loadOptionsMethod: 'getDataPlatforms' },
	required: true,
	default: [],
	description:
		'Platforms that can be searched without a connected account. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

/** Term, Platforms and Term Type, in that order. */
export const dataSearchFields: INodeProperties[] = [
	{
		displayName: 'Term',
		name: 'term',
		type: 'string',
		required: true,
		default: '',
		placeholder: '#nasa',
		description:
			'The handle, hashtag, keyword, subreddit or place ID to look up, read according to Term Type; for Google reviews, a place ID from Profiles → Look Up',
	},
	platformsField,
	{
		displayName: 'Term Type',
		name: 'termType',
		type: 'options',
		options: [
			{
				name: 'Auto-Detect',
				value: AUTO_DETECT,
				description: 'A term starting with # is a hashtag; one starting with @, or with no prefix, is a username',
			},
			{ name: 'Channel', value: 'channel', description: 'A channel or subreddit (YouTube, Reddit)' },
			{ name: 'Hashtag', value: 'hashtag' },
			{ name: 'Mentions', value: 'mentions', description: 'A keyword search (X, Reddit, TikTok)' },
			{ name: 'Reviews', value: 'reviews', description: 'Google reviews of a place; the term is its place ID' },
			{ name: 'Username', value: 'username' },
		],
		default: AUTO_DETECT,
		description:
			'How the term is read, applied to every chosen platform. Reddit needs Channel or Mentions; Google needs Reviews. A pair the platform does not take is refused before any request.',
	},
];
