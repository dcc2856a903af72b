import { createHmac } from 'crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'http';
import type { AddressInfo } from 'net';
import { start, type FakeService } from './server';
import { SEEDED, SEEDED_WEBHOOK_SECRETS } from './seed';
import { Client, DAY, expectError, startHarness, useHarness } from './helpers';
import { SIGNATURE_HEADERS } from './shapes';

interface Received {
	headers: IncomingHttpHeaders;
	raw: string;
	body: any;
}

class Receiver {
	received: Received[] = [];

	/** Statuses to answer, in order; then `fallback`. */
	script: number[] = [];

	fallback = 200;

	url = '';

	private server: Server;

	constructor() {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c) => chunks.push(c));
			req.on('end', () => {
				const raw = Buffer.concat(chunks).toString('utf8');
				this.received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
				res.writeHead(this.script.length ? this.script.shift()! : this.fallback);
				res.end('ok');
			});
		});
	}

	async listen(): Promise<void> {
		await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
	}

	reset(): void {
		this.received = [];
		this.script = [];
		this.fallback = 200;
	}

	close(): Promise<void> {
		return new Promise((r) => this.server.close(() => r()));
	}
}

const sign = (secret: string, raw: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

const h = useHarness({ webhooks: { retryDelaysMs: [10, 20, 40, 80, 160] } });

/** The signature header of the default (live) shape, as Node's http lower-cases it. */
const SIGNATURE = SIGNATURE_HEADERS.live.toLowerCase();
const rx = new Receiver();

beforeAll(async () => {
	await rx.listen();
});
afterAll(async () => {
	await rx.close();
});
beforeEach(() => {
	rx.reset();
});

/** One subscription as the live service's clients read it: found in GET /webhooks (its endpoint map lacks GET /webhooks/{id}). */
async function subscription(id: number): Promise<any> {
	const list = await h.api.get('/webhooks', { query: { per_page: 100 } });
	return list.body.data.find((w: any) => w.id === id);
}

async function subscribe(events = ['post.created']): Promise<any> {
	const res = await h.api.post('/webhooks', { url: rx.url, subscribed_events: events });
	expect(res.status).toBe(201);
	return res.body.data;
}

describe('webhook subscriptions', () => {
	test('create: 201 with the secret only in this response; get, list, update, delete', async () => {
		h.fake.control.setShapes('spec'); // GET /webhooks/{id} is SPEC.md's; the live endpoint map lacks it (shapes.test.ts)
		const w = await subscribe(['post.created', 'social_account.expiring']);
		expect(Object.keys(w).sort()).toEqual(['consecutive_failures', 'created_at', 'id', 'secret', 'status', 'subscribed_events', 'updated_at', 'url']);
		expect(w).toMatchObject({ url: rx.url, status: 'active', consecutive_failures: 0, subscribed_events: ['post.created', 'social_account.expiring'] });
		expect(typeof w.secret).toBe('string');
		const got = await h.api.get(`/webhooks/${w.id}`);
		expect(got.body.data.secret).toBeUndefined();
		expect(got.raw).not.toContain(w.secret);
		const list = await h.api.get('/webhooks');
		expect(list.body.meta.total_count).toBe(3);
		expect(list.raw).not.toContain(w.secret);
		const patched = await h.api.patch(`/webhooks/${w.id}`, { subscribed_events: ['social_account.expired'], status: 'paused' });
		expect(patched.status).toBe(200);
		expect(patched.body.data).toMatchObject({ subscribed_events: ['social_account.expired'], status: 'paused' });
		expect(patched.body.data.secret).toBeUndefined();
		expect((await h.api.delete(`/webhooks/${w.id}`)).status).toBe(204);
		expectError(await h.api.get(`/webhooks/${w.id}`), 404, 'not_found');
		expect(JSON.stringify(h.fake.control.requests.list())).not.toContain(w.secret);
	});

	test('validation: https only (http allowed only with allowHttpWebhooks), known events', async () => {
		const strict = await start({ port: 0 });
		try {
			const c = new Client(strict.url, strict.control.keys.owner);
			const err = expectError(await c.post('/webhooks', { url: 'http://127.0.0.1:1/x', subscribed_events: ['post.created'] }), 422, 'validation_failed');
			expect(err.details.url).toBeDefined();
			expect((await c.post('/webhooks', { url: 'https://hooks.example/x', subscribed_events: ['post.created'] })).status).toBe(201);
		} finally {
			await strict.close();
		}
		expect(expectError(await h.api.post('/webhooks', { url: rx.url, subscribed_events: ['post.deleted'] }), 422, 'validation_failed').details.subscribed_events).toBeDefined();
		expectError(await h.api.post('/webhooks', { url: rx.url, subscribed_events: [] }), 422, 'validation_failed');
		expectError(await h.api.post('/webhooks', { subscribed_events: ['post.created'] }), 422, 'validation_failed');
		expectError(await h.api.patch('/webhooks/1', { status: 'disabled' }), 422, 'validation_failed');
	});

	test('GET /webhook_events', async () => {
		const res = await h.api.get('/webhook_events');
		expect(res.body.data.map((e: any) => e.name)).toEqual(['post.created', 'social_account.expiring', 'social_account.expired']);
		for (const e of res.body.data) expect(typeof e.description).toBe('string');
	});
});

describe('test deliveries', () => {
	test('Send Test answers 202 as its delivery starts by default, or only after the delivery was answered', async () => {
		const w = await subscribe();
		const before = await h.api.post(`/webhooks/${w.id}/test`, {});
		expect(before.status).toBe(202);
		await h.fake.control.webhooks.settle();
		expect(rx.received).toHaveLength(1);

		rx.reset();
		h.fake.control.webhooks.setTestDelivery('beforeAnswer');
		const answered = await h.api.post(`/webhooks/${w.id}/test`, {});
		expect(answered.status).toBe(202);
		// Received before the answer came back: no settling needed.
		expect(rx.received).toHaveLength(1);
		expect(rx.received[0].body).toMatchObject({ id: answered.body.data.delivery_id, data: { test: true } });
		h.fake.control.reset();
	});

	test('a test delivery carries a synthetic post by default, or the newest real posts of the feed that stored one last', async () => {
		const w = await subscribe();
		await h.api.post(`/webhooks/${w.id}/test`, {});
		await h.fake.control.webhooks.settle();
		expect(rx.received[0].body.data).toMatchObject({ test: true, feed: { id: 0 }, posts: [{ id: 0 }] });

		rx.reset();
		h.fake.control.webhooks.setTestSample('newestPosts');
		const { feedId, sourceIds } = h.fake.control.seedFeed({ posts: 0, name: 'Sampled', sources: [{ platform: 'Twitter', term: '#sampled', term_type: 'hashtag' }] });
		const synced = h.fake.control.syncFeed(feedId, { newPosts: 5 }).posts.map((post) => Number(post.id));
		await h.fake.control.webhooks.settle();
		rx.reset();
		const res = await h.api.post(`/webhooks/${w.id}/test`, {});
		await h.fake.control.webhooks.settle();
		expect(rx.received).toHaveLength(1);
		const { body, raw, headers } = rx.received[0];
		expect(body).toMatchObject({ id: res.body.data.delivery_id, event: 'post.created', data: { test: true, feed: { id: feedId }, source: { id: sourceIds[0] } } });
		// The three newest, newest first, each as the feed lists it.
		const newest = [...synced].sort((a, b) => b - a).slice(0, 3);
		expect(body.data.posts.map((post: any) => post.id)).toEqual(newest);
		const { deleted, ...listed } = h.fake.control.getPost(newest[0])!;
		expect(deleted).toBe(false);
		expect(body.data.posts[0]).toEqual(listed);
		expect(headers[SIGNATURE]).toBe(sign(w.secret, raw));

		// A deleted post is no sample; a feed with fewer posts gives what it has.
		h.fake.control.setPostStatus(newest[0], 'deleted');
		const other = h.fake.control.seedFeed({ posts: 0, name: 'Sampled later', sources: [{ platform: 'Twitter', term: '#later', term_type: 'hashtag' }] });
		const [only] = h.fake.control.syncFeed(other.feedId, { newPosts: 1 }).posts;
		await h.fake.control.webhooks.settle();
		rx.reset();
		await h.api.post(`/webhooks/${w.id}/test`, {});
		await h.fake.control.webhooks.settle();
		expect(rx.received[0].body.data).toMatchObject({ test: true, feed: { id: other.feedId }, posts: [{ id: only.id }] });
		expect(rx.received[0].body.data.posts).toHaveLength(1);
		h.fake.control.setPostStatus(Number(only.id), 'deleted');
		rx.reset();
		await h.api.post(`/webhooks/${w.id}/test`, {});
		await h.fake.control.webhooks.settle();
		expect(rx.received[0].body.data.posts.map((post: any) => post.id)).toEqual(newest.slice(1).concat([...synced].sort((a, b) => b - a)[3]));

		// Other events keep their synthetic sample; a reset brings the synthetic post back; an unknown sample is refused.
		rx.reset();
		await h.api.post(`/webhooks/${w.id}/test`, { event: 'social_account.expiring' });
		await h.fake.control.webhooks.settle();
		expect(rx.received[0].body.data).toMatchObject({ test: true, social_account: { id: 0 } });
		expect(() => h.fake.control.webhooks.setTestSample('oldest' as never)).toThrow(/synthetic, newestPosts/);
		h.fake.control.reset();
		const again = await subscribe();
		rx.reset();
		await h.api.post(`/webhooks/${again.id}/test`, {});
		await h.fake.control.webhooks.settle();
		expect(rx.received[0].body.data.posts).toEqual([expect.objectContaining({ id: 0 })]);
		h.fake.control.reset();
	});

	test('a receiver set unreachable: each attempt fails at once as a refused connection, counted towards disabling; set back, deliveries reach it', async () => {
		const w = await subscribe();
		h.fake.control.webhooks.setUnreachable(rx.url, true);
		const ids = h.fake.control.webhooks.emit(1, 'post.created', { posts: [] });
		await h.fake.control.webhooks.settle();
		expect(rx.received).toEqual([]);
		const [view] = h.fake.control.webhooks.deliveries({ webhookId: w.id }).filter((d) => ids.includes(d.id));
		expect(view.state).toBe('failed');
		expect(view.attempts.map((a) => [a.status, a.error])).toEqual(Array.from({ length: 6 }, () => [null, expect.stringContaining('ECONNREFUSED')]));
		expect((await subscription(w.id)).consecutive_failures).toBe(6);

		const set = await fetch(`${h.fake.origin}/_control/webhooks/unreachable`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: rx.url, unreachable: false }) });
		expect(set.status).toBe(200);
		h.fake.control.webhooks.emit(1, 'post.created', { posts: [] });
		await h.fake.control.webhooks.settle();
		expect(rx.received).toHaveLength(1);
		expect((await subscription(w.id)).consecutive_failures).toBe(0);
		h.fake.control.reset();
	});

	test('the test sample over the control API', async () => {
		const set = await fetch(`${h.fake.origin}/_control/webhooks/test_sample`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sample: 'newestPosts' }) });
		expect(set.status).toBe(200);
		const w = await subscribe();
		const [post] = h.fake.control.syncFeed(2, { newPosts: 1 }).posts;
		await h.fake.control.webhooks.settle();
		rx.reset();
		await h.api.post(`/webhooks/${w.id}/test`, {});
		await h.fake.control.webhooks.settle();
		expect(rx.received[0].body.data).toMatchObject({ test: true, feed: { id: 2 }, source: { id: post.source_id } });
		// Its source's newest posts: the one just synced first, then older ones of that source.
		expect(rx.received[0].body.data.posts).toHaveLength(3);
		expect(rx.received[0].body.data.posts[0].id).toBe(post.id);
		const bad = await fetch(`${h.fake.origin}/_control/webhooks/test_sample`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sample: 'x' }) });
		expect(bad.status).toBe(400);
		h.fake.control.reset();
	});
});

