/**
 * The two legal shapes (README.md, "Shapes"): every answer that differs between the live service
 * (SERVICE-NOTES.md, the default) and SPEC.md's form, in both; and the answers that are the same in both.
 */
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import { KEYS } from './seed';
import { start } from './server';
import { SIGNATURE_HEADERS, type Shapes } from './shapes';
import { expectError, useHarness, type Res } from './helpers';

const h = useHarness();

let receiver: Server;
let receiverUrl = '';
const received: Array<{ headers: Record<string, string | string[] | undefined> }> = [];

beforeAll(async () => {
	receiver = createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			received.push({ headers: req.headers });
			res.writeHead(200).end('ok');
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
	await new Promise((resolve) => receiver.close(resolve));
});

const entry = (res: Res, platform: string) => res.body.meta.platforms.find((e: { platform: string }) => e.platform === platform);

describe('the switch', () => {
	test('live by default; setShapes and POST /_control/shapes keep a shape across requests until a reset, which returns to the start option', async () => {
		expect(h.fake.control.shapes()).toBe('live');
		h.fake.control.setShapes('spec');
		expect((await h.api.get('/webhooks/1')).status).toBe(200);
		expect((await h.api.get('/webhooks/1')).status).toBe(200);
		h.fake.control.reset();
		expect(h.fake.control.shapes()).toBe('live');
		expect((await h.origin.post('/_control/shapes', { shapes: 'spec' })).status).toBe(200);
		expect((await h.origin.get('/_control/shapes')).body.result).toEqual({ shapes: 'spec' });
		expect(h.fake.control.shapes()).toBe('spec');
		const refused = await h.origin.post('/_control/shapes', { shapes: 'flat' });
		expectError(refused, 400, 'bad_control_request');
		expect(() => h.fake.control.setShapes('both' as Shapes)).toThrow(/live.*spec/);
	});

	test('a start option of spec is what a reset returns to', async () => {
		const spec = await start({ shapes: 'spec' });
		try {
			spec.control.setShapes('live');
			spec.control.reset();
			expect(spec.control.shapes()).toBe('spec');
		} finally {
			await spec.close();
		}
	});
});

