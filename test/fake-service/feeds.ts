/** Feeds, sources, embed snippets, analytics and feed sync. */
import { AI_SENTIMENTS, CATALOG_BY_NAME, DEDUPLICATION_STRATEGIES, PLANS, SYNC_INTERVALS } from './catalog';
import { requireAuth, requireRole, upgradeAction } from './keys';
import { createPosts, postJson, type StatusMix } from './posts';
import type { Ctx } from './router';
import type { Service } from './service';
import { connectionAction, hasConnection } from './social';
import type { State } from './state';
import type { Feed, FeedModeration, FeedPost, Source } from './types';
import {
	ApiError,
	bodyObject,
	DAY,
	first,
	hash32,
	invalid,
	iso,
	isoDate,
	isPlainObject,
	MINUTE,
	notFound,
	paginate,
	parseDateOnly,
	parseIntStrict,
	parsePaging,
	type Details,
} from './util';

export function feedFor(ctx: Ctx, idParam: string): Feed {
	const auth = requireAuth(ctx);
	const id = parseIntStrict(idParam);
	const feed = id === undefined ? undefined : ctx.state.feeds.get(id);
	if (!feed || feed.accountId !== auth.account.id) throw notFound('Feed');
	if (auth.user.role === 'collaborator' && !auth.user.feedIds.includes(feed.id)) throw notFound('Feed');
	return feed;
}

export function sourceJson(state: State, s: Source): Record<string, unknown> {
	const feed = state.feeds.get(s.feedId);
	const tt = CATALOG_BY_NAME.get(s.platform)?.term_types.find((t) => t.term_type === s.termType);
	const provider = tt?.requires_connection?.provider;
	const syncable = !provider || !feed || hasConnection(state, feed.accountId, provider);
	return {
		id: s.id,
		feed_id: s.feedId,
		platform: s.platform,
		term: s.term,
		term_type: s.termType,
		name: s.name,
		options: s.options,
		syncable,
		unsyncable_reason: syncable ? null : `social_account_required: connect a ${provider} account`,
		synced_at: iso(s.syncedAt),
		created_at: iso(s.createdAt),
	};
}

export function feedJson(state: State, f: Feed, withSources = false): Record<string, unknown> {
	const sources = state.sourcesOf(f.id);
	const m = f.moderation;
	const out: Record<string, unknown> = {
		id: f.id,
		name: f.name,
		slug: slugOf(f),
		sync_interval: f.syncInterval,
		posts_count: state.visiblePosts(f.id).length,
		sources_count: sources.length,
		// The live record's names, which differ from the PATCH body's (queue → enabled, profanity → profanity_filter).
		// deduplication_strategy is not in the documented record; the fake shows it so that tests can read it back.
		moderation: {
			enabled: m.queue,
			allowed: m.allowed,
			disallowed: m.disallowed,
			profanity_filter: m.profanity,
			prevent_duplicates: m.prevent_duplicates,
			deduplication_strategy: m.deduplication_strategy,
			ai_moderation_available: PLANS[state.account(f.accountId).plan].aiModeration,
			ai_moderation: m.ai_moderation,
			ai_harmful_content_filter: m.ai_harmful_content_filter,
			ai_moderation_rules: m.ai_moderation_rules,
			ai_sentiment_filter: [...m.ai_sentiment_filter],
		},
		created_at: iso(f.createdAt),
		updated_at: iso(f.updatedAt),
	};
	if (withSources) out.sources = sources.map((s) => sourceJson(state, s));
	return out;
}

function validateFeedBody(body: Record<string, unknown>, creating: boolean): { name?: string; syncInterval?: number | null } {
	const details: Details = {};
	const out: { name?: string; syncInterval?: number | null } = {};
	if (body.name !== undefined || creating) {
		if (typeof body.name !== 'string' || !body.name.trim()) details.name = [creating && body.name === undefined ? 'is required' : 'must be a non-empty string'];
		else if (body.name.length > 255) details.name = ['is too long (maximum 255 characters)'];
		else out.name = body.name.trim();
	}
	if (body.sync_interval !== undefined) {
		if (body.sync_interval === null) out.syncInterval = null;
		else if (typeof body.sync_interval !== 'number' || !SYNC_INTERVALS.includes(body.sync_interval)) {
			details.sync_interval = [`must be one of ${SYNC_INTERVALS.join(', ')} or null`];
		} else out.syncInterval = body.sync_interval;
	}
	if (Object.keys(details).length) throw invalid(details);
	return out;
}

