/** Feed posts: generation, the list with its filters, moderation, pin, cross-feed search. */
import { DATA_PLATFORM_BY_NAME, ENGAGEMENT_FIELDS } from './catalog';
import { generatePost, stripPrefix } from './content';
import { feedFor } from './feeds';
import { requireAuth } from './keys';
import type { Ctx } from './router';
import type { Service } from './service';
import type { State } from './state';
import type { Feed, FeedPost, ModerationStatus, PostOrder, Source } from './types';
import { bodyObject, first, hash32, invalid, iso, notFound, paginate, parseIntStrict, parsePaging, parseTime, type Details } from './util';

export const MODERATION_STATUSES: ModerationStatus[] = ['public', 'moderated', 'rejected'];

const SENTIMENTS = ['positive', 'neutral', 'negative'];

/** 'public': every post public; 'mixed': some moderated and rejected; 'moderated': every post held for review. */
export type StatusMix = 'public' | 'mixed' | 'moderated';

/** One feed post for a source; `mix` decides whether some posts start moderated or rejected. */
export function buildFeedPost(state: State, feed: Feed, source: Source, createdAt: number, mix: StatusMix, storedAt = createdAt): FeedPost {
	const seq = (state.sourceSeq.get(source.id) ?? 0) + 1;
	state.sourceSeq.set(source.id, seq);
	const g = generatePost(source.platform, source.termType, source.term, seq, createdAt, `${state.seed}|feed${feed.id}`);
	const id = state.nextId('post', 1001);
	let status: ModerationStatus = mix === 'moderated' ? 'moderated' : 'public';
	if (mix === 'mixed') {
		if (id % 13 === 0) status = 'moderated';
		else if (id % 29 === 0) status = 'rejected';
	}
	const known = DATA_PLATFORM_BY_NAME.get(source.platform);
	const counts: Record<string, number> = {};
	for (const field of ENGAGEMENT_FIELDS) {
		// Feed posts carry every count; platforms that do not report one give 0.
		counts[field] = known && known.engagement.includes(field) ? g.counts[field] : 0;
	}
	return {
		id,
		feedId: feed.id,
		sourceId: source.id,
		externalId: g.platformId,
		platform: source.platform,
		url: g.url,
		message: g.message,
		description: g.description,
		externalCreatedAt: createdAt,
		poster: g.poster,
		media: g.media,
		counts,
		taggedUsers: g.taggedUsers,
		status,
		deleted: false,
		aiSentiment: status === 'moderated' ? 'negative' : SENTIMENTS[hash32(g.platformId) % SENTIMENTS.length],
		aiDecisionReason: status === 'moderated' ? 'harmful_content' : status === 'rejected' ? 'spam' : 'none',
		aiModerationReasoning:
			status === 'moderated'
				? 'The message may contain harmful content and awaits review.'
				: status === 'rejected'
					? 'The message looks like spam.'
					: 'No issues found.',
		pinned: false,
		referencedPost: g.referencedPost,
		resharedBy: g.resharedBy,
		createdAt: Math.max(storedAt, feed.createdAt),
	};
}

/**
 * `count` posts spread round-robin over `sources`, the newest published at `newestAt`, `spacingMs` apart; stored when
 * published, or all at `storedAt` (a sync that collects posts published earlier).
 */
export function createPosts(
	state: State,
	feed: Feed,
	sources: Source[],
	count: number,
	options: { newestAt: number; spacingMs: number; mix?: StatusMix; storedAt?: number },
): FeedPost[] {
	const posts: FeedPost[] = [];
	if (!sources.length) return posts;
	// Oldest first so ids grow with time.
	for (let i = count - 1; i >= 0; i--) {
		const source = sources[i % sources.length];
		const publishedAt = options.newestAt - i * options.spacingMs;
		posts.push(buildFeedPost(state, feed, source, publishedAt, options.mix ?? 'public', options.storedAt ?? publishedAt));
	}
	state.insertPosts(feed.id, posts);
	return posts;
}

