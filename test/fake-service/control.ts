/**
 * The control API: in-process (`control.*`) and over HTTP under /_control (JSON in, JSON out,
 * `{ result }` on success, `{ error }` on failure). The HTTP table is in README.md.
 */
import type { AnswerSpec } from './answers';
import {
	addDataPosts,
	configureData,
	failData,
	placeIds,
	type DataConfigureOptions,
	type DataFailOptions,
} from './dataApi';
import type { FaultSpec } from './faults';
import { seedFeed, syncFeed, type SeedFeedOptions, type SyncOptions, type SyncResult } from './feeds';
import { confirmEmail, decideDevice, issueTemporaryKey, newKeyString } from './keys';
import { postJson, type StatusMix } from './posts';
import type { PostChangeSpec } from './postChanges';
import type { MediaControl } from './media';
import type { KeyLimits } from './rateLimit';
import type { Reply } from './router';
import { KEYS, SEEDED, SEEDED_WEBHOOK_SECRETS } from './seed';
import type { RequestLogEntry, Service } from './service';
import { parseShapes, type Shapes } from './shapes';
import { openConnectionLink, socialAccountJson } from './social';
import type { PlaceIdField } from './state';
import type { Account, Delivery, EmailRecord, ModerationStatus, PostOrder } from './types';
import { acceptInvitation, consumeSignInToken, userJson } from './users';
import { ApiError, isPlainObject, iso, notFound, parseIntStrict, type JsonObject } from './util';
import { TEST_SAMPLES, type ForgedDelivery, type TestDeliveryTiming, type TestSample } from './webhooks';

export interface RequestFilter {
	method?: string;
	/** Exact path relative to /v1, or a RegExp. */
	path?: string | RegExp;
	keyId?: string;
	status?: number;
}

export interface DeliveryView {
	id: string;
	webhookId: number;
	event: string;
	url: string;
	/** Raw body exactly as sent (sign/verify this). */
	body: string;
	signature: string;
	state: Delivery['state'];
	attempts: Delivery['attempts'];
	nextAttemptAt: string | null;
	createdAt: string;
}

export interface Control {
	/** The seeded keys: owner, manager, collaborator, collaboratorNoFeeds, freeOwner, enterpriseOwner, proOwner, freeNoFeedsOwner, expired, unconfirmed. */
	keys: typeof KEYS;
	/** Same as keys.owner. */
	apiKey: string;
	/** Seeded ids and emails. */
	seeded: typeof SEEDED;
	/** Base URL (ends in /v1) and origin. */
	url: string;
	origin: string;
	clock: {
		now(): Date;
		advance(ms: number): Date;
		set(time: string | number | Date): Date;
	};
	/** Back to the seed state: data, clock, faults, answers, limits, log, latency, credits, and the start option's shapes. */
	reset(): void;
	setLatency(ms: number): void;
	/** Every answer from now on in this legal shape (`live` or `spec`), until the next reset. */
	setShapes(shapes: Shapes): void;
	/** The shape answers take now. */
	shapes(): Shapes;

	faults: {
		add(spec: FaultSpec): string;
		list(): ReturnType<Service['faults']['all']>;
		remove(id: string): boolean;
		clear(): void;
	};
	/** Shorthand for faults.add. */
	injectFault(spec: FaultSpec): string;

	/** Media bytes on loopback (media.ts). */
	media: MediaControl;

	/** Another JSON body for the next successful requests to a path (answers.ts). */
	answers: {
		add(spec: AnswerSpec): string;
		list(): ReturnType<Service['answers']['all']>;
		remove(id: string): boolean;
		clear(): void;
	};

	requests: {
		list(filter?: RequestFilter): RequestLogEntry[];
		clear(): void;
		/** API requests received and not yet answered (a delayed answer counts until it leaves). */
		inFlight(): number;
	};

	rateLimits: {
		/** Tight (or null = unlimited) limits for one key (key string or key id). */
		set(key: string, limits: Partial<KeyLimits>): void;
		clear(key?: string): void;
		/** Counts in the current windows. */
		usage(key: string): { hour: number; minute: number };
		setEnabled(enabled: boolean): void;
		setWindowScale(scale: number): void;
		/** false: rate-limit 429s come without Retry-After. */
		setRetryAfter(send: boolean): void;
		/** true: every answer to a key carries `X-RateLimit-Limit`, `-Remaining` and `-Reset`; false: none; undefined: while the hour is shortened. */
		setHeaders(send: boolean | undefined): void;
	};

