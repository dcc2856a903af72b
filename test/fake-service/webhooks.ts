/** Webhook subscriptions and signed deliveries with retries of the same delivery id. */
import { request as httpRequest } from 'http';
import { request as httpsRequest } from 'https';
import { WEBHOOK_EVENT_NAMES, WEBHOOK_EVENTS } from './catalog';
import { requireAuth } from './keys';
import type { Ctx } from './router';
import type { Service } from './service';
import { feedJson, sourceJson } from './feeds';
import { postJson } from './posts';
import type { Delivery, DeliveryAttempt, FeedPost, Webhook } from './types';
import { bodyObject, first, hmacHex, invalid, iso, notFound, paginate, parseIntStrict, parsePaging, type Details } from './util';

export interface WebhookOptions {
	/** Delays before retry 1, 2, ... (ms). Default [20, 40, 80, 160, 320]: six attempts in all. */
	retryDelaysMs?: number[];
	/** Per-attempt timeout (ms). Default 5000. */
	timeoutMs?: number;
	/** consecutive_failures at which a subscription becomes disabled. Default 10. */
	disableAfter?: number;
	/**
	 * When `POST /webhooks/{id}/test` sends its delivery: `afterAnswer` (default) answers 202
	 * as the first attempt starts; `beforeAnswer` answers only after that attempt got its answer.
	 */
	testDelivery?: TestDeliveryTiming;
	/**
	 * What a `post.created` test delivery carries: `synthetic` (default) a made-up post with id 0; `newestPosts` the
	 * newest real posts of a feed of the account (SERVICE-NOTES.md: "it may be real, recent posts of a feed").
	 */
	testSample?: TestSample;
	/** How `GET /webhooks/{id}/deliveries` lists the log (not documented): `newest` first (default) or `oldest` first. */
	logOrder?: 'newest' | 'oldest';
	/** Whether the log's `status` filter works (`honoured`, the default) or is ignored, every entry answered (not documented). */
	statusFilter?: 'honoured' | 'ignored';
}

export type TestDeliveryTiming = 'afterAnswer' | 'beforeAnswer';

export const TEST_SAMPLES = ['synthetic', 'newestPosts'] as const;
export type TestSample = (typeof TEST_SAMPLES)[number];

/** How many real posts a `newestPosts` test delivery carries at most. */
export const TEST_SAMPLE_POSTS = 3;

export interface AttemptResult {
	status: number | null;
	error: string | null;
	responseBody: string;
	simulated: boolean;
}

export const DEFAULT_RETRY_DELAYS_MS = [20, 40, 80, 160, 320];

/** A delivery's `status` in the log, and the values of the log's `status` filter. */
const DELIVERY_STATES: Array<Delivery['state']> = ['pending', 'succeeded', 'failed'];

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Hosts under the reserved .example TLD (the seeded subscriptions) are a sink: answered 200 without network. */
function isSinkHost(url: URL): boolean {
	return url.hostname === 'example' || url.hostname.endsWith('.example');
}

export function postRaw(urlString: string, body: string, headers: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<AttemptResult> {
	let url: URL;
	try {
		url = new URL(urlString);
	} catch {
		return Promise.resolve({ status: null, error: 'invalid url', responseBody: '', simulated: false });
	}
	if (isSinkHost(url)) return Promise.resolve({ status: 200, error: null, responseBody: '', simulated: true });
	const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
	return new Promise((resolve) => {
		let done = false;
		const finish = (r: AttemptResult) => {
			if (!done) {
				done = true;
				resolve(r);
			}
		};
		const req = send(
			url,
			{
				method: 'POST',
				headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
				timeout: timeoutMs,
				agent: false,
				signal,
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () => finish({ status: res.statusCode ?? null, error: null, responseBody: Buffer.concat(chunks).toString('utf8').slice(0, 2000), simulated: false }));
				res.on('error', (e) => finish({ status: res.statusCode ?? null, error: e.message, responseBody: '', simulated: false }));
			},
		);
		req.on('timeout', () => {
			req.destroy(new Error('timeout'));
		});
		req.on('error', (e) => finish({ status: null, error: e.message, responseBody: '', simulated: false }));
		req.end(body);
	});
}

export function webhookJson(w: Webhook, withSecret = false): Record<string, unknown> {
	const out: Record<string, unknown> = {
		id: w.id,
		url: w.url,
		subscribed_events: w.subscribedEvents,
		status: w.status,
		consecutive_failures: w.consecutiveFailures,
		created_at: iso(w.createdAt),
		updated_at: iso(w.updatedAt),
	};
	if (withSecret) out.secret = w.secret;
	return out;
}

