/** Static facts of the service: platforms and term types, plans, webhook events, providers. */

export type TermType = 'username' | 'hashtag' | 'channel' | 'mentions' | 'reviews';
export const DATA_TERM_TYPES: readonly TermType[] = ['username', 'hashtag', 'channel', 'mentions', 'reviews'];

export type EngagementField =
	| 'like_count'
	| 'comment_count'
	| 'share_count'
	| 'view_count'
	| 'quote_count'
	| 'bookmark_count'
	| 'impression_count';

export const ENGAGEMENT_FIELDS: readonly EngagementField[] = [
	'like_count',
	'comment_count',
	'share_count',
	'view_count',
	'quote_count',
	'bookmark_count',
	'impression_count',
];

export type MediaStyle = 'mixed' | 'image' | 'video' | 'none';

export interface DataPlatform {
	name: string;
	displayName: string;
	termTypes: TermType[];
	/** Posts per upstream page (SERVICE-NOTES: about 20 to 25). */
	pageSize: number;
	/** Pinterest: one page only, next_cursor null. */
	paginated: boolean;
	/** Credits spent per page fetched (SERVICE-NOTES). */
	credits: number;
	/** Engagement fields this platform reports (SPEC's Data API post table). */
	engagement: EngagementField[];
	media: MediaStyle;
	host: string;
	cdn: string;
}

const LIKES: EngagementField[] = ['like_count', 'comment_count'];

/** SPEC.md's table of connection-free Data API platforms, in its order. */
export const DATA_PLATFORMS: DataPlatform[] = [
	{ name: 'Bluesky', displayName: 'Bluesky', termTypes: ['username', 'hashtag'], pageSize: 25, paginated: true, credits: 1, engagement: [...LIKES, 'share_count', 'quote_count'], media: 'mixed', host: 'bsky.app', cdn: 'cdn.bsky.app' },
	{ name: 'Twitter', displayName: 'X (Twitter)', termTypes: ['username', 'hashtag', 'mentions'], pageSize: 20, paginated: true, credits: 1, engagement: [...LIKES, 'share_count', 'quote_count', 'bookmark_count', 'impression_count'], media: 'mixed', host: 'x.com', cdn: 'pbs.twimg.com' },
	{ name: 'YouTube', displayName: 'YouTube', termTypes: ['username', 'channel', 'hashtag'], pageSize: 20, paginated: true, credits: 1, engagement: [...LIKES, 'view_count'], media: 'video', host: 'www.youtube.com', cdn: 'i.ytimg.com' },
	{ name: 'Vimeo', displayName: 'Vimeo', termTypes: ['username'], pageSize: 24, paginated: true, credits: 1, engagement: [...LIKES], media: 'video', host: 'vimeo.com', cdn: 'i.vimeocdn.com' },
	{ name: 'Facebook', displayName: 'Facebook', termTypes: ['username', 'hashtag'], pageSize: 21, paginated: true, credits: 6, engagement: [...LIKES, 'share_count'], media: 'mixed', host: 'www.facebook.com', cdn: 'scontent.xx.fbcdn.net' },
	{ name: 'Instagram', displayName: 'Instagram', termTypes: ['username', 'hashtag'], pageSize: 24, paginated: true, credits: 3, engagement: [...LIKES], media: 'image', host: 'www.instagram.com', cdn: 'scontent.cdninstagram.com' },
	{ name: 'Tumblr', displayName: 'Tumblr', termTypes: ['username', 'hashtag'], pageSize: 20, paginated: true, credits: 1, engagement: [...LIKES], media: 'mixed', host: 'www.tumblr.com', cdn: '64.media.tumblr.com' },
	{ name: 'Pinterest', displayName: 'Pinterest', termTypes: ['username', 'hashtag'], pageSize: 25, paginated: false, credits: 1, engagement: [...LIKES], media: 'image', host: 'www.pinterest.com', cdn: 'i.pinimg.com' },
	{ name: 'Flickr', displayName: 'Flickr', termTypes: ['username'], pageSize: 25, paginated: true, credits: 1, engagement: [...LIKES], media: 'image', host: 'www.flickr.com', cdn: 'live.staticflickr.com' },
	{ name: 'Giphy', displayName: 'Giphy', termTypes: ['username'], pageSize: 25, paginated: true, credits: 1, engagement: [...LIKES], media: 'image', host: 'giphy.com', cdn: 'media.giphy.com' },
	{ name: 'LinkedIn', displayName: 'LinkedIn', termTypes: ['username', 'hashtag'], pageSize: 22, paginated: true, credits: 3, engagement: [...LIKES], media: 'mixed', host: 'www.linkedin.com', cdn: 'media.licdn.com' },
	{ name: 'Reddit', displayName: 'Reddit', termTypes: ['channel', 'mentions'], pageSize: 25, paginated: true, credits: 1, engagement: [...LIKES], media: 'mixed', host: 'www.reddit.com', cdn: 'i.redd.it' },
	{ name: 'TikTok', displayName: 'TikTok', termTypes: ['username', 'hashtag', 'mentions'], pageSize: 23, paginated: true, credits: 3, engagement: [...LIKES, 'share_count', 'view_count'], media: 'video', host: 'www.tiktok.com', cdn: 'p16-sign.tiktokcdn.com' },
	{ name: 'Google', displayName: 'Google Reviews', termTypes: ['reviews'], pageSize: 20, paginated: true, credits: 1, engagement: [], media: 'none', host: 'maps.google.com', cdn: 'lh3.googleusercontent.com' },
];