	seedFeed(options: SeedFeedOptions): { feedId: number; sourceIds: number[]; postCount: number };
	syncFeed(feedId: number, options?: SyncOptions): SyncResult;
	/** The order of every feed's post list from now on, until a reset; null: the shape's (live pinned first, spec stored). */
	setPostOrder(order: PostOrder | null): void;
	/** Set a post's moderation status directly ('deleted' soft-deletes). */
	setPostStatus(postId: number, status: ModerationStatus | 'deleted'): Record<string, unknown>;
	/** Pins or unpins a post (as `POST /feeds/{feed_id}/posts/{id}/pin` does). */
	setPinned(postId: number, pinned: boolean): Record<string, unknown>;
	getPost(postId: number): Record<string, unknown> | null;
	/** Changes to posts made once the Nth request of a route is answered: a list that moves while it is read. */
	postChanges: {
		add(spec: PostChangeSpec): string;
		list(): ReturnType<Service['postChanges']['all']>;
		clear(): void;
	};

	createKey(options: { userId: number; type?: 'permanent' | 'temporary'; confirmed?: boolean }): { key: string; id: string; expiresAt: string | null };
	confirmEmail(email: string): { confirmed: boolean; keysExtended: number };
	approveDevice(requestId: string): void;
	denyDevice(requestId: string): void;
	deviceRequests(): Array<{ id: string; email: string; state: string; expiresAt: string }>;

	acceptInvitation(userId: number): Record<string, unknown>;
	users(accountId?: number): Array<Record<string, unknown>>;
	emails(): EmailRecord[];
	consumeSignInToken(tokenOrUrl: string): { userId: number; feedId: number | null };
	setAccount(accountId: number, patch: Partial<Pick<Account, 'plan' | 'signInTokensEnabled' | 'whiteLabelHost' | 'creditBalance' | 'name'>>): void;

	openConnectionLink(url: string): Record<string, unknown>;
	socialAccounts(accountId?: number): Array<Record<string, unknown>>;

	webhooks: {
		/** The signing secret of any subscription (seeded ones included). */
		secret(webhookId: number): string;
		deliveries(filter?: { webhookId?: number; event?: string }): DeliveryView[];
		/** Wait until nothing is in flight or scheduled; fastForward (default true) runs retries at once. */
		settle(options?: { fastForward?: boolean; timeoutMs?: number }): Promise<void>;
		redeliver(deliveryId: string): Promise<DeliveryView>;
		deliver(forged: ForgedDelivery): ReturnType<Service['webhooks']['deliver']>;
		emit(accountId: number, event: string, data: unknown): string[];
		setStatus(webhookId: number, status: 'active' | 'paused' | 'disabled'): void;
		/** When Send Test delivers: after its 202 starts (default) or before it answers. */
		setTestDelivery(timing: TestDeliveryTiming): void;
		/**
		 * What a `post.created` test delivery carries from now on, until a reset: `synthetic` (the default) a made-up post
		 * with id 0; `newestPosts` the newest real posts (up to 3) of the feed of the account that stored a post last.
		 */
		setTestSample(sample: TestSample): void;
		/** Whether the receiver at `url` is away, until a reset: every attempt to it fails as a refused connection would. */
		setUnreachable(url: string, unreachable: boolean): void;
	};

	data: {
		configure(platform: string, options: DataConfigureOptions): void;
		fail(platform: string, options: DataFailOptions): void;
		addPosts(platform: string, term: string, count: number, termType?: string): Record<string, unknown>[];
		/** Where the flat profile shape (`spec`) gives a Google place ID: `place_id` (the default) or `platform_id`. */
		placeIds(field: PlaceIdField): void;
		credits(): { total: number; byPlatform: Record<string, number>; requests: number };
		resetCredits(): void;
		clear(): void;
	};
}

function deliveryView(d: Delivery): DeliveryView {
	return { ...d, attempts: d.attempts.map((a) => ({ ...a })) };
}