describe.each<Shapes>(['live', 'spec'])('answers that differ, in the %s shape', (shapes) => {
	const live = shapes === 'live';
	beforeEach(() => h.fake.control.setShapes(shapes));

	test(`deliveries are signed in ${SIGNATURE_HEADERS[shapes]}; a start option names another`, async () => {
		const sub = (await h.api.post('/webhooks', { url: receiverUrl, subscribed_events: ['post.created'] })).body.data;
		received.length = 0;
		await h.api.post(`/webhooks/${sub.id}/test`);
		await h.fake.control.webhooks.settle();
		const headers = received[0].headers;
		expect(headers[SIGNATURE_HEADERS[shapes].toLowerCase()]).toMatch(/^sha256=[0-9a-f]{64}$/);
		expect(headers[SIGNATURE_HEADERS[live ? 'spec' : 'live'].toLowerCase()]).toBeUndefined();
		const named = await start({ shapes, signatureHeader: 'X-Acme-Signature' });
		try {
			expect((await named.control.webhooks.deliver({ url: receiverUrl, event: 'post.created', data: {}, secret: 's' })).status).toBe(200);
			expect(received.at(-1)?.headers['x-acme-signature']).toMatch(/^sha256=/);
		} finally {
			await named.close();
		}
	});

	test(`a rate-limit 429 ${live ? 'carries no Retry-After and no rate-limit headers' : 'carries Retry-After in whole seconds'}; an explicit choice wins over the shape`, async () => {
		h.fake.control.rateLimits.set(KEYS.owner, { burstPerMinute: 1 });
		expect((await h.api.get('/account')).status).toBe(200);
		const limited = await h.api.get('/account');
		expectError(limited, 429, 'rate_limit_exceeded');
		if (live) expect(limited.headers.get('retry-after')).toBeNull();
		else expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
		expect([...limited.headers.keys()].filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
		h.fake.control.rateLimits.setRetryAfter(live);
		const chosen = await h.api.get('/account');
		expect(chosen.headers.get('retry-after') !== null).toBe(live);
	});

	test(`error envelopes: details and action ${live ? 'null when there are none' : 'an object, action absent, when there are none'}; filled ones are the same`, async () => {
		const missing = expectError(await h.api.get('/feeds/999'), 404, 'not_found');
		if (live) expect(missing).toMatchObject({ details: null, action: null });
		else {
			expect(missing.details).toEqual({});
			expect('action' in missing).toBe(false);
		}
		const refused = expectError(await h.api.post('/feeds', { name: '' }), 422, 'validation_failed');
		expect(refused.details.name).toEqual([expect.any(String)]);
		const upgrade = expectError(await h.api.post('/users', { email: 'a@b.example', role: 'collaborator' }, { key: KEYS.freeOwner }), 422, 'user_limit_reached');
		expect(upgrade.action).toMatchObject({ type: 'upgrade_plan', upgrade_url: expect.any(String) });
	});

	test(`a route the service lacks: ${live ? '404 without an error object' : 'the envelope, 404 or 405'}`, async () => {
		const unknown = await h.api.get('/nothing/here');
		expect(unknown.status).toBe(404);
		if (live) expect(unknown.body).toEqual({ status: 404, error: 'Not Found' });
		else expectError(unknown, 404, 'not_found');
		const wrongMethod = await h.api.put('/account', {});
		if (live) expect({ status: wrongMethod.status, body: wrongMethod.body }).toEqual({ status: 404, body: { status: 404, error: 'Not Found' } });
		else expectError(wrongMethod, 405, 'method_not_allowed');
	});

	test(`GET /webhooks/{id} of a subscription that exists: ${live ? '404 (not in the live endpoint map)' : '200'}; GET /webhooks finds it in both`, async () => {
		const one = await h.api.get('/webhooks/1');
		if (live) expect({ status: one.status, body: one.body }).toEqual({ status: 404, body: { status: 404, error: 'Not Found' } });
		else expect(one.body.data).toMatchObject({ id: 1, status: 'active' });
		const list = await h.api.get('/webhooks');
		expect(list.body.data.find((w: { id: number }) => w.id === 1)).toMatchObject({ id: 1, status: 'active' });
		// The rest of /webhooks/{id} is there in both.
		expect((await h.api.patch('/webhooks/1', { status: 'paused' })).status).toBe(200);
	});

	test(`the delivery log and redeliver: ${live ? 'offered' : 'a route the service lacks (404), as on a service that keeps no log'}`, async () => {
		h.fake.control.syncFeed(1, { newPosts: 1 });
		await h.fake.control.webhooks.settle();
		const [delivery] = h.fake.control.webhooks.deliveries({ webhookId: 1 });
		const log = await h.api.get('/webhooks/1/deliveries');
		const redeliver = await h.api.post(`/webhooks/1/deliveries/${delivery.id}/redeliver`);
		if (live) {
			expect(log.body.data.map((d: { id: string }) => d.id)).toEqual([delivery.id]);
			expect(redeliver.status).toBe(202);
		} else {
			expectError(log, 404, 'not_found');
			expectError(redeliver, 404, 'not_found');
		}
	});

	test(`GET /webhook_events answers ${live ? '{ name, description } in data' : 'the bare list of names'}`, async () => {
		const kinds = await h.api.get('/webhook_events');
		const names = ['post.created', 'social_account.expiring', 'social_account.expired'];
		if (live) expect(kinds.body.data).toEqual(names.map((name) => ({ name, description: expect.any(String) })));
		else expect(kinds.body).toEqual(names);
	});

	test(`the invite answer ${live ? 'has no role' : 'has the role'}`, async () => {
		const invited = await h.api.post('/users', { email: 'shape.collab@example.com', role: 'collaborator', feed_ids: [1] });
		expect(invited.status).toBe(201);
		expect(invited.body.data).toMatchObject({ email: 'shape.collab@example.com', feed_ids: [1], invitation_pending: true });
		expect('role' in invited.body.data).toBe(!live);
		// Reading the user elsewhere still tells the role.
		expect(h.fake.control.users(1).find((u) => u.email === 'shape.collab@example.com')?.role).toBe('collaborator');
	});

	test(`requires_connection ${live ? 'as an object, true, false, null or absent' : "as SPEC.md's object, or null"}`, async () => {
		const platforms = (await h.api.get('/platforms')).body.data as Array<{ platform: string; term_types: Array<Record<string, unknown>> }>;
		const of = (platform: string, termType: string) =>
			platforms.find((p) => p.platform === platform)?.term_types.find((t) => t.term_type === termType);
		expect(of('Threads', 'username')?.requires_connection).toMatchObject({ provider: 'threads', description: expect.any(String) });
		expect(of('Facebook', 'page')?.requires_connection).toMatchObject({ provider: 'facebook' });
		expect(of('YouTube', 'playlist')?.requires_connection).toBeNull();
		if (live) {
			expect(of('Threads', 'hashtag')?.requires_connection).toBe(true);
			expect(of('Bluesky', 'username')?.requires_connection).toBe(false);
			expect(of('RSS', 'url')).toBeDefined();
			expect('requires_connection' in (of('RSS', 'url') ?? {})).toBe(false);
		} else {
			expect(of('Threads', 'hashtag')?.requires_connection).toMatchObject({ provider: 'threads' });
			expect(of('Bluesky', 'username')?.requires_connection).toBeNull();
			expect(of('RSS', 'url')?.requires_connection).toBeNull();
		}
	});

	test(`the X platform requested as X: ${live ? 'answered as X, with posts and a cursor for X' : 'unknown_platform (SPEC.md names it Twitter)'}`, async () => {
		const res = await h.api.get('/data/posts', { query: { term: 'acme', platforms: 'X,Bluesky' } });
		expect(res.status).toBe(200);
		if (live) {
			expect(entry(res, 'X')).toMatchObject({ success: true, count: 20, has_more: true, next_cursor: expect.any(String) });
			const x = res.body.data.filter((p: { platform: string }) => p.platform === 'X');
			expect(x).toHaveLength(20);
			expect(x[0].impression_count).toEqual(expect.any(Number));
			const next = await h.api.get('/data/posts', { query: { term: 'acme', platforms: 'X', cursor: entry(res, 'X').next_cursor } });
			expect(entry(next, 'X')).toMatchObject({ success: true, count: 20 });
			expect(next.body.data[0].platform_id).not.toBe(x[0].platform_id);
		} else {
			expect(entry(res, 'X')).toMatchObject({ success: false, error_code: 'unknown_platform' });
		}
		expect(entry(res, 'Bluesky')).toMatchObject({ success: true, count: 25 });
		const twitter = await h.api.get('/data/posts', { query: { term: 'acme', platforms: 'Twitter' } });
		expect(twitter.body.data.every((p: { platform: string }) => p.platform === 'Twitter')).toBe(true);
	});

	test(`a platform with no posts answers success ${live ? 'without a cursor' : 'with next_cursor null and has_more false'}`, async () => {
		h.fake.control.data.configure('Bluesky', { totalPosts: 0 });
		const res = await h.api.get('/data/posts', { query: { term: 'acme', platforms: 'Bluesky,Twitter' } });
		const empty = entry(res, 'Bluesky');
		if (live) expect(empty).toEqual({ platform: 'Bluesky', success: true, count: 0 });
		else expect(empty).toEqual({ platform: 'Bluesky', success: true, count: 0, next_cursor: null, has_more: false });
		expect(entry(res, 'Twitter')).toMatchObject({ success: true, count: 20, next_cursor: expect.any(String) });
	});

	test(`GET /data/profiles answers ${live ? 'groups with exact_match' : 'one flat profile per term and platform'}`, async () => {
		const res = await h.api.get('/data/profiles', { query: { term: 'nasa', platforms: 'Twitter' } });
		if (live) expect(res.body.data[0]).toMatchObject({ platform: 'Twitter', term: 'nasa', exact_match: true, profiles: [{ platform: 'Twitter', metrics: expect.any(Object) }] });
		else expect(res.body.data[0]).toMatchObject({ platform: 'Twitter', term: 'nasa', name: 'nasa', url: expect.any(String) });
	});
});

describe.each<Shapes>(['live', 'spec'])('answers that are the same in both shapes (%s)', (shapes) => {
	beforeEach(() => h.fake.control.setShapes(shapes));

	test('deletes answer 204 without a body; DELETE /webhooks/{id} of a subscription already gone answers 404', async () => {
		const gone = await h.api.delete('/webhooks/1');
		expect({ status: gone.status, raw: gone.raw }).toEqual({ status: 204, raw: '' });
		expect((await h.api.delete('/webhooks/1')).status).toBe(404);
		expect((await h.api.delete('/feeds/1/posts/1001')).status).toBe(204);
	});

	test('POST /authorize answers 201 (Mode A) and 202 (Mode B); creates answer 201 with the record in data', async () => {
		expect((await h.api.post('/authorize', { email: `new.${shapes}@example.com`, client_name: 'n8n' }, { key: null })).status).toBe(201);
		expect((await h.api.post('/authorize', { email: 'owner@acme.example', client_name: 'n8n' }, { key: null })).status).toBe(202);
		const created = await h.api.post('/feeds', { name: `Shapes ${shapes}` });
		expect(created.status).toBe(201);
		expect(created.body.data).toMatchObject({ name: `Shapes ${shapes}`, moderation: { enabled: expect.any(Boolean) } });
	});

	test('the Data API answers 200 when every platform failed, the failures only in meta.platforms', async () => {
		h.fake.control.data.fail('Twitter', { errorCode: 'platform_error' });
		const res = await h.api.get('/data/posts', { query: { term: 'acme', platforms: 'Twitter,MySpace' } });
		expect(res.status).toBe(200);
		expect(res.body.data).toEqual([]);
		expect(res.body.meta.platforms.map((e: { success: boolean }) => e.success)).toEqual([false, false]);
	});
});