/** The feed's name in a URL ("Brand mentions" → "brand-mentions-1"). */
function slugOf(f: Feed): string {
	const words = f.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
	return words ? `${words}-${f.id}` : String(f.id);
}

export function defaultModeration(): FeedModeration {
	return {
		queue: false,
		allowed: '',
		disallowed: '',
		profanity: false,
		prevent_duplicates: false,
		deduplication_strategy: 'prioritize_top_source',
		ai_moderation: false,
		ai_harmful_content_filter: false,
		ai_moderation_rules: '',
		ai_sentiment_filter: [],
	};
}

const MODERATION_BOOLEANS = ['queue', 'profanity', 'prevent_duplicates', 'ai_moderation', 'ai_harmful_content_filter'] as const;
const MODERATION_TEXTS = ['allowed', 'disallowed', 'ai_moderation_rules'] as const;

/** The moderation settings of a PATCH body, checked by type (422 with details per field); absent ones stay undefined. */
function validateModeration(body: Record<string, unknown>): Partial<FeedModeration> {
	const details: Details = {};
	const out: Partial<FeedModeration> = {};
	for (const key of MODERATION_BOOLEANS) {
		if (body[key] === undefined) continue;
		if (typeof body[key] !== 'boolean') details[key] = ['must be true or false'];
		else out[key] = body[key];
	}
	for (const key of MODERATION_TEXTS) {
		if (body[key] === undefined) continue;
		if (body[key] === null) out[key] = '';
		else if (typeof body[key] !== 'string') details[key] = ['must be a string'];
		else if (key !== 'ai_moderation_rules' && /[\n\r]/.test(body[key])) details[key] = ['must be comma-separated words on one line'];
		else out[key] = key === 'ai_moderation_rules' ? body[key] : body[key].split(',').map((w) => w.trim()).filter(Boolean).join(',');
	}
	const strategy = body.deduplication_strategy;
	if (strategy !== undefined) {
		if (typeof strategy !== 'string' || !DEDUPLICATION_STRATEGIES.includes(strategy)) {
			details.deduplication_strategy = [`must be one of ${DEDUPLICATION_STRATEGIES.join(', ')}`];
		} else out.deduplication_strategy = strategy;
	}
	const sentiments = body.ai_sentiment_filter;
	if (sentiments !== undefined) {
		if (!Array.isArray(sentiments) || sentiments.some((v) => typeof v !== 'string' || !AI_SENTIMENTS.includes(v))) {
			details.ai_sentiment_filter = [`must be an array of ${AI_SENTIMENTS.join(', ')}`];
		} else out.ai_sentiment_filter = [...new Set(sentiments as string[])];
	}
	if (Object.keys(details).length) throw invalid(details);
	return out;
}

export function createFeed(state: State, accountId: number, name: string, syncInterval: number | null = null): Feed {
	const now = state.now();
	const feed: Feed = {
		id: state.nextId('feed'),
		accountId,
		name,
		syncInterval,
		moderation: defaultModeration(),
		createdAt: now,
		updatedAt: now,
		lastSyncedAt: now,
	};
	state.feeds.set(feed.id, feed);
	state.feedPosts.set(feed.id, []);
	return feed;
}

export function createSource(state: State, feed: Feed, platform: string, term: string, termType: string, name?: string, options: Record<string, unknown> = {}): Source {
	const now = state.now();
	const source: Source = { id: state.nextId('source'), feedId: feed.id, platform, term, termType, name: name ?? term, options, createdAt: now, syncedAt: now };
	state.sources.set(source.id, source);
	return source;
}