export function postJson(p: FeedPost): Record<string, unknown> {
	return {
		id: p.id,
		feed_id: p.feedId,
		source_id: p.sourceId,
		external_id: p.externalId,
		platform: p.platform,
		url: p.url,
		message: p.message,
		description: p.description,
		external_created_at: iso(p.externalCreatedAt),
		poster: p.poster,
		media: p.media,
		...p.counts,
		tagged_users: p.taggedUsers,
		moderation_status: p.status,
		ai_sentiment: p.aiSentiment,
		ai_decision_reason: p.aiDecisionReason,
		ai_moderation_reasoning: p.aiModerationReasoning,
		pinned: p.pinned,
		referenced_post: p.referencedPost,
		reshared_by: p.resharedBy,
		created_at: iso(p.createdAt),
	};
}

/** A feed's posts in the order the list answers them in (`PostOrder`). */
export function orderPosts(posts: FeedPost[], order: PostOrder): FeedPost[] {
	if (order === 'stored') return [...posts].sort((a, b) => b.id - a.id);
	return [...posts].sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.externalCreatedAt - a.externalCreatedAt || b.id - a.id);
}

function textMatch(p: FeedPost, needle: string): boolean {
	const n = needle.toLowerCase();
	return (
		p.message.toLowerCase().includes(n) ||
		p.poster.name.toLowerCase().includes(n) ||
		p.poster.display_name.toLowerCase().includes(n) ||
		p.description.toLowerCase().includes(n)
	);
}

/** `filter`: comma-separated; each entry matches a source by numeric id, platform name or term. */
export function sourcesMatching(sources: Source[], filter: string): Set<number> {
	const ids = new Set<number>();
	for (const raw of filter.split(',')) {
		const entry = raw.trim();
		if (!entry) continue;
		const lower = entry.toLowerCase();
		for (const s of sources) {
			if (/^\d+$/.test(entry) && s.id === Number(entry)) ids.add(s.id);
			else if (s.platform.toLowerCase() === lower) ids.add(s.id);
			else if (s.term.toLowerCase() === lower || stripPrefix(s.term).toLowerCase() === stripPrefix(lower)) ids.add(s.id);
		}
	}
	return ids;
}

function parseStatus(value: string | undefined, details: Details): Set<ModerationStatus> | null {
	if (value === undefined || value === '') return null;
	const set = new Set<ModerationStatus>();
	for (const s of value.split(',').map((x) => x.trim())) {
		if (!(MODERATION_STATUSES as string[]).includes(s)) {
			details.status = [`must be one of ${MODERATION_STATUSES.join(', ')}`];
			return null;
		}
		set.add(s as ModerationStatus);
	}
	return set;
}

/** The actions of `POST /feeds/{feed_id}/posts/bulk`. */
export const BULK_ACTIONS = ['approve', 'reject', 'delete'] as const;

type BulkAction = (typeof BULK_ACTIONS)[number];

/** `{ action, ids }` of a bulk action, checked: 422 `validation_failed` per field. */
function bulkInput(body: unknown): { action: BulkAction; ids: number[] } {
	const input = bodyObject(body);
	const details: Details = {};
	const action = input.action as BulkAction;
	if (!BULK_ACTIONS.includes(action)) details.action = [`must be one of ${BULK_ACTIONS.join(', ')}`];
	const ids = input.ids;
	if (!Array.isArray(ids) || ids.length === 0) details.ids = [ids === undefined ? 'is required' : 'must be a non-empty array of post ids'];
	else if (!ids.every((id) => Number.isSafeInteger(id) && (id as number) > 0)) details.ids = ['must hold post ids (whole numbers)'];
	if (Object.keys(details).length) throw invalid(details);
	return { action, ids: [...new Set(ids as number[])] };
}

/**
 * One post of a bulk action, by the rules of its own route: approve brings a deleted post back; reject and delete
 * need a visible one. False when the feed has no such post (to act on).
 */
function moderate(post: FeedPost | undefined, feed: Feed, action: BulkAction): boolean {
	if (!post || post.feedId !== feed.id || (post.deleted && action !== 'approve')) return false;
	if (action === 'approve') {
		post.deleted = false;
		post.status = 'public';
	} else if (action === 'reject') post.status = 'rejected';
	else post.deleted = true;
	return true;
}

function postIn(ctx: Ctx, feed: Feed, includeDeleted = false): FeedPost {
	const id = parseIntStrict(ctx.params.id);
	const post = id === undefined ? undefined : ctx.state.posts.get(id);
	if (!post || post.feedId !== feed.id || (post.deleted && !includeDeleted)) throw notFound('Post');
	return post;
}

