export const CREDENTIAL_NAME = 'socialAggregatorApi';

/** The largest `per_page` the service accepts on paged lists. */
export const MAX_PER_PAGE = 100;

export const DATA_TERM_TYPES = ['username', 'hashtag', 'channel', 'mentions', 'reviews'] as const;
export type DataTermType = (typeof DATA_TERM_TYPES)[number];

/** The Data API's platforms and their term types (docs/service.md#term-types): the dropdown fallback, and the rule checked before any request. */
export const DATA_API_TERM_TYPES: Record<string, DataTermType[]> = {
	Bluesky: ['username', 'hashtag'],
	Twitter: ['username', 'hashtag', 'mentions'],
	YouTube: ['username', 'channel', 'hashtag'],
	Vimeo: ['username'],
	Facebook: ['username', 'hashtag'],
	Instagram: ['username', 'hashtag'],
	Tumblr: ['username', 'hashtag'],
	Pinterest: ['username', 'hashtag'],
	Flickr: ['username'],
	Giphy: ['username'],
	LinkedIn: ['username', 'hashtag'],
	Reddit: ['channel', 'mentions'],
	TikTok: ['username', 'hashtag', 'mentions'],
	Google: ['reviews'],
};

/** Display names for the platforms whose request name differs from what users know. */
export const PLATFORM_DISPLAY_NAMES: Record<string, string> = {
	Twitter: 'X (Twitter)',
	Google: 'Google Reviews',
};

export const KNOWN_WEBHOOK_EVENTS: Array<{ name: string; description: string }> = [
	{ name: 'post.created', description: 'New posts were collected for a feed' },
	{
		name: 'social_account.expiring',
		description: 'A connected social account expires within 5 days',
	},
	{ name: 'social_account.expired', description: 'A connected social account has expired' },
];