export function deleteFeed(state: State, feed: Feed): void {
	for (const s of state.sourcesOf(feed.id)) state.sources.delete(s.id);
	for (const p of state.feedPosts.get(feed.id) ?? []) state.posts.delete(p.id);
	state.feedPosts.delete(feed.id);
	state.feeds.delete(feed.id);
	for (const u of state.users.values()) u.feedIds = u.feedIds.filter((id) => id !== feed.id);
}

export interface SyncResult {
	posts: Record<string, unknown>[];
	deliveries: string[];
}

export interface SyncOptions {
	newPosts?: number;
	sourceId?: number;
	mix?: StatusMix;
	/** The posts were published this long before the sync stores them (a source synced late); default 0. */
	publishedBeforeMs?: number;
	/**
	 * The posts were published evenly over this span (ending `publishedBeforeMs` before now), all stored now: a source
	 * that syncs once a day stores a day of posts each morning. Default: a second apart.
	 */
	publishedOverMs?: number;
}

/**
 * A feed sync: `newPosts` new posts (newest now, or `publishedBeforeMs` before now, all stored now), round-robin over
 * the feed's sources (or only `sourceId`), then one `post.created` delivery per source and subscribed webhook.
 */
export function syncFeed(svc: Service, feedId: number, options: SyncOptions = {}): SyncResult {
	const state = svc.state;
	const feed = state.feeds.get(feedId);
	if (!feed) throw notFound('Feed');
	let sources = state.sourcesOf(feed.id);
	if (options.sourceId !== undefined) sources = sources.filter((s) => s.id === options.sourceId);
	if (options.sourceId !== undefined && !sources.length) throw notFound('Source');
	const now = svc.clock.now();
	const n = options.newPosts ?? 1;
	const late = Math.max(0, options.publishedBeforeMs ?? 0);
	const span = Math.max(0, options.publishedOverMs ?? 0);
	// Posts synced on time are never older than the newest existing post, so they come first by either order.
	const onTime = Math.max(now, ((state.feedPosts.get(feed.id) ?? [])[0]?.externalCreatedAt ?? 0) + n * 1000);
	const newest = late > 0 || span > 0 ? now - late : onTime;
	const storedAt = late > 0 || span > 0 ? now : undefined;
	const spacingMs = span > 0 ? Math.max(1, Math.floor(span / Math.max(1, n))) : 1000;
	const posts = n > 0 ? createPosts(state, feed, sources, n, { newestAt: newest, spacingMs, mix: options.mix, storedAt }) : [];
	feed.lastSyncedAt = now;
	for (const s of sources) s.syncedAt = now;
	const bySource = new Map<number, FeedPost[]>();
	for (const p of posts) bySource.set(p.sourceId, [...(bySource.get(p.sourceId) ?? []), p]);
	const deliveries: string[] = [];
	for (const [sourceId, list] of bySource) {
		const source = state.sources.get(sourceId);
		if (!source) continue;
		list.sort((a, b) => b.externalCreatedAt - a.externalCreatedAt || b.id - a.id);
		const data = { feed: feedJson(state, feed), source: sourceJson(state, source), posts: list.map(postJson) };
		for (const d of svc.webhooks.emit(feed.accountId, 'post.created', data)) deliveries.push(d.id);
	}
	posts.sort((a, b) => b.externalCreatedAt - a.externalCreatedAt || b.id - a.id);
	return { posts: posts.map(postJson), deliveries };
}

export interface SeedFeedOptions {
	/** Number of posts (e.g. 1050 for pagination tests, 5000 for benchmarks). */
	posts: number;
	accountId?: number;
	name?: string;
	sources?: Array<{ platform: string; term: string; term_type: string }>;
	/** 'public' (default): every post public; 'mixed': some moderated and rejected; 'moderated': all held for review. */
	mix?: StatusMix;
	/** Time between posts (default 10 minutes); the newest post is one minute before now. */
	spacingMs?: number;
	/** Assign the new feed to these collaborator user ids. */
	assignTo?: number[];
}

const DEFAULT_SEED_SOURCES = [
	{ platform: 'Twitter', term: '#bulk', term_type: 'hashtag' },
	{ platform: 'Instagram', term: 'bulkgram', term_type: 'username' },
	{ platform: 'YouTube', term: 'BulkChannel', term_type: 'channel' },
	{ platform: 'Bluesky', term: 'bulk.bsky.social', term_type: 'username' },
];

