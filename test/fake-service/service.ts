/** One running fake service: options, state, clock, faults, limits, request log, webhooks. */
import { Answers } from './answers';
import { Clock, type ClockOptions } from './clock';
import { Faults } from './faults';
import { PostChanges } from './postChanges';
import { MediaHost } from './media';
import { syncFeed } from './feeds';
import { socialAccountTick } from './social';
import { RateLimiter, type LimitsOptions } from './rateLimit';
import { DEFAULT_SHAPES, parseShapes, SIGNATURE_HEADERS, type Shapes } from './shapes';
import type { PostOrder } from './types';
import { Router } from './router';
import { buildSeed } from './seed';
import type { State } from './state';
import { WebhookEngine, type WebhookOptions } from './webhooks';
import type { Query } from './util';

export interface StartOptions {
	/** TCP port on 127.0.0.1; 0 (default) picks a free one. */
	port?: number;
	/** Seed for generated content (messages, counts, tokens). Keys and ids do not depend on it. */
	seed?: string | number;
	/** Added before every /v1 request; settable later with control.setLatency(). */
	latencyMs?: number;
	/** A Clock, or options for one (default: running from 2025-06-01T12:00:00Z). */
	clock?: Clock | ClockOptions;
	limits?: LimitsOptions;
	/** Accept http:// webhook URLs (tests). Default false: https only. */
	allowHttpWebhooks?: boolean;
	/** Signature header name for deliveries. Default: the one of the shapes (live `X-SocialAggregator-Signature`, spec `X-Service-Signature`). */
	signatureHeader?: string;
	/** Which legal shape every answer takes: `live` (SERVICE-NOTES.md, the default) or `spec` (SPEC.md). `control.setShapes()` later; a reset returns to this. */
	shapes?: Shapes;
	webhooks?: WebhookOptions;
	/** Sync feeds on the clock (each feed by its sync_interval; 60 min when null). Default false. */
	autoSync?: boolean | { postsPerSync?: number };
	/** Extra demo data: a large feed (300 posts). Default false. */
	demo?: boolean;
	/** Media URLs in answers point at this fake, which serves their bytes (media.ts). Default false. */
	serveMedia?: boolean;
}

export interface RequestLogEntry {
	seq: number;
	/** Fake-clock time the request arrived. */
	time: string;
	method: string;
	/** Path relative to the base URL, without query (e.g. /feeds/1/posts). */
	path: string;
	query: Query;
	/** Parsed JSON body (undefined when none). */
	body: unknown;
	status: number;
	/** Id of the API key used (never the key itself), and its user's role and account. */
	keyId: string | null;
	role: string | null;
	accountId: number | null;
	fault: string | null;
	durationMs: number;
	/** Data API credits spent by this request. */
	credits: number;
}

export class Service {
	readonly clock: Clock;

	state: State;

	readonly faults = new Faults();

	/** Changes to posts due after the Nth request of a route (a list that moves while it is read). */
	readonly postChanges = new PostChanges();

	readonly answers = new Answers();

	readonly media: MediaHost;

	readonly limiter: RateLimiter;

	log: RequestLogEntry[] = [];

	/** API requests received and not yet answered. */
	inFlight = 0;

	private logSeq = 0;

	latencyMs: number;

	origin = 'http://127.0.0.1';

	readonly api = new Router();

	readonly web = new Router();

	readonly control = new Router();

	readonly webhooks: WebhookEngine;

	readonly seed: string;

	/** The shape of every answer (shapes.ts); kept across requests until a reset. */
	shapes: Shapes;

	/** The order of a feed's posts when set (control), else the shape's: live pinned first then platform time, spec stored order. */
	postOrderOverride: PostOrder | null = null;

	readonly allowHttpWebhooks: boolean;

	autoSync: { postsPerSync: number } | null;

	private lastAutoSyncCheck = 0;