describe('deliveries', () => {
	test('send test: 202; body { id, event, occurred_at, data.test }; signature recomputed from secret and raw body matches', async () => {
		const w = await subscribe();
		const res = await h.api.post(`/webhooks/${w.id}/test`);
		expect(res.status).toBe(202);
		expect(res.body.data).toEqual({ delivery_id: expect.stringMatching(/^dlv_/), event: 'post.created' });
		await h.fake.control.webhooks.settle();
		expect(rx.received).toHaveLength(1);
		const got = rx.received[0];
		expect(got.body).toMatchObject({ id: res.body.data.delivery_id, event: 'post.created', occurred_at: expect.any(String), data: { test: true } });
		expect(got.headers[SIGNATURE]).toBe(sign(w.secret, got.raw));
		expect(got.headers[SIGNATURE]).not.toBe(sign('wrong', got.raw));
		expect(got.headers['content-type']).toBe('application/json');
	});

	test('a feed sync delivers post.created with feed, source and posts', async () => {
		const w = await subscribe();
		const sync = h.fake.control.syncFeed(2, { newPosts: 4 });
		await h.fake.control.webhooks.settle();
		// One delivery per source with new posts, for each subscription (ours and the seeded sink).
		expect(sync.deliveries).toHaveLength(8);
		expect(h.fake.control.webhooks.deliveries({ webhookId: w.id })).toHaveLength(4);
		const mine = rx.received;
		expect(mine.length).toBe(4);
		for (const r of mine) {
			expect(r.body.event).toBe('post.created');
			expect(r.body.data.feed).toMatchObject({ id: 2, name: 'Product launch' });
			expect(r.body.data.source.feed_id).toBe(2);
			expect(r.body.data.posts.length).toBeGreaterThan(0);
			for (const p of r.body.data.posts) expect(p.source_id).toBe(r.body.data.source.id);
			expect(r.headers[SIGNATURE]).toBe(sign(w.secret, r.raw));
		}
		const ids = mine.flatMap((r) => r.body.data.posts.map((p: any) => p.id)).sort();
		expect(ids).toEqual(sync.posts.map((p) => p.id).sort());
	});

	test('the seeded sink subscription (.example host) also gets the delivery, simulated as 200', async () => {
		h.fake.control.syncFeed(1, { newPosts: 1 });
		await h.fake.control.webhooks.settle();
		const d = h.fake.control.webhooks.deliveries({ webhookId: SEEDED.webhooks.acmeActive });
		expect(d).toHaveLength(1);
		expect(d[0].state).toBe('succeeded');
		expect(d[0].attempts[0]).toMatchObject({ status: 200, simulated: true });
		expect(d[0].signature).toBe(sign(SEEDED_WEBHOOK_SECRETS[1], d[0].body));
		expect(h.fake.control.webhooks.secret(1)).toBe(SEEDED_WEBHOOK_SECRETS[1]);
	});

	test('failures are retried with the same delivery id and body; consecutive_failures counted; success resets', async () => {
		const w = await subscribe();
		rx.script = [500, 503, 200];
		h.fake.control.syncFeed(2, { newPosts: 1 });
		await h.fake.control.webhooks.settle({ fastForward: false });
		expect(rx.received).toHaveLength(3);
		expect(new Set(rx.received.map((r) => r.body.id)).size).toBe(1);
		expect(new Set(rx.received.map((r) => r.raw)).size).toBe(1);
		const [d] = h.fake.control.webhooks.deliveries({ webhookId: w.id });
		expect(d.state).toBe('succeeded');
		expect(d.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
		// Backoff: the gaps follow retryDelaysMs (10 ms, then 20 ms).
		const at = d.attempts.map((a) => Date.parse(a.at));
		expect(at[1] - at[0]).toBeGreaterThanOrEqual(9);
		expect(at[2] - at[1]).toBeGreaterThanOrEqual(19);
		expect((await subscription(w.id)).consecutive_failures).toBe(0);
		rx.script = [500];
		rx.fallback = 500;
		await h.api.post(`/webhooks/${w.id}/test`);
		await new Promise((r) => setTimeout(r, 5));
		await h.fake.control.webhooks.settle();
		const after = await subscription(w.id);
		expect(after.consecutive_failures).toBe(6);
		expect(after.status).toBe('active');
	});

	test('disabled after 10 consecutive failures; no more deliveries; re-activating resets the count', async () => {
		const w = await subscribe();
		rx.fallback = 500;
		h.fake.control.syncFeed(2, { newPosts: 2, sourceId: 6 });
		h.fake.control.syncFeed(2, { newPosts: 2, sourceId: 7 });
		await h.fake.control.webhooks.settle();
		const state = await subscription(w.id);
		expect(state).toMatchObject({ status: 'disabled', consecutive_failures: 10 });
		expect(rx.received).toHaveLength(10);
		const count = rx.received.length;
		h.fake.control.syncFeed(2, { newPosts: 1 });
		await h.fake.control.webhooks.settle();
		expect(rx.received.length).toBe(count);
		rx.fallback = 200;
		const re = await h.api.patch(`/webhooks/${w.id}`, { status: 'active' });
		expect(re.body.data).toMatchObject({ status: 'active', consecutive_failures: 0 });
	});

	test('a paused subscription gets no event deliveries', async () => {
		const w = await subscribe();
		await h.api.patch(`/webhooks/${w.id}`, { status: 'paused' });
		h.fake.control.syncFeed(2, { newPosts: 2 });
		await h.fake.control.webhooks.settle();
		expect(rx.received).toHaveLength(0);
	});

	test('delivery listing and redeliver (same id) through the API and control', async () => {
		const w = await subscribe();
		rx.fallback = 500;
		h.fake.control.syncFeed(2, { newPosts: 1 });
		await h.fake.control.webhooks.settle();
		const list = await h.api.get(`/webhooks/${w.id}/deliveries`);
		expect(list.body.meta.total_count).toBe(1);
		expect(list.body.data[0]).toMatchObject({ status: 'failed', attempts: 6, response_status: 500, event: 'post.created' });
		const id = list.body.data[0].id;
		rx.fallback = 200;
		const rd = await h.api.post(`/webhooks/${w.id}/deliveries/${id}/redeliver`);
		expect(rd.status).toBe(202);
		await h.fake.control.webhooks.settle();
		expect(rx.received[rx.received.length - 1].body.id).toBe(id);
		const again = await h.fake.control.webhooks.redeliver(id);
		expect(again.state).toBe('succeeded');
		expect(rx.received.filter((r) => r.body.id === id)).toHaveLength(8);
		expect(new Set(rx.received.map((r) => r.raw)).size).toBe(1);
	});

	test('the delivery log listed oldest first, its status filter ignored (start options; neither is documented)', async () => {
		const other = await startHarness({ webhooks: { retryDelaysMs: [10, 20, 40, 80, 160], logOrder: 'oldest', statusFilter: 'ignored' } });
		try {
			const created = await other.api.post('/webhooks', { url: rx.url, subscribed_events: ['post.created'] });
			const id = created.body.data.id;
			rx.fallback = 500;
			other.fake.control.syncFeed(2, { newPosts: 1 });
			await other.fake.control.webhooks.settle();
			rx.fallback = 200;
			other.fake.control.syncFeed(2, { newPosts: 1 });
			await other.fake.control.webhooks.settle();
			const list = await other.api.get(`/webhooks/${id}/deliveries`, { query: { status: 'succeeded' } });
			expect(list.body.data.map((d: { status: string }) => d.status)).toEqual(['failed', 'succeeded']);
		} finally {
			await other.fake.close();
		}
	});

	test('forged delivery: a bad signature, a custom body, no signature', async () => {
		const w = await subscribe();
		const forged = await h.fake.control.webhooks.deliver({ webhookId: w.id, signature: 'sha256=00' });
		expect(forged.status).toBe(200);
		expect(rx.received[0].headers[SIGNATURE]).toBe('sha256=00');
		const custom = await h.fake.control.webhooks.deliver({ url: rx.url, body: '{"id":"dlv_x","event":"post.created","occurred_at":"2025-01-01T00:00:00Z","data":{}}', secret: 'abc' });
		expect(rx.received[1].raw).toBe(custom.body);
		expect(rx.received[1].headers[SIGNATURE]).toBe(sign('abc', custom.body));
		await h.fake.control.webhooks.deliver({ url: rx.url, signature: null });
		expect(rx.received[2].headers[SIGNATURE]).toBeUndefined();
		expect(h.fake.control.webhooks.deliveries({ webhookId: w.id })).toHaveLength(0);
		const viaHttp = await h.origin.post('/_control/deliveries/forge', { webhookId: w.id });
		expect(viaHttp.body.result.status).toBe(200);
		expect(rx.received[3].headers[SIGNATURE]).toBe(sign(w.secret, rx.received[3].raw));
	});

	test('social_account.expiring within 5 days, then social_account.expired, once each', async () => {
		await subscribe(['social_account.expiring', 'social_account.expired']);
		const seen = () => rx.received.map((r) => `${r.body.event}:${r.body.data.social_account.provider}`).sort();
		h.fake.control.clock.advance(56 * DAY); // instagram (3 days) has expired; facebook (60 days) expires within 5
		await h.fake.control.webhooks.settle();
		h.fake.control.clock.advance(DAY);
		await h.fake.control.webhooks.settle();
		expect(seen()).toEqual(['social_account.expired:instagram', 'social_account.expiring:facebook']);
		const fb = rx.received.find((r) => r.body.event === 'social_account.expiring')!;
		expect(fb.body.data.social_account).toMatchObject({ id: SEEDED.socialAccounts.acmeFacebook, provider: 'facebook', platform: 'Facebook' });
		h.fake.control.clock.advance(5 * DAY);
		await h.fake.control.webhooks.settle();
		expect(seen()).toEqual(['social_account.expired:facebook', 'social_account.expired:instagram', 'social_account.expiring:facebook']);
	});

	test('control over HTTP: sync, settle, deliveries, secret', async () => {
		const w = await subscribe();
		const sync = await h.origin.post('/_control/feeds/2/sync', { newPosts: 1 });
		expect(sync.body.result.posts).toHaveLength(1);
		await h.origin.post('/_control/deliveries/settle');
		expect(rx.received).toHaveLength(1);
		const list = await h.origin.get('/_control/deliveries', { query: { webhookId: w.id } });
		expect(list.body.result[0]).toMatchObject({ state: 'succeeded', body: rx.received[0].raw });
		expect((await h.origin.get(`/_control/webhooks/${w.id}/secret`)).body.result.secret).toBe(w.secret);
	});
});

describe('the delivery log (live shape; shapes.test.ts: none in the spec shape)', () => {
	test('every delivery made, newest first, with its event, status, attempts, response code and created_at; paged; a status filter', async () => {
		const w = await subscribe();
		rx.fallback = 500;
		h.fake.control.syncFeed(2, { newPosts: 1, sourceId: 6 });
		await h.fake.control.webhooks.settle();
		rx.fallback = 200;
		h.fake.control.syncFeed(2, { newPosts: 1, sourceId: 7 });
		await h.api.post(`/webhooks/${w.id}/test`, { event: 'social_account.expired' });
		await h.fake.control.webhooks.settle();
		const made = h.fake.control.webhooks.deliveries({ webhookId: w.id });
		const log = await h.api.get(`/webhooks/${w.id}/deliveries`);
		expect(log.status).toBe(200);
		expect(log.body.meta).toEqual({ page: 1, per_page: 20, total_count: 3, total_pages: 1 });
		expect(log.body.data.map((d: any) => d.id)).toEqual(made.map((d) => d.id).reverse());
		expect(log.body.data.map((d: any) => [d.event, d.status, d.attempts, d.response_status])).toEqual([
			['social_account.expired', 'succeeded', 1, 200],
			['post.created', 'succeeded', 1, 200],
			['post.created', 'failed', 6, 500],
		]);
		for (const [index, delivery] of log.body.data.entries()) {
			expect(delivery).toMatchObject({ webhook_id: w.id, created_at: made[2 - index].createdAt, last_attempt_at: made[2 - index].attempts.at(-1)!.at });
		}
		const page = await h.api.get(`/webhooks/${w.id}/deliveries`, { query: { page: 2, per_page: 2 } });
		expect(page.body.data.map((d: any) => d.status)).toEqual(['failed']);
		expect(page.body.meta).toMatchObject({ page: 2, per_page: 2, total_count: 3, total_pages: 2 });
		const failed = await h.api.get(`/webhooks/${w.id}/deliveries`, { query: { status: 'failed' } });
		expect(failed.body.data.map((d: any) => d.id)).toEqual([made[0].id]);
		expect(failed.body.meta.total_count).toBe(1);
		expect(expectError(await h.api.get(`/webhooks/${w.id}/deliveries`, { query: { status: 'lost' } }), 422, 'validation_failed').details.status).toBeDefined();
		expectError(await h.api.get('/webhooks/999/deliveries'), 404, 'not_found');
		// Another account's subscription is not there for this key.
		expectError(await h.api.get(`/webhooks/${w.id}/deliveries`, { key: h.fake.control.keys.freeOwner }), 404, 'not_found');
	});

	test('redeliver: 202, the same id and raw body sent again, signed with the secret; the log counts the attempt; a delivery not in the log 404', async () => {
		const w = await subscribe();
		rx.fallback = 500;
		h.fake.control.syncFeed(2, { newPosts: 1, sourceId: 6 });
		await h.fake.control.webhooks.settle();
		rx.reset();
		const [d] = h.fake.control.webhooks.deliveries({ webhookId: w.id });
		const answer = await h.api.post(`/webhooks/${w.id}/deliveries/${d.id}/redeliver`);
		expect(answer.status).toBe(202);
		expect(answer.body.data).toEqual({ delivery_id: d.id, event: 'post.created' });
		await h.fake.control.webhooks.settle();
		expect(rx.received).toHaveLength(1);
		expect(rx.received[0].raw).toBe(d.body);
		expect(rx.received[0].body.id).toBe(d.id);
		expect(rx.received[0].headers[SIGNATURE]).toBe(sign(w.secret, rx.received[0].raw));
		const [logged] = (await h.api.get(`/webhooks/${w.id}/deliveries`)).body.data;
		expect(logged).toMatchObject({ id: d.id, status: 'succeeded', attempts: 7, response_status: 200 });
		expectError(await h.api.post(`/webhooks/${w.id}/deliveries/dlv_nothing/redeliver`), 404, 'not_found');
		// A delivery of another subscription is not this one's to redeliver.
		expectError(await h.api.post(`/webhooks/${SEEDED.webhooks.acmeActive}/deliveries/${d.id}/redeliver`), 404, 'not_found');
	});
});

describe('signature header name is configurable', () => {
	let other: FakeService;
	afterAll(async () => {
		await other.close();
	});
	test('X-Acme-Signature', async () => {
		other = await start({ allowHttpWebhooks: true, signatureHeader: 'X-Acme-Signature' });
		const c = new Client(other.url, other.control.keys.owner);
		const w = (await c.post('/webhooks', { url: rx.url, subscribed_events: ['post.created'] })).body.data;
		await c.post(`/webhooks/${w.id}/test`);
		await other.control.webhooks.settle();
		const r = rx.received[rx.received.length - 1];
		expect(r.headers['x-acme-signature']).toBe(sign(w.secret, r.raw));
		expect(r.headers[SIGNATURE]).toBeUndefined();
	});
});