export const DATA_PLATFORM_BY_NAME = new Map(DATA_PLATFORMS.map((p) => [p.name, p]));

export interface Provider {
	provider: string;
	platform: string;
	allowsMultiple: boolean;
}

/** OAuth providers behind connection-requiring term types (GET /social_accounts/status). */
export const PROVIDERS: Provider[] = [
	{ provider: 'facebook', platform: 'Facebook', allowsMultiple: true },
	{ provider: 'instagram', platform: 'Instagram', allowsMultiple: true },
	{ provider: 'linkedin', platform: 'LinkedIn', allowsMultiple: true },
	{ provider: 'google_business', platform: 'Google', allowsMultiple: false },
	{ provider: 'threads', platform: 'Threads', allowsMultiple: false },
];

export const PROVIDER_BY_NAME = new Map(PROVIDERS.map((p) => [p.provider, p]));

export interface RequiresConnection {
	provider: string;
	description: string;
}

export interface CatalogTermType {
	term_type: string;
	display_name: string;
	requires_connection: RequiresConnection | null;
}

export interface CatalogPlatform {
	platform: string;
	display_name: string;
	term_types: CatalogTermType[];
}

const TERM_TYPE_NAMES: Record<string, string> = {
	username: 'Username',
	hashtag: 'Hashtag',
	channel: 'Channel',
	mentions: 'Mentions / keyword',
	reviews: 'Reviews (place id)',
};

function connection(provider: string, description: string): RequiresConnection {
	return { provider, description };
}

/** Feed-only term types (not usable in the Data API). */
const FEED_ONLY: Record<string, CatalogTermType[]> = {
	YouTube: [{ term_type: 'playlist', display_name: 'Playlist', requires_connection: null }],
	Facebook: [{ term_type: 'page', display_name: 'Page (own)', requires_connection: connection('facebook', 'A connected Facebook account that manages the page') }],
	Instagram: [{ term_type: 'business', display_name: 'Business account (own)', requires_connection: connection('instagram', 'A connected Instagram business account') }],
	LinkedIn: [{ term_type: 'company', display_name: 'Company page (own)', requires_connection: connection('linkedin', 'A connected LinkedIn account that administers the company page') }],
	Google: [{ term_type: 'business_reviews', display_name: 'Business Profile reviews (own)', requires_connection: connection('google_business', 'A connected Google Business Profile account') }],
};

