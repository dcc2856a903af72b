import { createConnection } from 'net';
import { KEYS, SEEDED } from './seed';
import { start } from './server';
import { expectError, useHarness } from './helpers';

const h = useHarness();

describe('start()', () => {
	test('binds 127.0.0.1, base URL ends in /v1, starts fast', async () => {
		const t0 = performance.now();
		const other = await start({ port: 0 });
		const ms = performance.now() - t0;
		try {
			expect(other.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
			expect(other.origin).toBe(other.url.slice(0, -3));
			expect(ms).toBeLessThan(1000);
			expect(other.apiKey).toBe(KEYS.owner);
		} finally {
			await other.close();
		}
	});

	test('seeded keys carry the sag_live_ prefix and are distinct', () => {
		const values = Object.values(h.fake.control.keys);
		for (const k of values) expect(k).toMatch(/^sag_live_[0-9a-f]{32}$/);
		expect(new Set(values).size).toBe(values.length);
	});

	test('a path outside /v1 is 404 with the envelope', async () => {
		const res = await h.origin.get('/feeds');
		expectError(res, 404, 'not_found');
	});
});

describe('authentication', () => {
	test('missing key → 401 unauthorized', async () => {
		expectError(await h.api.get('/account', { key: null }), 401, 'unauthorized');
	});
	test('unknown key → 401', async () => {
		expectError(await h.api.get('/account', { key: 'sag_live_00000000000000000000000000000000' }), 401, 'unauthorized');
	});
	test('malformed header → 401', async () => {
		expectError(await h.api.get('/account', { key: null, headers: { Authorization: KEYS.owner } }), 401, 'unauthorized');
	});
	test('expired temporary key → 401', async () => {
		expectError(await h.api.get('/account', { key: KEYS.expired }), 401, 'unauthorized');
	});
	test('each seeded role key authenticates with its role', async () => {
		for (const [name, role] of [
			['owner', 'owner'],
			['manager', 'manager'],
			['collaborator', 'collaborator'],
			['freeOwner', 'owner'],
		] as const) {
			const res = await h.api.get('/account', { key: KEYS[name] });
			expect(res.status).toBe(200);
			expect(res.body.data.role).toBe(role);
		}
	});
	test('GET /account shape (CONTRIBUTING)', async () => {
		const res = await h.api.get('/account');
		expect(res.body.data).toMatchObject({ id: SEEDED.accounts.acme, name: 'Acme Media', email: SEEDED.emails.acmeOwner, plan: 'team', plan_display_name: 'Team', role: 'owner' });
		expect(res.raw).not.toContain(KEYS.owner);
	});
});

describe('request log', () => {
	test('records method, path, query, body, status, key id and role, never the key', async () => {
		await h.api.post('/feeds', { name: 'Logged' }, { query: { x: '1' } });
		await h.api.get('/feeds/1/posts', { query: { page: 2, status: 'public' } });
		const log = h.fake.control.requests.list();
		expect(log).toHaveLength(2);
		expect(log[0]).toMatchObject({ method: 'POST', path: '/feeds', query: { x: '1' }, body: { name: 'Logged' }, status: 201, keyId: 'key_acme-owner', role: 'owner', accountId: 1 });
		expect(log[1]).toMatchObject({ method: 'GET', path: '/feeds/1/posts', query: { page: '2', status: 'public' }, status: 200 });
		expect(typeof log[0].time).toBe('string');
		expect(JSON.stringify(log)).not.toContain(KEYS.owner);
		expect(h.fake.control.requests.list({ path: '/feeds' })).toHaveLength(1);
		h.fake.control.requests.clear();
		expect(h.fake.control.requests.list()).toHaveLength(0);
	});
	test('a 401 is logged without key id', async () => {
		await h.api.get('/account', { key: 'sag_live_nope' });
		const [entry] = h.fake.control.requests.list();
		expect(entry).toMatchObject({ status: 401, keyId: null, role: null });
		expect(JSON.stringify(entry)).not.toContain('sag_live_nope');
	});
});

describe('faults', () => {
	test('429 with Retry-After and envelope, for the next N matching requests only', async () => {
		h.fake.control.faults.add({ method: 'GET', path: '/feeds/:id', kind: 'error', status: 429, retryAfter: 7, count: 2 });
		const a = await h.api.get('/feeds/1');
		expectError(a, 429, 'rate_limit_exceeded');
		expect(a.headers.get('retry-after')).toBe('7');
		expect((await h.api.get('/feeds')).status).toBe(200); // other route unaffected
		expect((await h.api.get('/feeds/2')).status).toBe(429);
		expect((await h.api.get('/feeds/2')).status).toBe(200);
	});
	test('500 and 503', async () => {
		h.fake.control.injectFault({ path: '/account', kind: 'error', status: 500 });
		h.fake.control.injectFault({ path: '/account', kind: 'error', status: 503 });
		expect((await h.api.get('/account')).status).toBe(500);
		expect((await h.api.get('/account')).status).toBe(503);
		expect((await h.api.get('/account')).status).toBe(200);
	});
	test('delay', async () => {
		h.fake.control.faults.add({ path: '/account', kind: 'delay', delayMs: 300 });
		const t0 = Date.now();
		expect((await h.api.get('/account')).status).toBe(200);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
	});
	test('dropped connection', async () => {
		h.fake.control.faults.add({ path: '/account', kind: 'drop' });
		await expect(h.api.get('/account')).rejects.toThrow();
		expect((await h.api.get('/account')).status).toBe(200);
	});
	test('malformed JSON body', async () => {
		h.fake.control.faults.add({ path: '/feeds', method: 'GET', kind: 'malformed' });
		const res = await h.api.get('/feeds');
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toContain('application/json');
		expect(() => JSON.parse(res.raw)).toThrow();
	});
	test("when: 'after' lets the handler act first (a POST that created the feed, then dropped)", async () => {
		h.fake.control.faults.add({ path: '/feeds', method: 'POST', kind: 'drop', when: 'after' });
		await expect(h.api.post('/feeds', { name: 'Created then dropped' })).rejects.toThrow();
		const list = await h.api.get('/feeds');
		expect(list.body.data.map((f: { name: string }) => f.name)).toContain('Created then dropped');
	});
	test('skip and query matching: fail only page 3', async () => {
		h.fake.control.faults.add({ path: '/feeds/:id/posts', query: { page: '3' }, kind: 'error', status: 503, count: 'always' });
		expect((await h.api.get('/feeds/1/posts', { query: { page: 2 } })).status).toBe(200);
		expect((await h.api.get('/feeds/1/posts', { query: { page: 3 } })).status).toBe(503);
		expect((await h.api.get('/feeds/1/posts', { query: { page: 3 } })).status).toBe(503);
		h.fake.control.faults.clear();
		h.fake.control.faults.add({ path: '/account', kind: 'error', status: 500, skip: 1 });
		expect((await h.api.get('/account')).status).toBe(200);
		expect((await h.api.get('/account')).status).toBe(500);
	});
	test('faulted requests appear in the log with the fault', async () => {
		const id = h.fake.control.faults.add({ path: '/account', kind: 'error', status: 503 });
		await h.api.get('/account');
		expect(h.fake.control.requests.list()[0]).toMatchObject({ status: 503, fault: `${id}:error` });
	});
});

describe('answers in another shape', () => {
	test('the next N successful requests to the path get the given body; then the fake answers as before', async () => {
		const id = h.fake.control.answers.add({ path: '/webhook_events', body: { data: ['post.created'] }, count: 2 });
		for (let i = 0; i < 2; i++) {
			const res = await h.api.get('/webhook_events');
			expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { data: ['post.created'] } });
			expect(res.headers.get('content-type')).toContain('application/json');
		}
		expect((await h.api.get('/webhook_events')).body.data[0]).toEqual({ name: 'post.created', description: expect.any(String) });
		expect(h.fake.control.requests.list().map((r) => r.fault)).toEqual([`${id}:answer`, `${id}:answer`, null]);
	});
	test('any JSON value, null included; only the method, path and query given', async () => {
		h.fake.control.answers.add({ path: '/feeds/:id/sources', query: { page: '2' }, body: null, count: 'always' });
		expect((await h.api.get('/feeds/1/sources', { query: { page: 1 } })).body.data).toHaveLength(5);
		for (let i = 0; i < 2; i++) expect((await h.api.get('/feeds/1/sources', { query: { page: 2 } })).raw).toBe('null');
		h.fake.control.answers.add({ method: 'POST', path: '/feeds', body: [1, 'two'] });
		expect((await h.api.get('/feeds')).body.data).toHaveLength(3);
		expect((await h.api.post('/feeds', { name: 'Answered' })).body).toEqual([1, 'two']);
	});
	test('an error is answered as usual and does not use the answer up', async () => {
		h.fake.control.answers.add({ path: '/platforms', body: { data: [] } });
		expectError(await h.api.get('/platforms', { key: null }), 401, 'unauthorized');
		expect((await h.api.get('/platforms')).body).toEqual({ data: [] });
		expect((await h.api.get('/platforms')).body.data.length).toBeGreaterThan(0);
	});
	test('over HTTP: add, list, remove, clear; reset clears them', async () => {
		const added = await h.origin.post('/_control/answers', { path: '/account', body: { account: 'other' }, count: null });
		expect(added.status).toBe(200);
		expect((await h.origin.get('/_control/answers')).body.result).toEqual([
			{ id: added.body.result.id, spec: expect.objectContaining({ path: '/account' }), remaining: 'always', hits: 0 },
		]);
		expect((await h.api.get('/account')).body).toEqual({ account: 'other' });
		expect((await h.api.get('/account')).body).toEqual({ account: 'other' });
		expect((await h.origin.delete(`/_control/answers/${added.body.result.id as string}`)).body.result).toBe(true);
		expect((await h.api.get('/account')).body.data.id).toBe(1);
		await h.origin.post('/_control/answers', { path: '/account', body: {} });
		await h.origin.delete('/_control/answers');
		expect((await h.api.get('/account')).body.data.id).toBe(1);
		h.fake.control.answers.add({ path: '/account', body: {} });
		h.fake.control.reset();
		expect(h.fake.control.answers.list()).toEqual([]);
		expect((await h.origin.post('/_control/answers', { body: {} })).status).toBe(400);
	});
});