export function deliveryJson(d: Delivery): Record<string, unknown> {
	const last = d.attempts[d.attempts.length - 1];
	return {
		id: d.id,
		webhook_id: d.webhookId,
		event: d.event,
		status: d.state,
		attempts: d.attempts.length,
		response_status: last ? last.status : null,
		last_attempt_at: last ? last.at : null,
		next_attempt_at: d.nextAttemptAt,
		created_at: d.createdAt,
	};
}

export interface ForgedDelivery {
	/** Target; default the subscription's url. */
	url?: string;
	/** Use this subscription's url and secret. */
	webhookId?: number;
	/** Raw body (sent as is) or an object (JSON-encoded). Default: a post.created-shaped body. */
	body?: string | Record<string, unknown>;
	event?: string;
	data?: unknown;
	/** Sign with this secret (default: the subscription's). */
	secret?: string;
	/** Send this signature header value verbatim (forged); null omits the header. */
	signature?: string | null;
	headers?: Record<string, string>;
}

export class WebhookEngine {
	readonly retryDelaysMs: number[];

	readonly timeoutMs: number;

	readonly disableAfter: number;

	testDelivery: TestDeliveryTiming;

	testSample: TestSample;

	logOrder: 'newest' | 'oldest';

	statusFilter: 'honoured' | 'ignored';

	/** Subscription URLs whose receiver is away (n8n stopped, say): each attempt fails as a refused connection. */
	readonly unreachable = new Set<string>();

	private firstAttempts = new Map<string, Promise<void>>();

	private timers = new Map<string, NodeJS.Timeout>();

	private inflight = new Set<Promise<void>>();

	private generation = 0;

	private abort = new AbortController();

	constructor(
		private readonly svc: Service,
		options: WebhookOptions,
	) {
		this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
		this.timeoutMs = options.timeoutMs ?? 5000;
		this.disableAfter = options.disableAfter ?? 10;
		this.testDelivery = options.testDelivery ?? 'afterAnswer';
		this.testSample = options.testSample ?? 'synthetic';
		this.logOrder = options.logOrder ?? 'newest';
		this.statusFilter = options.statusFilter ?? 'honoured';
	}

	headersFor(signature: string | null): Record<string, string> {
		const headers: Record<string, string> = { 'Content-Type': 'application/json', 'User-Agent': 'SocialAggregator-Webhooks/1.0' };
		if (signature !== null) headers[this.svc.signatureHeader] = signature;
		return headers;
	}

	sign(secret: string, raw: string): string {
		return `sha256=${hmacHex(secret, raw)}`;
	}

	/** Deliveries of `event` to every active subscription of the account that subscribed to it. */
	emit(accountId: number, event: string, data: unknown): Delivery[] {
		const out: Delivery[] = [];
		for (const w of this.svc.state.webhooks.values()) {
			if (w.accountId === accountId && w.status === 'active' && w.subscribedEvents.includes(event)) out.push(this.create(w, event, data));
		}
		return out;
	}

	create(webhook: Webhook, event: string, data: unknown): Delivery {
		const state = this.svc.state;
		const id = `dlv_${state.token('delivery', 24)}`;
		const body = JSON.stringify({ id, event, occurred_at: state.nowIso(), data });
		const delivery: Delivery = {
			id,
			webhookId: webhook.id,
			event,
			url: webhook.url,
			body,
			signature: this.sign(webhook.secret, body),
			state: 'pending',
			attempts: [],
			nextAttemptAt: null,
			createdAt: state.nowIso(),
		};
		state.deliveries.set(id, delivery);
		const first = this.attempt(delivery);
		this.track(first);
		this.firstAttempts.set(id, first);
		first.finally(() => this.firstAttempts.delete(id)).catch(() => undefined);
		return delivery;
	}

	private track(p: Promise<void>): void {
		this.inflight.add(p);
		p.finally(() => this.inflight.delete(p)).catch(() => undefined);
	}