/** Control: a feed with N posts, bypassing plan limits. */
export function seedFeed(svc: Service, options: SeedFeedOptions): { feedId: number; sourceIds: number[]; postCount: number } {
	const state = svc.state;
	const accountId = options.accountId ?? 1;
	state.account(accountId);
	const feed = createFeed(state, accountId, options.name ?? `Seeded feed (${options.posts} posts)`);
	const sources = (options.sources ?? DEFAULT_SEED_SOURCES).map((s) => createSource(state, feed, s.platform, s.term, s.term_type));
	createPosts(state, feed, sources, options.posts, {
		newestAt: svc.clock.now() - MINUTE,
		spacingMs: options.spacingMs ?? 10 * MINUTE,
		mix: options.mix,
	});
	for (const userId of options.assignTo ?? []) {
		const user = state.users.get(userId);
		if (user && !user.feedIds.includes(feed.id)) user.feedIds.push(feed.id);
	}
	return { feedId: feed.id, sourceIds: sources.map((s) => s.id), postCount: options.posts };
}

function analytics(ctx: Ctx, feed: Feed): Record<string, unknown> {
	const details: Details = {};
	const today = Date.parse(`${isoDate(ctx.svc.clock.now())}T00:00:00.000Z`);
	const startRaw = first(ctx.query, 'start');
	const endRaw = first(ctx.query, 'end');
	const end = endRaw ? parseDateOnly(endRaw) : today;
	if (end === undefined) details.end = ['must be a date (YYYY-MM-DD)'];
	const start = startRaw ? parseDateOnly(startRaw) : (end ?? today) - 30 * DAY;
	if (start === undefined) details.start = ['must be a date (YYYY-MM-DD)'];
	if (start !== undefined && end !== undefined && start > end) details.start = ['must be on or before end'];
	if (Object.keys(details).length || start === undefined || end === undefined) throw invalid(details);
	const endInclusive = end + DAY - 1;
	const posts = ctx.state
		.visiblePosts(feed.id)
		.filter((p) => p.status === 'public' && p.externalCreatedAt >= start && p.externalCreatedAt <= endInclusive);
	const eng = (p: FeedPost) => p.counts.like_count + p.counts.comment_count + p.counts.share_count;
	let pageViews = 0;
	let clicks = 0;
	for (let day = start; day <= end; day += DAY) {
		if (day + DAY <= feed.createdAt) continue;
		const h = hash32(`${ctx.state.seed}|views|${feed.id}|${isoDate(day)}`);
		const views = 20 + (h % 80);
		pageViews += views;
		clicks += (h >>> 8) % Math.max(1, Math.floor(views / 5));
	}
	const sources = ctx.state.sourcesOf(feed.id).map((s) => {
		const own = posts.filter((p) => p.sourceId === s.id);
		return {
			id: s.id,
			platform: s.platform,
			term: s.term,
			posts_count: own.length,
			total_likes: own.reduce((a, p) => a + p.counts.like_count, 0),
			total_comments: own.reduce((a, p) => a + p.counts.comment_count, 0),
		};
	});
	const totalLikes = posts.reduce((a, p) => a + p.counts.like_count, 0);
	const totalComments = posts.reduce((a, p) => a + p.counts.comment_count, 0);
	const top = [...posts].sort((a, b) => eng(b) - eng(a) || b.id - a.id).slice(0, 5);
	return {
		period: { start: isoDate(start), end: isoDate(end) },
		summary: {
			total_posts: posts.length,
			total_likes: totalLikes,
			total_comments: totalComments,
			total_engagement: posts.reduce((a, p) => a + eng(p), 0),
			page_views: pageViews,
			clicks,
		},
		sources,
		top_posts: top.map(postJson),
	};
}

export const TOP_POSTS = 5;