	constructor(readonly options: StartOptions) {
		this.clock = options.clock instanceof Clock ? options.clock : new Clock(options.clock ?? {});
		this.seed = String(options.seed ?? 'social-aggregator');
		this.latencyMs = options.latencyMs ?? 0;
		this.shapes = parseShapes(options.shapes ?? DEFAULT_SHAPES);
		this.allowHttpWebhooks = options.allowHttpWebhooks ?? false;
		this.autoSync = options.autoSync ? { postsPerSync: typeof options.autoSync === 'object' ? options.autoSync.postsPerSync ?? 1 : 1 } : null;
		this.limiter = new RateLimiter(
			options.limits?.enabled ?? true,
			options.limits?.windowScale ?? 1,
			options.limits?.retryAfter,
			options.limits?.headers,
		);
		this.webhooks = new WebhookEngine(this, options.webhooks ?? {});
		this.media = new MediaHost(this, options.serveMedia ?? false);
		this.state = buildSeed(this);
		this.applyLimitOverrides();
	}

	/** How `GET /feeds/{id}/posts` orders a feed's posts now (posts.ts, `orderPosts`). */
	get postOrder(): PostOrder {
		return this.postOrderOverride ?? (this.shapes === 'live' ? 'pinnedThenPlatform' : 'stored');
	}

	/** The delivery signature header: the start option, else the shapes' one. */
	get signatureHeader(): string {
		return this.options.signatureHeader ?? SIGNATURE_HEADERS[this.shapes];
	}

	/** Whether a 429 of the rate limit carries Retry-After: as set (start option or control), else only in the spec shape. */
	get retryAfterHeader(): boolean {
		return this.limiter.retryAfterHeader ?? this.shapes === 'spec';
	}

	get baseUrl(): string {
		return `${this.origin}/v1`;
	}

	private applyLimitOverrides(): void {
		this.limiter.overrides.clear();
		for (const [k, v] of Object.entries(this.options.limits?.perKey ?? {})) {
			const key = this.state.findKey(k);
			this.limiter.overrides.set(key ? key.id : k, v);
		}
	}

	addLog(entry: Omit<RequestLogEntry, 'seq'>): void {
		this.log.push({ seq: ++this.logSeq, ...entry });
		if (this.log.length > 20000) this.log.splice(0, this.log.length - 20000);
	}

	reset(): void {
		this.webhooks.stop();
		this.webhooks.testDelivery = this.options.webhooks?.testDelivery ?? 'afterAnswer';
		this.webhooks.testSample = this.options.webhooks?.testSample ?? 'synthetic';
		this.webhooks.logOrder = this.options.webhooks?.logOrder ?? 'newest';
		this.webhooks.statusFilter = this.options.webhooks?.statusFilter ?? 'honoured';
		this.webhooks.unreachable.clear();
		this.clock.restart();
		this.state = buildSeed(this);
		this.faults.clear();
		this.postChanges.clear();
		this.answers.clear();
		this.media.reset();
		this.limiter.resetWindows();
		this.applyLimitOverrides();
		this.log = [];
		this.latencyMs = this.options.latencyMs ?? 0;
		this.shapes = parseShapes(this.options.shapes ?? DEFAULT_SHAPES);
		this.postOrderOverride = null;
		this.autoSync = this.options.autoSync ? { postsPerSync: typeof this.options.autoSync === 'object' ? this.options.autoSync.postsPerSync ?? 1 : 1 } : null;
		this.lastAutoSyncCheck = 0;
	}

	/** Time-driven work: social-account expiry events and auto-sync. Runs on clock moves and on a timer. */
	tick(): void {
		socialAccountTick(this);
		if (this.autoSync) {
			const now = this.clock.now();
			if (now - this.lastAutoSyncCheck < 1000) return;
			this.lastAutoSyncCheck = now;
			for (const feed of this.state.feeds.values()) {
				const interval = (feed.syncInterval ?? 60) * 60_000;
				if (now - feed.lastSyncedAt >= interval) syncFeed(this, feed.id, { newPosts: this.autoSync.postsPerSync });
			}
		}
	}
}