	private async attempt(delivery: Delivery, isRetry = false): Promise<void> {
		const gen = this.generation;
		const state = this.svc.state;
		const webhook = state.webhooks.get(delivery.webhookId);
		if (!webhook || (isRetry && webhook.status !== 'active')) {
			delivery.state = 'failed';
			delivery.nextAttemptAt = null;
			return;
		}
		delivery.url = webhook.url;
		delivery.nextAttemptAt = null;
		const started = Date.now();
		const at = state.nowIso();
		const result = this.unreachable.has(webhook.url)
			? { status: null, error: 'connect ECONNREFUSED (the receiver is set unreachable)', responseBody: '', simulated: true }
			: await postRaw(webhook.url, delivery.body, this.headersFor(delivery.signature), this.timeoutMs, this.abort.signal);
		if (gen !== this.generation) return;
		const ok = result.status !== null && result.status >= 200 && result.status < 300;
		const attempt: DeliveryAttempt = { at, status: result.status, error: result.error, durationMs: Date.now() - started, simulated: result.simulated };
		delivery.attempts.push(attempt);
		if (ok) {
			delivery.state = 'succeeded';
			webhook.consecutiveFailures = 0;
			return;
		}
		webhook.consecutiveFailures++;
		if (webhook.consecutiveFailures >= this.disableAfter) webhook.status = 'disabled';
		const retryIndex = delivery.attempts.length - 1;
		if (retryIndex < this.retryDelaysMs.length && webhook.status === 'active') {
			const delay = this.retryDelaysMs[retryIndex];
			delivery.nextAttemptAt = iso(state.now() + delay);
			const timer = setTimeout(() => {
				this.timers.delete(delivery.id);
				this.track(this.attempt(delivery, true));
			}, delay);
			this.timers.set(delivery.id, timer);
		} else {
			delivery.state = 'failed';
		}
	}

	/** Resolves when the first attempt of a delivery got its answer (at once when it already did). */
	async firstAttempt(deliveryId: string): Promise<void> {
		await this.firstAttempts.get(deliveryId);
	}

	/** Send the same delivery (same id and body) again now. */
	async redeliver(deliveryId: string): Promise<Delivery> {
		const delivery = this.svc.state.deliveries.get(deliveryId);
		if (!delivery) throw notFound('Delivery');
		const timer = this.timers.get(deliveryId);
		if (timer) {
			clearTimeout(timer);
			this.timers.delete(deliveryId);
		}
		delivery.state = 'pending';
		const p = this.attempt(delivery);
		this.track(p);
		await p;
		return delivery;
	}

	/** Send one arbitrary (possibly forged) delivery; not recorded against any subscription. */
	async deliver(forged: ForgedDelivery): Promise<{ status: number | null; error: string | null; body: string; signature: string | null; responseBody: string }> {
		const webhook = forged.webhookId !== undefined ? this.svc.state.webhooks.get(forged.webhookId) : undefined;
		if (forged.webhookId !== undefined && !webhook) throw notFound('Webhook');
		const url = forged.url ?? webhook?.url;
		if (!url) throw new Error('deliver needs url or webhookId');
		const state = this.svc.state;
		const raw =
			typeof forged.body === 'string'
				? forged.body
				: JSON.stringify(
						forged.body ?? { id: `dlv_${state.token('delivery', 24)}`, event: forged.event ?? 'post.created', occurred_at: state.nowIso(), data: forged.data ?? {} },
					);
		const secret = forged.secret ?? webhook?.secret;
		const signature = forged.signature !== undefined ? forged.signature : secret ? this.sign(secret, raw) : null;
		const result = await postRaw(url, raw, { ...this.headersFor(signature), ...(forged.headers ?? {}) }, this.timeoutMs);
		return { status: result.status, error: result.error, body: raw, signature, responseBody: result.responseBody };
	}

	pendingCount(): number {
		return this.inflight.size + this.timers.size;
	}

	/**
	 * Wait until no delivery is in flight or scheduled. fastForward (default true) runs
	 * scheduled retries at once instead of waiting for their backoff.
	 */
	async settle(options: { fastForward?: boolean; timeoutMs?: number } = {}): Promise<void> {
		const fastForward = options.fastForward ?? true;
		const deadline = Date.now() + (options.timeoutMs ?? 15000);
		while (this.inflight.size || this.timers.size) {
			if (Date.now() > deadline) throw new Error('webhook deliveries did not settle in time');
			if (fastForward && this.timers.size) {
				for (const [id, timer] of [...this.timers]) {
					clearTimeout(timer);
					this.timers.delete(id);
					const delivery = this.svc.state.deliveries.get(id);
					if (delivery) this.track(this.attempt(delivery, true));
				}
			}
			if (this.inflight.size) await Promise.all([...this.inflight]);
			else await sleep(5);
		}
	}