export function registerPosts(svc: Service): void {
	svc.api.get('/feeds/:feed_id/posts', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		const paging = parsePaging(ctx.query);
		const details: Details = {};
		const statuses = parseStatus(first(ctx.query, 'status'), details);
		const search = first(ctx.query, 'search');
		const filter = first(ctx.query, 'filter');
		const startRaw = first(ctx.query, 'starting_at');
		const endRaw = first(ctx.query, 'ending_at');
		const startAt = startRaw === undefined || startRaw === '' ? undefined : parseTime(startRaw);
		const endAt = endRaw === undefined || endRaw === '' ? undefined : parseTime(endRaw);
		if (startRaw && startAt === undefined) details.starting_at = ['must be an ISO 8601 date-time'];
		if (endRaw && endAt === undefined) details.ending_at = ['must be an ISO 8601 date-time'];
		if (Object.keys(details).length) throw invalid(details);
		const sourceIds = filter ? sourcesMatching(ctx.state.sourcesOf(feed.id), filter) : null;
		const items = orderPosts(ctx.state.visiblePosts(feed.id), svc.postOrder).filter(
			(p) =>
				(!statuses || statuses.has(p.status)) &&
				(!search || textMatch(p, search)) &&
				(!sourceIds || sourceIds.has(p.sourceId)) &&
				(startAt === undefined || p.externalCreatedAt >= startAt) &&
				(endAt === undefined || p.externalCreatedAt <= endAt),
		);
		return { status: 200, body: paginate(items, paging, postJson) };
	});

	svc.api.get('/feeds/:feed_id/posts/:id', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		return { status: 200, body: { data: postJson(postIn(ctx, feed)) } };
	});

	svc.api.delete('/feeds/:feed_id/posts/:id', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		postIn(ctx, feed).deleted = true;
		return { status: 204 };
	});

	svc.api.post('/feeds/:feed_id/posts/:id/approve', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		const post = postIn(ctx, feed, true);
		post.deleted = false;
		post.status = 'public';
		return { status: 200, body: { data: postJson(post) } };
	});

	svc.api.post('/feeds/:feed_id/posts/:id/reject', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		const post = postIn(ctx, feed);
		post.status = 'rejected';
		return { status: 200, body: { data: postJson(post) } };
	});

	for (const [action, pinned] of [
		['pin', true],
		['unpin', false],
	] as const) {
		svc.api.post(`/feeds/:feed_id/posts/:id/${action}`, (ctx) => {
			const feed = feedFor(ctx, ctx.params.feed_id);
			const post = postIn(ctx, feed);
			post.pinned = pinned;
			return { status: 200, body: { data: postJson(post) } };
		});
	}

	// A bulk action on several posts (SERVICE-NOTES.md names one, not its form). Live: approve and reject answer the
	// count acted on, delete 204 like every delete; spec: one result per post, a post the feed lacks a failed one.
	svc.api.post('/feeds/:feed_id/posts/bulk', (ctx) => {
		const feed = feedFor(ctx, ctx.params.feed_id);
		const { action, ids } = bulkInput(ctx.body);
		const results = ids.map((id) => {
			const post = ctx.state.posts.get(id);
			if (!moderate(post, feed, action)) return { id, success: false, error: { code: 'not_found', message: 'Post not found' } };
			return { id, success: true, moderation_status: post!.status, deleted: post!.deleted };
		});
		if (svc.shapes === 'spec') return { status: 200, body: { data: results } };
		if (action === 'delete') return { status: 204 };
		return { status: 200, body: { data: { action, count: results.filter((r) => r.success).length } } };
	});

	svc.api.get('/search/posts', (ctx) => {
		const auth = requireAuth(ctx);
		const paging = parsePaging(ctx.query);
		const q = first(ctx.query, 'q');
		if (!q || !q.trim()) throw invalid({ q: ['is required'] });
		const feeds = ctx.state
			.feedsOf(auth.account.id)
			.filter((f) => auth.user.role !== 'collaborator' || auth.user.feedIds.includes(f.id));
		const items: FeedPost[] = [];
		for (const f of feeds) for (const p of ctx.state.visiblePosts(f.id)) if (textMatch(p, q.trim())) items.push(p);
		items.sort((a, b) => b.externalCreatedAt - a.externalCreatedAt || b.id - a.id);
		return { status: 200, body: paginate(items, paging, postJson) };
	});
}