export function registerFeeds(svc: Service): void {
	const api = svc.api;

	api.get('/feeds', (ctx) => {
		const auth = requireAuth(ctx);
		const paging = parsePaging(ctx.query);
		const include = (first(ctx.query, 'include') ?? '').split(',').map((s) => s.trim());
		const feeds = ctx.state
			.feedsOf(auth.account.id)
			.filter((f) => auth.user.role !== 'collaborator' || auth.user.feedIds.includes(f.id));
		return { status: 200, body: paginate(feeds, paging, (f) => feedJson(ctx.state, f, include.includes('sources'))) };
	});

	api.post('/feeds', (ctx) => {
		const auth = requireRole(ctx, ['owner', 'manager']);
		const input = validateFeedBody(bodyObject(ctx.body), true);
		const plan = PLANS[auth.account.plan];
		if (ctx.state.feedsOf(auth.account.id).length >= plan.maxFeeds) {
			throw new ApiError(
				422,
				'feed_limit_reached',
				`Your ${plan.displayName} plan allows ${plan.maxFeeds} feed${plan.maxFeeds === 1 ? '' : 's'}. Upgrade to create more.`,
				{},
				upgradeAction(svc, auth.account.id),
			);
		}
		const feed = createFeed(ctx.state, auth.account.id, input.name ?? '', input.syncInterval ?? null);
		return { status: 201, body: { data: feedJson(ctx.state, feed) } };
	});

	api.get('/feeds/:id', (ctx) => {
		const feed = feedFor(ctx, ctx.params.id);
		const include = (first(ctx.query, 'include') ?? '').split(',').map((s) => s.trim());
		return { status: 200, body: { data: feedJson(ctx.state, feed, include.includes('sources')) } };
	});

	api.patch('/feeds/:id', (ctx) => {
		const feed = feedFor(ctx, ctx.params.id);
		const body = bodyObject(ctx.body);
		const input = validateFeedBody(body, false);
		const moderation = validateModeration(body);
		const plan = PLANS[ctx.state.account(feed.accountId).plan];
		// Only PATCH takes the moderation settings (POST /feeds ignores them), as the service documents.
		if (moderation.ai_moderation === true && !plan.aiModeration) {
			const action = upgradeAction(svc, feed.accountId, 'team');
			throw new ApiError(
				422,
				'ai_moderation_not_available',
				`AI moderation is not available on your ${plan.displayName} plan. Upgrade to ${String(action.required_plan_display_name)} to turn it on.`,
				{},
				action,
			);
		}
		if (input.name !== undefined) feed.name = input.name;
		if (input.syncInterval !== undefined) feed.syncInterval = input.syncInterval;
		Object.assign(feed.moderation, moderation);
		feed.updatedAt = ctx.svc.clock.now();
		return { status: 200, body: { data: feedJson(ctx.state, feed) } };
	});

	api.delete('/feeds/:id', (ctx) => {
		requireRole(ctx, ['owner', 'manager']);
		const feed = feedFor(ctx, ctx.params.id);
		deleteFeed(ctx.state, feed);
		return { status: 204 };
	});

	api.get('/feeds/:feed_id/sources', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		const paging = parsePaging(ctx.query);
		return { status: 200, body: paginate(ctx.state.sourcesOf(feed.id), paging, (s) => sourceJson(ctx.state, s)) };
	});

	api.post('/feeds/:feed_id/sources', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		const auth = requireAuth(ctx);
		const body = bodyObject(ctx.body);
		const details: Details = {};
		const platformName = body.platform;
		const catalog = typeof platformName === 'string' ? CATALOG_BY_NAME.get(platformName) : undefined;
		if (platformName === undefined || platformName === '') details.platform = ['is required'];
		else if (!catalog) details.platform = ['is not a supported platform (see GET /platforms)'];
		const term = typeof body.term === 'string' ? body.term.trim() : '';
		if (!term) details.term = [body.term === undefined ? 'is required' : 'must be a non-empty string'];
		let termType = typeof body.term_type === 'string' ? body.term_type : undefined;
		if (body.term_type !== undefined && body.term_type !== null && typeof body.term_type !== 'string') details.term_type = ['must be a string'];
		if (catalog && !details.term_type) {
			const allowed = catalog.term_types.map((t) => t.term_type);
			if (termType === undefined && term) {
				const guess = term.startsWith('#') ? 'hashtag' : 'username';
				if (allowed.includes(guess)) termType = guess;
				else details.term_type = [`is required for ${catalog.platform} (one of ${allowed.join(', ')})`];
			} else if (termType !== undefined && !allowed.includes(termType)) {
				details.term_type = [`is not supported by ${catalog.platform} (one of ${allowed.join(', ')})`];
			}
		}
		if (body.name !== undefined && typeof body.name !== 'string') details.name = ['must be a string'];
		if (body.options !== undefined && !isPlainObject(body.options)) details.options = ['must be an object'];
		if (catalog && term && termType && !details.term_type) {
			const dup = ctx.state
				.sourcesOf(feed.id)
				.some((s) => s.platform === catalog.platform && s.termType === termType && s.term.toLowerCase() === term.toLowerCase());
			if (dup) details.term = ['already exists in this feed for this platform and term type'];
		}
		if (Object.keys(details).length || !catalog || !termType) throw invalid(details);
		const plan = PLANS[auth.account.plan];
		if (ctx.state.sourceCount(auth.account.id) >= plan.maxSources) {
			throw new ApiError(
				422,
				'source_limit_reached',
				`Your ${plan.displayName} plan allows ${plan.maxSources} sources. Upgrade to add more.`,
				{},
				upgradeAction(svc, auth.account.id),
			);
		}
		const needs = catalog.term_types.find((t) => t.term_type === termType)?.requires_connection;
		if (needs && !hasConnection(ctx.state, auth.account.id, needs.provider)) {
			throw new ApiError(
				422,
				'social_account_required',
				`${catalog.platform} ${termType} sources need a connected ${needs.provider} account. Open the connection link, then try again.`,
				{},
				connectionAction(svc, auth.account.id, needs.provider),
			);
		}
		const source = createSource(
			ctx.state,
			feed,
			catalog.platform,
			term,
			termType,
			typeof body.name === 'string' && body.name ? body.name : undefined,
			isPlainObject(body.options) ? body.options : {},
		);
		return { status: 201, body: { data: sourceJson(ctx.state, source) } };
	});

	api.delete('/feeds/:feed_id/sources/:id', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		const id = parseIntStrict(ctx.params.id);
		const source = id === undefined ? undefined : ctx.state.sources.get(id);
		if (!source || source.feedId !== feed.id) throw notFound('Source');
		ctx.state.sources.delete(source.id);
		// Posts collected by the source go with it.
		const list = ctx.state.feedPosts.get(feed.id) ?? [];
		for (const p of list) if (p.sourceId === source.id) ctx.state.posts.delete(p.id);
		ctx.state.feedPosts.set(
			feed.id,
			list.filter((p) => p.sourceId !== source.id),
		);
		return { status: 204 };
	});

	api.get('/feeds/:feed_id/embed', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		const feedUrl = `${svc.origin}/web/feeds/${feed.id}`;
		const shortcode = `[social-aggregator feed="${feed.id}"]`;
		return {
			status: 200,
			body: {
				data: {
					feed_url: feedUrl,
					javascript: `<script type="text/javascript" src="${svc.origin}/web/embed/${feed.id}.js" async></script>`,
					iframe: `<iframe src="${feedUrl}" width="100%" height="600" frameborder="0" title="${feed.name.replace(/"/g, '&quot;')}"></iframe>`,
					wordpress_shortcode: shortcode,
					wordpress_php: `<?php echo do_shortcode('${shortcode}'); ?>`,
				},
			},
		};
	});

	api.get('/feeds/:feed_id/analytics', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		return { status: 200, body: { data: analytics(ctx, feed) } };
	});

	svc.web.get('/feeds/:id', (ctx) => {
		const feed = ctx.state.feeds.get(Number(ctx.params.id));
		if (!feed) throw notFound('Feed');
		const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
		const items = ctx.state
			.visiblePosts(feed.id)
			.filter((p) => p.status === 'public')
			.slice(0, 50)
			.map((p) => `<li><b>${esc(p.poster.display_name)}</b> (${p.platform}): ${esc(p.message)}</li>`)
			.join('');
		return { status: 200, text: `<html><body><h1>${esc(feed.name)}</h1><ul>${items}</ul></body></html>` };
	});
}