	/** Drops scheduled retries and aborts requests in flight (reset, close). */
	stop(): void {
		this.generation++;
		this.abort.abort();
		this.abort = new AbortController();
		for (const t of this.timers.values()) clearTimeout(t);
		this.timers.clear();
		this.inflight.clear();
	}
}

function webhookFor(ctx: Ctx): Webhook {
	const { account } = requireAuth(ctx);
	const id = parseIntStrict(ctx.params.id);
	const w = id === undefined ? undefined : ctx.state.webhooks.get(id);
	if (!w || w.accountId !== account.id) throw notFound('Webhook');
	return w;
}

function validateWebhook(svc: Service, body: Record<string, unknown>, creating: boolean): { url?: string; events?: string[]; status?: 'active' | 'paused' } {
	const details: Details = {};
	const out: { url?: string; events?: string[]; status?: 'active' | 'paused' } = {};
	if (creating || body.url !== undefined) {
		if (typeof body.url !== 'string' || !body.url) details.url = [body.url === undefined ? 'is required' : 'must be a string'];
		else {
			let parsed: URL | null = null;
			try {
				parsed = new URL(body.url);
			} catch {
				details.url = ['is not a valid URL'];
			}
			if (parsed) {
				if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && svc.allowHttpWebhooks)) out.url = body.url;
				else details.url = ['must be an HTTPS URL'];
			}
		}
	}
	if (creating || body.subscribed_events !== undefined) {
		const ev = body.subscribed_events;
		if (!Array.isArray(ev) || ev.length === 0) details.subscribed_events = [ev === undefined ? 'is required' : 'must be a non-empty array of event names'];
		else {
			const bad = ev.filter((e) => typeof e !== 'string' || !WEBHOOK_EVENT_NAMES.includes(e));
			if (bad.length) details.subscribed_events = [`contains unknown events: ${bad.map(String).join(', ')} (see GET /webhook_events)`];
			else out.events = [...new Set(ev as string[])];
		}
	}
	if (!creating && body.status !== undefined) {
		if (body.status === 'active' || body.status === 'paused') out.status = body.status;
		else details.status = ['must be active or paused'];
	}
	if (Object.keys(details).length) throw invalid(details);
	return out;
}

/**
 * The newest real posts of a feed of the account, as a `post.created` delivery's data: the feed holding the post
 * stored last (ids grow as posts are stored), and up to TEST_SAMPLE_POSTS of its newest posts of that post's source,
 * newest first. Undefined when the account has no post.
 */
function newestPostsSample(svc: Service, accountId: number): Record<string, unknown> | undefined {
	const state = svc.state;
	let newest: FeedPost | undefined;
	for (const feed of state.feeds.values()) {
		if (feed.accountId !== accountId) continue;
		for (const post of state.visiblePosts(feed.id)) if (!newest || post.id > newest.id) newest = post;
	}
	const feed = newest && state.feeds.get(newest.feedId);
	const source = newest && state.sources.get(newest.sourceId);
	if (!newest || !feed || !source) return undefined;
	const posts = state
		.visiblePosts(feed.id)
		.filter((post) => post.sourceId === source.id)
		.sort((a, b) => b.id - a.id)
		.slice(0, TEST_SAMPLE_POSTS);
	return { test: true, feed: feedJson(state, feed), source: sourceJson(state, source), posts: posts.map(postJson) };
}

function sampleData(svc: Service, ctx: Ctx, webhook: Webhook, event: string): Record<string, unknown> {
	if (event === 'post.created') {
		const real = svc.webhooks.testSample === 'newestPosts' ? newestPostsSample(svc, webhook.accountId) : undefined;
		if (real) return real;
		return {
			test: true,
			feed: { id: 0, name: 'Test feed' },
			source: { id: 0, platform: 'Twitter', term: '#test', term_type: 'hashtag' },
			posts: [
				{
					id: 0,
					external_id: 'test',
					platform: 'Twitter',
					url: 'https://x.com/test/posts/test',
					message: 'This is a test delivery',
					external_created_at: ctx.state.nowIso(),
					moderation_status: 'public',
				},
			],
		};
	}
	return { test: true, social_account: { id: 0, platform: 'Facebook', provider: 'facebook', name: 'Test account', username: 'test', expires_at: ctx.state.nowIso() } };
}