describe('latency', () => {
	test('latencyMs applies to every request and can be changed', async () => {
		h.fake.control.setLatency(200);
		let t0 = Date.now();
		await h.api.get('/account');
		expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
		h.fake.control.setLatency(0);
		t0 = Date.now();
		await h.api.get('/account');
		expect(Date.now() - t0).toBeLessThan(150);
	});
});

describe('rate limits', () => {
	test('a tight limit for one key: 429, envelope, Retry-After in whole seconds; other keys unaffected', async () => {
		h.fake.control.setShapes('spec'); // SPEC.md's 429 as this stand-in chose it: with Retry-After
		h.fake.control.rateLimits.set(KEYS.manager, { requestsPerHour: 3 });
		for (let i = 0; i < 3; i++) expect((await h.api.get('/account', { key: KEYS.manager })).status).toBe(200);
		const res = await h.api.get('/account', { key: KEYS.manager });
		expectError(res, 429, 'rate_limit_exceeded');
		expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
		const wait = Number(res.headers.get('retry-after'));
		expect(wait).toBeGreaterThan(3000);
		expect(wait).toBeLessThanOrEqual(3600);
		expect((await h.api.get('/account')).status).toBe(200);
		h.fake.control.clock.advance(wait * 1000);
		expect((await h.api.get('/account', { key: KEYS.manager })).status).toBe(200);
	});

	test('default tier of a free-plan permanent key: 60/minute burst, then the minute window resets', async () => {
		h.fake.control.setShapes('spec'); // SPEC.md's 429 as this stand-in chose it: with Retry-After
		for (let i = 0; i < 60; i++) expect((await h.api.get('/account', { key: KEYS.freeOwner })).status).toBe(200);
		const res = await h.api.get('/account', { key: KEYS.freeOwner });
		expect(res.status).toBe(429);
		expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
		h.fake.control.clock.advance(61_000);
		expect((await h.api.get('/account', { key: KEYS.freeOwner })).status).toBe(200);
	});

	test('300/hour for a free-plan permanent key', async () => {
		h.fake.control.setShapes('spec'); // SPEC.md's 429 as this stand-in chose it: with Retry-After
		h.fake.control.rateLimits.set(KEYS.freeOwner, { burstPerMinute: null });
		for (let i = 0; i < 300; i++) {
			const r = await h.api.get('/platforms', { key: KEYS.freeOwner });
			if (r.status !== 200) throw new Error(`request ${i + 1}: ${r.status}`);
		}
		const res = await h.api.get('/platforms', { key: KEYS.freeOwner });
		expect(res.status).toBe(429);
		expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(60);
	});

	test('without Retry-After (a service that does not say when): the same 429 and envelope, no header; at start or through the control API', async () => {
		const quiet = await start({ limits: { retryAfter: false, perKey: { [KEYS.owner]: { burstPerMinute: 1 } } } });
		try {
			const get = () => fetch(`${quiet.url}/account`, { headers: { Authorization: `Bearer ${KEYS.owner}` } });
			expect((await get()).status).toBe(200);
			const r = await get();
			expect(r.status).toBe(429);
			expect(r.headers.get('retry-after')).toBeNull();
			expect(((await r.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
			const on = await fetch(`${quiet.origin}/_control/rate_limits/retry_after`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ send: true }),
			});
			expect(on.status).toBeLessThan(300);
			expect((await get()).headers.get('retry-after')).toMatch(/^\d+$/);
		} finally {
			await quiet.close();
		}
	});

	test('an hour shrunk to 20 s: 30 requests per hour beside a burst of 10; the spent hour answers 429 without Retry-After until it ends', async () => {
		const scale = 20 / 3600;
		const shrunk = await start({ clock: { mode: 'frozen' }, limits: { windowScale: scale, retryAfter: false, perKey: { [KEYS.owner]: { requestsPerHour: 30, burstPerMinute: 10 } } } });
		try {
			const get = () => fetch(`${shrunk.url}/account`, { headers: { Authorization: `Bearer ${KEYS.owner}` } });
			const statuses: number[] = [];
			// Three bursts of 10, each in a minute of its own (a minute is a third of a second here).
			for (let minute = 0; minute < 3; minute++) {
				for (let i = 0; i < 10; i++) statuses.push((await get()).status);
				const burst = await get();
				expect(burst.status).toBe(429);
				expect(burst.headers.get('retry-after')).toBeNull();
				shrunk.control.clock.advance(400);
			}
			expect(statuses).toEqual(Array(30).fill(200));
			// The hour's 30 are spent: a new minute does not help, the end of the hour does.
			const spent = await get();
			expect(spent.status).toBe(429);
			expect(spent.headers.get('retry-after')).toBeNull();
			expect(((await spent.json()) as { error: { code: string; message: string } }).error.message).toMatch(/30 requests per hour/);
			expect(shrunk.control.rateLimits.usage(KEYS.owner)).toEqual({ hour: 30, minute: 0 });
			shrunk.control.clock.advance(20_000 - 3 * 400);
			expect((await get()).status).toBe(200);
		} finally {
			await shrunk.close();
		}
	});

	test('X-RateLimit-Limit, -Remaining and -Reset on every answer to a key while the hour is shortened (or when turned on), the 429 included; off when turned off', async () => {
		const told = await start({ clock: { mode: 'frozen' }, limits: { windowScale: 20 / 3600, retryAfter: false, perKey: { [KEYS.owner]: { requestsPerHour: 3, burstPerMinute: null } } } });
		const headersOn = (send: boolean | null) =>
			fetch(`${told.origin}/_control/rate_limits/headers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ send }) });
		try {
			const get = () => fetch(`${told.url}/account`, { headers: { Authorization: `Bearer ${KEYS.owner}` } });
			const first = await get();
			expect([first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining'), first.headers.get('x-ratelimit-reset')]).toEqual(['3', '2', '20']);
			expect((await headersOn(false)).status).toBeLessThan(300);
			told.control.clock.advance(5_000);
			expect((await get()).headers.get('x-ratelimit-limit')).toBeNull();
			expect((await headersOn(null)).status).toBeLessThan(300);
			const third = await get();
			expect([third.headers.get('x-ratelimit-remaining'), third.headers.get('x-ratelimit-reset')]).toEqual(['0', '15']);
			const refused = await get();
			expect(refused.status).toBe(429);
			expect([refused.headers.get('x-ratelimit-remaining'), refused.headers.get('x-ratelimit-reset'), refused.headers.get('retry-after')]).toEqual(['0', '15', null]);
			// A real hour: none unless turned on.
			told.control.rateLimits.setWindowScale(1);
			told.control.rateLimits.clear();
			expect((await get()).headers.get('x-ratelimit-limit')).toBeNull();
			told.control.rateLimits.setHeaders(true);
			expect((await get()).headers.get('x-ratelimit-reset')).toBe('3600');
		} finally {
			await told.close();
		}
	});

	test('a delay after the handler answers in another order than the requests were counted', async () => {
		const fake = await start({ limits: { windowScale: 20 / 3600, perKey: { [KEYS.owner]: { requestsPerHour: 10, burstPerMinute: null } } } });
		try {
			fake.control.injectFault({ kind: 'delay', path: '/account', delayMs: 150, when: 'after', count: 1 });
			const get = async () => {
				const answer = await fetch(`${fake.url}/account`, { headers: { Authorization: `Bearer ${KEYS.owner}` } });
				return { remaining: answer.headers.get('x-ratelimit-remaining'), at: performance.now() };
			};
			const slow = get();
			await new Promise((resolve) => setTimeout(resolve, 30));
			const fast = await get();
			const late = await slow;
			expect([late.remaining, fast.remaining]).toEqual(['9', '8']);
			expect(late.at).toBeGreaterThan(fast.at);
			// An injected 429 carries the headers it is given.
			fake.control.injectFault({ kind: 'error', status: 429, path: '/account', retryAfter: null, headers: { 'X-RateLimit-Reset': '5' } });
			const limited = await fetch(`${fake.url}/account`, { headers: { Authorization: `Bearer ${KEYS.owner}` } });
			expect([limited.status, limited.headers.get('x-ratelimit-reset'), limited.headers.get('retry-after')]).toEqual([429, '5', null]);
		} finally {
			await fake.close();
		}
	});

	test('windowScale shrinks the windows (tests run in seconds)', async () => {
		const fast = await start({ shapes: 'spec', limits: { windowScale: 0.01, perKey: { [KEYS.owner]: { burstPerMinute: 2 } } } });
		try {
			const get = () => fetch(`${fast.url}/account`, { headers: { Authorization: `Bearer ${KEYS.owner}` } });
			expect((await get()).status).toBe(200);
			expect((await get()).status).toBe(200);
			const r = await get();
			expect(r.status).toBe(429);
			expect(r.headers.get('retry-after')).toBe('1');
			await new Promise((res) => setTimeout(res, 700));
			expect((await get()).status).toBe(200);
		} finally {
			await fast.close();
		}
	});
});

describe('clock and reset', () => {
	test('advance and set move the fake clock', () => {
		const t0 = h.fake.control.clock.now().getTime();
		expect(h.fake.control.clock.advance(3_600_000).getTime()).toBeGreaterThanOrEqual(t0 + 3_600_000);
		expect(h.fake.control.clock.set('2030-01-01T00:00:00Z').toISOString()).toBe('2030-01-01T00:00:00.000Z');
	});
	test('reset restores the seed state', async () => {
		await h.api.delete('/feeds/1');
		expect((await h.api.get('/feeds/1')).status).toBe(404);
		h.fake.control.reset();
		expect((await h.api.get('/feeds/1')).status).toBe(200);
		expect(h.fake.control.requests.list()).toHaveLength(1);
	});
	test('invalid JSON body → 400 invalid_json', async () => {
		expectError(await h.api.call('POST', '/feeds', { rawBody: '{"name":' }), 400, 'invalid_json');
	});
	test('keep-alive: a raw HTTP/1.1 request works', async () => {
		const port = h.fake.port;
		const text = await new Promise<string>((resolve, reject) => {
			const sock = createConnection(port, '127.0.0.1', () => {
				sock.write(`GET /v1/platforms HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.owner}\r\nConnection: close\r\n\r\n`);
			});
			let buf = '';
			sock.on('data', (d) => (buf += d.toString()));
			sock.on('end', () => resolve(buf));
			sock.on('error', reject);
		});
		expect(text.startsWith('HTTP/1.1 200')).toBe(true);
	});
});

describe('control over HTTP (/_control)', () => {
	test('seed, clock, faults, requests, reset', async () => {
		const seed = await h.origin.get('/_control/seed');
		expect(seed.body.result.keys.owner).toBe(KEYS.owner);
		expect(seed.body.result.url).toBe(h.fake.url);
		const before = (await h.origin.get('/_control/clock')).body.result.now;
		const after = (await h.origin.post('/_control/clock/advance', { ms: 86_400_000 })).body.result.now;
		expect(Date.parse(after) - Date.parse(before)).toBeGreaterThanOrEqual(86_400_000);
		const f = await h.origin.post('/_control/faults', { path: '/account', kind: 'error', status: 503, count: 'always' });
		expect(f.body.result.id).toMatch(/^fault_/);
		expect((await h.api.get('/account')).status).toBe(503);
		expect((await h.api.get('/account')).status).toBe(503);
		expect((await h.origin.get('/_control/requests', { query: { path: '/account' } })).body.result).toHaveLength(2);
		await h.origin.delete('/_control/faults');
		expect((await h.api.get('/account')).status).toBe(200);
		await h.origin.delete('/_control/requests');
		expect((await h.origin.get('/_control/requests')).body.result).toHaveLength(0);
		await h.api.delete('/feeds/2');
		await h.origin.post('/_control/reset');
		expect((await h.api.get('/feeds/2')).status).toBe(200);
	});
	test('latency and rate limits over HTTP', async () => {
		await h.origin.post('/_control/rate_limits', { key: KEYS.collaborator, requestsPerHour: 1 });
		expect((await h.api.get('/account', { key: KEYS.collaborator })).status).toBe(200);
		expect((await h.api.get('/account', { key: KEYS.collaborator })).status).toBe(429);
		await h.origin.delete('/_control/rate_limits');
		expect((await h.api.get('/account', { key: KEYS.collaborator })).status).toBe(200);
		await h.origin.post('/_control/latency', { ms: 150 });
		const t0 = Date.now();
		await h.api.get('/account');
		expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
	});
	test('a bad control request is 400 with the envelope', async () => {
		expectError(await h.origin.post('/_control/clock/advance', { ms: 'soon' }), 400, 'bad_control_request');
	});
});