export function buildControl(svc: Service): Control {
	const control: Control = {
		keys: KEYS,
		apiKey: KEYS.owner,
		seeded: SEEDED,
		url: svc.baseUrl,
		origin: svc.origin,
		clock: {
			now: () => svc.clock.date(),
			advance: (ms) => svc.clock.advance(ms),
			set: (time) => svc.clock.set(time),
		},
		reset: () => svc.reset(),
		setLatency: (ms) => {
			svc.latencyMs = ms;
		},
		setShapes: (shapes) => {
			svc.shapes = parseShapes(shapes);
		},
		shapes: () => svc.shapes,
		faults: {
			add: (spec) => svc.faults.add(spec),
			list: () => svc.faults.all(),
			remove: (id) => svc.faults.remove(id),
			clear: () => svc.faults.clear(),
		},
		injectFault: (spec) => svc.faults.add(spec),
		media: svc.media.control(),
		answers: {
			add: (spec) => svc.answers.add(spec),
			list: () => svc.answers.all(),
			remove: (id) => svc.answers.remove(id),
			clear: () => svc.answers.clear(),
		},
		requests: {
			list: (filter = {}) =>
				svc.log.filter(
					(e) =>
						(!filter.method || e.method === filter.method.toUpperCase()) &&
						(!filter.path || (typeof filter.path === 'string' ? e.path === filter.path : filter.path.test(e.path))) &&
						(!filter.keyId || e.keyId === filter.keyId) &&
						(filter.status === undefined || e.status === filter.status),
				),
			clear: () => {
				svc.log = [];
			},
			inFlight: () => svc.inFlight,
		},
		rateLimits: {
			set: (key, limits) => {
				const k = svc.state.findKey(key);
				svc.limiter.overrides.set(k ? k.id : key, limits);
			},
			clear: (key) => {
				if (key === undefined) svc.limiter.overrides.clear();
				else svc.limiter.overrides.delete(svc.state.findKey(key)?.id ?? key);
				svc.limiter.resetWindows();
			},
			usage: (key) => svc.limiter.usage(svc.state.findKey(key)?.id ?? key),
			setEnabled: (enabled) => {
				svc.limiter.enabled = enabled;
			},
			setWindowScale: (scale) => {
				svc.limiter.windowScale = scale;
			},
			setHeaders: (send) => {
				svc.limiter.limitHeaders = send;
			},
			setRetryAfter: (send) => {
				svc.limiter.retryAfterHeader = send;
			},
		},
		seedFeed: (options) => seedFeed(svc, options),
		syncFeed: (feedId, options = {}) => syncFeed(svc, feedId, options),
		setPostOrder: (order) => {
			svc.postOrderOverride = parsePostOrder(order);
		},
		setPostStatus: (postId, status) => {
			const post = svc.state.posts.get(postId);
			if (!post) throw notFound('Post');
			if (status === 'deleted') post.deleted = true;
			else {
				post.status = status;
				if (status === 'moderated') post.aiDecisionReason = 'harmful_content';
			}
			return postJson(post);
		},
		setPinned: (postId, pinned) => {
			const post = svc.state.posts.get(postId);
			if (!post) throw notFound('Post');
			post.pinned = pinned;
			return postJson(post);
		},
		getPost: (postId) => {
			const post = svc.state.posts.get(postId);
			return post ? { ...postJson(post), deleted: post.deleted } : null;
		},
		postChanges: {
			add: (spec) => svc.postChanges.add(spec),
			list: () => svc.postChanges.all(),
			clear: () => svc.postChanges.clear(),
		},
		createKey: ({ userId, type = 'permanent', confirmed = true }) => {
			const user = svc.state.users.get(userId);
			if (!user) throw notFound('User');
			if (type === 'temporary') {
				const k = issueTemporaryKey(svc, user, confirmed ? 'device' : 'email', confirmed, 'control');
				return { key: k.key, id: k.id, expiresAt: k.expiresAt === null ? null : iso(k.expiresAt) };
			}
			const k = svc.state.addKey({
				id: `key_perm_${svc.state.nextId('permkey')}`,
				key: newKeyString(svc.state),
				accountId: user.accountId,
				userId: user.id,
				type: 'permanent',
				confirmed: true,
				issuedAt: svc.clock.now(),
				expiresAt: null,
			});
			return { key: k.key, id: k.id, expiresAt: null };
		},
		confirmEmail: (email) => confirmEmail(svc, email),
		approveDevice: (id) => {
			decideDevice(svc, id, 'approve');
		},
		denyDevice: (id) => {
			decideDevice(svc, id, 'deny');
		},
		deviceRequests: () => [...svc.state.deviceRequests.values()].map((r) => ({ id: r.id, email: r.email, state: r.state, expiresAt: iso(r.expiresAt) })),
		acceptInvitation: (userId) => userJson(svc.state, acceptInvitation(svc.state, userId)),
		users: (accountId) =>
			[...svc.state.users.values()]
				.filter((u) => accountId === undefined || u.accountId === accountId)
				.map((u) => ({ ...userJson(svc.state, u), account_id: u.accountId })),
		emails: () => svc.state.emails.map((e) => ({ ...e })),
		consumeSignInToken: (t) => consumeSignInToken(svc, t),
		setAccount: (accountId, patch) => {
			Object.assign(svc.state.account(accountId), patch);
		},
		openConnectionLink: (url) => socialAccountJson(openConnectionLink(svc, url)),
		socialAccounts: (accountId) =>
			[...svc.state.socialAccounts.values()].filter((a) => accountId === undefined || a.accountId === accountId).map(socialAccountJson),
		webhooks: {
			secret: (id) => {
				const w = svc.state.webhooks.get(id);
				if (!w) throw notFound('Webhook');
				return w.secret;
			},
			deliveries: (filter = {}) =>
				[...svc.state.deliveries.values()]
					.filter((d) => (filter.webhookId === undefined || d.webhookId === filter.webhookId) && (!filter.event || d.event === filter.event))
					.map(deliveryView),
			settle: (options) => svc.webhooks.settle(options),
			redeliver: async (id) => deliveryView(await svc.webhooks.redeliver(id)),
			deliver: (forged) => svc.webhooks.deliver(forged),
			emit: (accountId, event, data) => svc.webhooks.emit(accountId, event, data).map((d) => d.id),
			setTestDelivery: (timing) => {
				svc.webhooks.testDelivery = timing;
			},
			setTestSample: (sample) => {
				if (!TEST_SAMPLES.includes(sample)) throw new Error(`test sample must be one of ${TEST_SAMPLES.join(', ')}, not ${JSON.stringify(sample)}`);
				svc.webhooks.testSample = sample;
			},
			setUnreachable: (url, unreachable) => {
				if (unreachable) svc.webhooks.unreachable.add(url);
				else svc.webhooks.unreachable.delete(url);
			},
			setStatus: (id, status) => {
				const w = svc.state.webhooks.get(id);
				if (!w) throw notFound('Webhook');
				w.status = status;
			},
		},
		data: {
			configure: (platform, options) => configureData(svc.state, platform, options),
			fail: (platform, options) => failData(svc.state, platform, options),
			addPosts: (platform, term, count, termType) => addDataPosts(svc, platform, term, count, termType),
			placeIds: (field) => placeIds(svc.state, field),
			credits: () => ({ total: svc.state.credits.total, byPlatform: { ...svc.state.credits.byPlatform }, requests: svc.state.credits.requests }),
			resetCredits: () => {
				svc.state.credits = { total: 0, byPlatform: {}, requests: 0 };
			},
			clear: () => {
				svc.state.dataConfig.clear();
				svc.state.dataFailures = [];
				svc.state.dataAdded.clear();
				svc.state.placeIdField = 'place_id';
			},
		},
	};
	return control;
}