/** GET /platforms: the 14 Data API platforms plus feed-only platforms. */
export const PLATFORM_CATALOG: CatalogPlatform[] = [
	...DATA_PLATFORMS.map((p) => ({
		platform: p.name,
		display_name: p.displayName,
		term_types: [
			...p.termTypes.map((t) => ({
				term_type: t,
				display_name: p.name === 'Reddit' && t === 'channel' ? 'Subreddit' : TERM_TYPE_NAMES[t],
				requires_connection: null,
			})),
			...(FEED_ONLY[p.name] ?? []),
		],
	})),
	{
		platform: 'Threads',
		display_name: 'Threads',
		term_types: [
			{ term_type: 'username', display_name: 'Username', requires_connection: connection('threads', 'A connected Threads account') },
			{ term_type: 'hashtag', display_name: 'Hashtag', requires_connection: connection('threads', 'A connected Threads account') },
		],
	},
	{
		platform: 'RSS',
		display_name: 'RSS / Blog',
		term_types: [{ term_type: 'url', display_name: 'Feed URL', requires_connection: null }],
	},
];

/**
 * GET /platforms in the live shape: `requires_connection` is an object, a boolean, null or absent (SERVICE-NOTES.md).
 * A term type the Data API serves says `false`, a feed-only one without a connection is null (YouTube) or has no
 * such field (RSS), and one of Threads' says only `true`.
 */
export function livePlatformCatalog(): Array<Record<string, unknown>> {
	return PLATFORM_CATALOG.map((p) => ({
		...p,
		term_types: p.term_types.map((t): Record<string, unknown> => {
			if (t.requires_connection !== null) return p.platform === 'Threads' && t.term_type === 'hashtag' ? { ...t, requires_connection: true } : { ...t };
			if (DATA_PLATFORM_BY_NAME.get(p.platform)?.termTypes.includes(t.term_type as TermType)) return { ...t, requires_connection: false };
			if (p.platform === 'RSS') return { term_type: t.term_type, display_name: t.display_name };
			return { ...t };
		}),
	}));
}

export const CATALOG_BY_NAME = new Map(PLATFORM_CATALOG.map((p) => [p.platform, p]));

export type PlanId = 'free' | 'pro' | 'team' | 'enterprise';

export interface Plan {
	id: PlanId;
	displayName: string;
	maxFeeds: number;
	/** Sources across the whole account. */
	maxSources: number;
	canInviteUsers: boolean;
	/** Whether feeds may turn on AI moderation (else 422 `ai_moderation_not_available`). */
	aiModeration: boolean;
	requestsPerHour: number;
	burstPerMinute: number;
}

export const PLANS: Record<PlanId, Plan> = {
	free: { id: 'free', displayName: 'Free', maxFeeds: 1, maxSources: 3, canInviteUsers: false, aiModeration: false, requestsPerHour: 300, burstPerMinute: 60 },
	pro: { id: 'pro', displayName: 'Pro', maxFeeds: 10, maxSources: 50, canInviteUsers: false, aiModeration: false, requestsPerHour: 1000, burstPerMinute: 120 },
	team: { id: 'team', displayName: 'Team', maxFeeds: 25, maxSources: 200, canInviteUsers: true, aiModeration: true, requestsPerHour: 10000, burstPerMinute: 1000 },
	enterprise: { id: 'enterprise', displayName: 'Enterprise', maxFeeds: 100, maxSources: 1000, canInviteUsers: true, aiModeration: true, requestsPerHour: 20000, burstPerMinute: 2000 },
};

const PLAN_ORDER: PlanId[] = ['free', 'pro', 'team', 'enterprise'];

export function nextPlan(plan: PlanId): PlanId {
	const i = PLAN_ORDER.indexOf(plan);
	return PLAN_ORDER[Math.min(i + 1, PLAN_ORDER.length - 1)];
}

export const WEBHOOK_EVENTS = [
	{ name: 'post.created', description: 'New posts were collected for a source of a feed' },
	{ name: 'social_account.expiring', description: 'A connected social account expires within 5 days' },
	{ name: 'social_account.expired', description: 'A connected social account has expired and must be reconnected' },
];

export const WEBHOOK_EVENT_NAMES = WEBHOOK_EVENTS.map((e) => e.name);

export const SYNC_INTERVALS = [1, 5, 10, 30, 60, 240, 1440];

export const DEDUPLICATION_STRATEGIES = ['prioritize_top_source', 'distribute_across_sources'];
export const AI_SENTIMENTS = ['positive', 'neutral', 'negative'];

export const KEY_PREFIX = 'sag_live_';
