import type { INodeProperties } from 'n8n-workflow';

import { PLATFORM_CREDITS } from './budget';
import { AUTO_DETECT } from './dataSearch';

/** A Data API search's parameters as the Data node and the Data Trigger show them; checked by `checkDataSearch`. */

/** "1 for most platforms, 3 for Instagram, LinkedIn and TikTok, 6 for Facebook", from the budget's credit table. */
function creditList(): string {
	const byCost = new Map<number, string[]>();
	for (const [platform, cost] of Object.entries(PLATFORM_CREDITS)) byCost.set(cost, [...(byCost.get(cost) ?? []), platform]);
	const and = (names: string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]);
	const costs = [...byCost.entries()].sort(([a], [b]) => a - b).map(([cost, names]) => `${cost} for ${and(names)}`);
	return ['1 for most platforms', ...costs].join(', ');
}

/** What a page costs, for the hints where platforms, Return All and page counts are chosen. */
export const PAGE_COST = `Each page a platform returns spends credits: ${creditList()}.`;

/** The platforms multi-select: live from GET /platforms (connection-free ones), docs/service.md#term-types as fallback. */
export const platformsField: INodeProperties = {
	displayName: 'Platform Names or IDs',
	name: 'platforms',
	type: 'multiOptions',
	typeOptions: { loadOptionsMethod: 'getDataPlatforms' },
	required: true,
	default: [],
	description:
		'Platforms that can be searched without a connected account. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	hint: PAGE_COST,
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
			'The handle, hashtag, keyword, subreddit or place ID to look up, read according to Term Type; for Google reviews, a place ID: the place_id of a Google profile from Profiles → Look Up',
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