// --- HTTP ------------------------------------------------------------------

function obj(body: unknown): JsonObject {
	return isPlainObject(body) ? body : {};
}

function num(value: unknown, name: string): number {
	const n = typeof value === 'number' ? value : typeof value === 'string' ? parseIntStrict(value) : undefined;
	if (n === undefined || Number.isNaN(n)) throw new ApiError(400, 'bad_control_request', `${name} must be a number`);
	return n;
}

function str(value: unknown, name: string): string {
	if (typeof value !== 'string' || !value) throw new ApiError(400, 'bad_control_request', `${name} must be a string`);
	return value;
}

function ok(result: unknown): Reply {
	return { status: 200, body: { result: result === undefined ? null : result } };
}

/** A fault spec from JSON: count 'always' (or null) means every matching request. */
function faultFromJson(body: JsonObject): FaultSpec {
	const spec = { ...body } as unknown as FaultSpec & { count?: number | 'always' | null };
	if (spec.count === null) spec.count = 'always';
	return spec;
}

export function registerControlRoutes(svc: Service): void {
	const c = svc.control;
	const ctl = () => buildControl(svc);
	const wrap = (fn: (body: JsonObject, params: Record<string, string>) => unknown) => async (ctx: { body: unknown; params: Record<string, string>; query: Record<string, string | string[]> }) => {
		try {
			return ok(await fn({ ...(ctx.query as JsonObject), ...obj(ctx.body) }, ctx.params));
		} catch (err) {
			if (err instanceof ApiError) throw err;
			throw new ApiError(400, 'bad_control_request', err instanceof Error ? err.message : String(err));
		}
	};

	c.get('/seed', wrap(() => ({ keys: KEYS, seeded: SEEDED, webhookSecrets: SEEDED_WEBHOOK_SECRETS, url: svc.baseUrl, origin: svc.origin })));
	c.post('/reset', wrap(() => svc.reset()));
	c.post('/latency', wrap((b) => ctl().setLatency(num(b.ms, 'ms'))));
	c.get('/shapes', wrap(() => ({ shapes: svc.shapes })));
	c.post('/shapes', wrap((b) => ctl().setShapes(b.shapes as Shapes)));

	c.get('/clock', wrap(() => ({ now: svc.clock.iso() })));
	c.post('/clock/advance', wrap((b) => ({ now: svc.clock.advance(num(b.ms, 'ms')).toISOString() })));
	c.post('/clock/set', wrap((b) => ({ now: svc.clock.set(b.time as string | number).toISOString() })));

	c.get('/faults', wrap(() => svc.faults.all()));
	c.post('/faults', wrap((b) => ({ id: svc.faults.add(faultFromJson(b)) })));
	c.delete('/faults', wrap(() => svc.faults.clear()));
	c.delete('/faults/:id', wrap((_b, p) => svc.faults.remove(p.id)));

	c.get('/answers', wrap(() => svc.answers.all()));
	c.post('/answers', wrap((b) => ({ id: svc.answers.add({ ...(b as unknown as AnswerSpec), count: b.count === null || b.count === 'always' ? 'always' : b.count === undefined ? undefined : num(b.count, 'count') }) })));
	c.delete('/answers', wrap(() => svc.answers.clear()));
	c.delete('/answers/:id', wrap((_b, p) => svc.answers.remove(p.id)));

	c.get('/requests', wrap((b) => ctl().requests.list({ method: b.method as string | undefined, path: b.path as string | undefined, keyId: b.keyId as string | undefined })));
	c.delete('/requests', wrap(() => ctl().requests.clear()));

	c.post('/rate_limits', wrap((b) => ctl().rateLimits.set(str(b.key, 'key'), { requestsPerHour: b.requestsPerHour as number | null | undefined, burstPerMinute: b.burstPerMinute as number | null | undefined })));
	c.delete('/rate_limits', wrap((b) => ctl().rateLimits.clear(b.key as string | undefined)));
	c.post('/rate_limits/enabled', wrap((b) => ctl().rateLimits.setEnabled(b.enabled === true)));
	c.post('/rate_limits/window_scale', wrap((b) => ctl().rateLimits.setWindowScale(Number(b.scale))));
	c.post('/rate_limits/retry_after', wrap((b) => ctl().rateLimits.setRetryAfter(b.send !== false)));
	c.post('/rate_limits/headers', wrap((b) => ctl().rateLimits.setHeaders(b.send === undefined || b.send === null ? undefined : b.send === true)));

	c.post('/feeds/seed', wrap((b) => seedFeed(svc, { ...(b as unknown as SeedFeedOptions), posts: num(b.posts, 'posts') })));
	c.post('/feeds/:id/sync', wrap((b, p) => syncFeed(svc, num(p.id, 'id'), { newPosts: b.newPosts === undefined ? undefined : num(b.newPosts, 'newPosts'), sourceId: b.sourceId === undefined ? undefined : num(b.sourceId, 'sourceId'), mix: b.mix as StatusMix | undefined, publishedBeforeMs: b.publishedBeforeMs === undefined ? undefined : num(b.publishedBeforeMs, 'publishedBeforeMs'), publishedOverMs: b.publishedOverMs === undefined ? undefined : num(b.publishedOverMs, 'publishedOverMs') })));
	c.get('/post-changes', wrap(() => svc.postChanges.all()));
	c.post('/post-changes', wrap((b) => ({ id: svc.postChanges.add(b as unknown as PostChangeSpec) })));
	c.delete('/post-changes', wrap(() => svc.postChanges.clear()));
	c.post('/post-order', wrap((b) => { svc.postOrderOverride = parsePostOrder(b.order as PostOrder | null); return { order: svc.postOrder }; }));
	c.post('/posts/:id/pinned', wrap((b, p) => ctl().setPinned(num(p.id, 'id'), b.pinned !== false)));
	c.post('/posts/:id/status', wrap((b, p) => ctl().setPostStatus(num(p.id, 'id'), str(b.status, 'status') as ModerationStatus | 'deleted')));
	c.get('/posts/:id', wrap((_b, p) => ctl().getPost(num(p.id, 'id'))));

	c.post('/keys', wrap((b) => ctl().createKey({ userId: num(b.userId, 'userId'), type: b.type as 'permanent' | 'temporary' | undefined, confirmed: b.confirmed as boolean | undefined })));
	c.post('/emails/confirm', wrap((b) => confirmEmail(svc, str(b.email, 'email'))));
	c.get('/emails', wrap(() => ctl().emails()));
	c.get('/device_requests', wrap(() => ctl().deviceRequests()));
	c.post('/device_requests/:id/approve', wrap((_b, p) => ctl().approveDevice(p.id)));
	c.post('/device_requests/:id/deny', wrap((_b, p) => ctl().denyDevice(p.id)));

	c.get('/users', wrap((b) => ctl().users(b.accountId === undefined ? undefined : num(b.accountId, 'accountId'))));
	c.post('/users/:id/accept', wrap((_b, p) => ctl().acceptInvitation(num(p.id, 'id'))));
	c.post('/sign_in_tokens/consume', wrap((b) => ctl().consumeSignInToken(str(b.token ?? b.url, 'token'))));
	c.post('/accounts/:id', wrap((b, p) => ctl().setAccount(num(p.id, 'id'), b as Parameters<Control['setAccount']>[1])));

	c.post('/social_accounts/connect', wrap((b) => ctl().openConnectionLink(str(b.url, 'url'))));
	c.get('/social_accounts', wrap((b) => ctl().socialAccounts(b.accountId === undefined ? undefined : num(b.accountId, 'accountId'))));

	c.get('/webhooks/:id/secret', wrap((_b, p) => ({ secret: ctl().webhooks.secret(num(p.id, 'id')) })));
	c.post('/webhooks/test_sample', wrap((b) => ctl().webhooks.setTestSample(str(b.sample, 'sample') as TestSample)));
	c.post('/webhooks/unreachable', wrap((b) => ctl().webhooks.setUnreachable(str(b.url, 'url'), b.unreachable !== false)));
	c.post('/webhooks/:id/status', wrap((b, p) => ctl().webhooks.setStatus(num(p.id, 'id'), str(b.status, 'status') as 'active' | 'paused' | 'disabled')));
	c.get('/deliveries', wrap((b) => ctl().webhooks.deliveries({ webhookId: b.webhookId === undefined ? undefined : num(b.webhookId, 'webhookId'), event: b.event as string | undefined })));
	c.post('/deliveries/settle', wrap((b) => svc.webhooks.settle({ fastForward: b.fastForward !== false, timeoutMs: b.timeoutMs === undefined ? undefined : num(b.timeoutMs, 'timeoutMs') })));
	c.post('/deliveries/forge', wrap((b) => svc.webhooks.deliver(b as unknown as ForgedDelivery)));
	c.post('/deliveries/emit', wrap((b) => ctl().webhooks.emit(num(b.accountId ?? 1, 'accountId'), str(b.event, 'event'), b.data ?? {})));
	c.post('/deliveries/:id/redeliver', wrap((_b, p) => ctl().webhooks.redeliver(p.id)));

	c.post('/data/configure', wrap((b) => configureData(svc.state, str(b.platform, 'platform'), b as DataConfigureOptions)));
	c.post('/data/fail', wrap((b) => failData(svc.state, str(b.platform, 'platform'), { ...(b as unknown as DataFailOptions), times: b.times === undefined || b.times === null ? undefined : num(b.times, 'times') })));
	c.post('/data/posts', wrap((b) => addDataPosts(svc, str(b.platform, 'platform'), str(b.term, 'term'), num(b.count ?? 1, 'count'), b.termType as string | undefined)));
	c.post('/data/place_ids', wrap((b) => placeIds(svc.state, str(b.field, 'field'))));
	c.get('/data/credits', wrap(() => ctl().data.credits()));
	c.delete('/data/credits', wrap(() => ctl().data.resetCredits()));
	c.delete('/data', wrap(() => ctl().data.clear()));
}

/** A post order named by a test: one of the two, or null for the shape's. */
function parsePostOrder(order: PostOrder | null | undefined): PostOrder | null {
	if (order === null || order === undefined) return null;
	if (order === 'pinnedThenPlatform' || order === 'stored') return order;
	throw new Error(`post order must be pinnedThenPlatform, stored or null, not ${JSON.stringify(order)}`);
}