export function registerWebhooks(svc: Service): void {
	const api = svc.api;

	// Live, `{ name, description }` in `data` (CONTRIBUTING.md); SPEC.md shows none: there, the other legal form, the
	// bare list of names.
	api.get('/webhook_events', (ctx) => {
		requireAuth(ctx);
		return { status: 200, body: svc.shapes === 'live' ? { data: WEBHOOK_EVENTS } : WEBHOOK_EVENT_NAMES };
	});

	api.post('/webhooks', (ctx) => {
		const { account } = requireAuth(ctx);
		const input = validateWebhook(svc, bodyObject(ctx.body), true);
		const now = svc.clock.now();
		const w: Webhook = {
			id: ctx.state.nextId('webhook'),
			accountId: account.id,
			url: input.url ?? '',
			subscribedEvents: input.events ?? [],
			status: 'active',
			consecutiveFailures: 0,
			secret: `whsec_${ctx.state.token('webhook_secret', 40)}`,
			createdAt: now,
			updatedAt: now,
		};
		ctx.state.webhooks.set(w.id, w);
		return { status: 201, body: { data: webhookJson(w, true) } };
	});

	api.get('/webhooks', (ctx) => {
		const { account } = requireAuth(ctx);
		const paging = parsePaging(ctx.query);
		const list = [...ctx.state.webhooks.values()].filter((w) => w.accountId === account.id).sort((a, b) => a.id - b.id);
		return { status: 200, body: paginate(list, paging, (w) => webhookJson(w)) };
	});

	// The live endpoint map has no GET /webhooks/{id} (its clients find a subscription in GET /webhooks).
	api.get('/webhooks/:id', (ctx) => ({ status: 200, body: { data: webhookJson(webhookFor(ctx)) } }), { onlyIn: 'spec' });

	api.patch('/webhooks/:id', (ctx) => {
		const w = webhookFor(ctx);
		const input = validateWebhook(svc, bodyObject(ctx.body), false);
		if (input.url !== undefined) w.url = input.url;
		if (input.events !== undefined) w.subscribedEvents = input.events;
		if (input.status !== undefined) {
			if (input.status === 'active' && w.status !== 'active') w.consecutiveFailures = 0;
			w.status = input.status;
		}
		w.updatedAt = svc.clock.now();
		return { status: 200, body: { data: webhookJson(w) } };
	});

	api.delete('/webhooks/:id', (ctx) => {
		const w = webhookFor(ctx);
		ctx.state.webhooks.delete(w.id);
		return { status: 204 };
	});

	api.post('/webhooks/:id/test', async (ctx) => {
		const w = webhookFor(ctx);
		const body = bodyObject(ctx.body);
		let event = w.subscribedEvents[0];
		if (body.event !== undefined) {
			if (typeof body.event !== 'string' || !WEBHOOK_EVENT_NAMES.includes(body.event)) throw invalid({ event: ['is not a known event'] });
			event = body.event;
		}
		const delivery = svc.webhooks.create(w, event, sampleData(svc, ctx, w, event));
		if (svc.webhooks.testDelivery === 'beforeAnswer') await svc.webhooks.firstAttempt(delivery.id);
		return { status: 202, body: { data: { delivery_id: delivery.id, event } } };
	});

	// The delivery log (SERVICE-NOTES.md, "Webhooks"), live only: SPEC.md shows none, so in the spec shape both routes
	// are a route the service lacks (404), as on a service that keeps no log.
	api.get('/webhooks/:id/deliveries', (ctx) => {
		const w = webhookFor(ctx);
		const paging = parsePaging(ctx.query);
		const status = first(ctx.query, 'status');
		if (status && !DELIVERY_STATES.includes(status as Delivery['state'])) throw invalid({ status: [`must be one of ${DELIVERY_STATES.join(', ')}`] });
		const filtered = svc.webhooks.statusFilter === 'ignored' ? undefined : status;
		const list = [...ctx.state.deliveries.values()].filter((d) => d.webhookId === w.id && (!filtered || d.state === filtered));
		if (svc.webhooks.logOrder === 'newest') list.reverse();
		return { status: 200, body: paginate(list, paging, deliveryJson) };
	}, { onlyIn: 'live' });

	api.post('/webhooks/:id/deliveries/:delivery_id/redeliver', (ctx) => {
		const w = webhookFor(ctx);
		const d = ctx.state.deliveries.get(ctx.params.delivery_id);
		if (!d || d.webhookId !== w.id) throw notFound('Delivery');
		svc.webhooks.redeliver(d.id).catch(() => undefined);
		return { status: 202, body: { data: { delivery_id: d.id, event: d.event } } };
	}, { onlyIn: 'live' });
}
