import { KEYS, SEEDED } from './seed';
import { expectError, HOUR, MINUTE, useHarness } from './helpers';

const h = useHarness();

const authorize = (body: unknown) => h.api.post('/authorize', body, { key: null });
const poll = (id: string) => h.api.get(`/authorize/${id}`, { key: null });

describe('POST /authorize Mode A (new or unconfirmed email)', () => {
	test('201 issued: key valid 2 hours, 60/h, email confirmation required', async () => {
		const now = h.fake.control.clock.now().getTime();
		const res = await authorize({ email: 'new.person@example.com', client_name: 'n8n' });
		expect(res.status).toBe(201);
		const b = res.body;
		expect(Object.keys(b).sort()).toEqual(['api_key', 'email_confirmation_required', 'expires_at', 'rate_limit', 'status', 'upgrade_hint', 'upgrade_url'].sort());
		expect(b).toMatchObject({ status: 'issued', email_confirmation_required: true, rate_limit: { requests_per_hour: 60, burst_per_minute: null } });
		expect(b.api_key).toMatch(/^sag_live_[0-9a-f]{32}$/);
		expect(Math.abs(Date.parse(b.expires_at) - (now + 2 * HOUR))).toBeLessThan(5000);
		expect(typeof b.upgrade_hint).toBe('string');
		expect(typeof b.upgrade_url).toBe('string');
		const acct = await h.api.get('/account', { key: b.api_key });
		expect(acct.body.data).toMatchObject({ email: 'new.person@example.com', plan: 'free', role: 'owner', email_confirmed: false });
		expect(h.fake.control.emails().some((e) => e.to === 'new.person@example.com' && e.kind === 'confirmation')).toBe(true);
	});

	test('an unconfirmed email gets another key in Mode A; issuing never revokes existing keys', async () => {
		const res = await authorize({ email: SEEDED.emails.unconfirmedOwner, client_name: 'n8n' });
		expect(res.status).toBe(201);
		expect(res.body.api_key).not.toBe(KEYS.unconfirmed);
		expect((await h.api.get('/account', { key: KEYS.unconfirmed })).status).toBe(200);
		expect((await h.api.get('/account', { key: res.body.api_key })).status).toBe(200);
	});

	test('validation: email format and client_name required', async () => {
		expect(expectError(await authorize({ email: 'nope', client_name: 'x' }), 422, 'validation_failed').details.email).toBeDefined();
		expect(expectError(await authorize({ email: 'a@b.example' }), 422, 'validation_failed').details.client_name).toBeDefined();
	});
});

describe('Temporary key lifetime (SPEC table)', () => {
	test('issued, unconfirmed: valid 2 hours, then 401', async () => {
		const { api_key } = (await authorize({ email: 'two.hours@example.com', client_name: 'n8n' })).body;
		h.fake.control.clock.advance(2 * HOUR - MINUTE);
		expect((await h.api.get('/account', { key: api_key })).status).toBe(200);
		h.fake.control.clock.advance(2 * MINUTE);
		expectError(await h.api.get('/account', { key: api_key }), 401, 'unauthorized');
	});

	test('issued, unconfirmed: 60 requests/hour', async () => {
		h.fake.control.setShapes('spec'); // the 429 says when the hour ends (Retry-After)
		const { api_key } = (await authorize({ email: 'sixty@example.com', client_name: 'n8n' })).body;
		for (let i = 0; i < 60; i++) expect((await h.api.get('/platforms', { key: api_key })).status).toBe(200);
		const res = await h.api.get('/platforms', { key: api_key });
		expectError(res, 429, 'rate_limit_exceeded');
		expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(60);
	});

	test('user confirms the email: valid 12 hours in total, 300/hour with 60/minute burst; still temporary', async () => {
		const { api_key } = (await authorize({ email: 'confirm.me@example.com', client_name: 'n8n' })).body;
		h.fake.control.clock.advance(HOUR);
		const r = h.fake.control.confirmEmail('confirm.me@example.com');
		expect(r.keysExtended).toBe(1);
		const acct = await h.api.get('/account', { key: api_key });
		expect(acct.body.data.api_key.type).toBe('temporary');
		const issued = Date.parse(acct.body.data.api_key.expires_at) - 12 * HOUR;
		h.fake.control.clock.advance(2 * HOUR); // 3 h after issuance: past the old 2-hour limit
		expect((await h.api.get('/account', { key: api_key })).status).toBe(200);
		// 60/minute burst now applies (and the 60/hour tier no longer does), in a fresh minute.
		h.fake.control.clock.advance(61_000);
		let ok = 0;
		for (let i = 0; i < 70; i++) if ((await h.api.get('/platforms', { key: api_key })).status === 200) ok++;
		expect(ok).toBe(60);
		h.fake.control.clock.advance(61_000);
		expect((await h.api.get('/platforms', { key: api_key })).status).toBe(200);
		h.fake.control.clock.set(issued + 12 * HOUR + 1000);
		expectError(await h.api.get('/account', { key: api_key }), 401, 'unauthorized');
	});

	test('300/hour after confirmation', async () => {
		const { api_key } = (await authorize({ email: 'hourly@example.com', client_name: 'n8n' })).body;
		h.fake.control.confirmEmail('hourly@example.com');
		h.fake.control.rateLimits.set(api_key, { burstPerMinute: null });
		for (let i = 0; i < 300; i++) {
			const r = await h.api.get('/platforms', { key: api_key });
			if (r.status !== 200) throw new Error(`request ${i + 1}: ${r.status}`);
		}
		expect((await h.api.get('/platforms', { key: api_key })).status).toBe(429);
	});

	test('confirming after the 2 hours does not revive an expired key', async () => {
		const { api_key } = (await authorize({ email: 'late@example.com', client_name: 'n8n' })).body;
		h.fake.control.clock.advance(2 * HOUR + MINUTE);
		h.fake.control.confirmEmail('late@example.com');
		expect((await h.api.get('/account', { key: api_key })).status).toBe(401);
	});
});

describe('Device authorization (Mode B, SPEC table)', () => {
	async function request(): Promise<any> {
		const res = await authorize({ email: SEEDED.emails.acmeOwner, client_name: 'n8n' });
		expect(res.status).toBe(202);
		return res.body;
	}

	test('(none) → POST /authorize for a confirmed account → pending_authorization with authorization_url and poll_url', async () => {
		const now = h.fake.control.clock.now().getTime();
		const b = await request();
		expect(Object.keys(b).sort()).toEqual(['authorization_url', 'expires_at', 'poll_interval', 'poll_url', 'rate_limit', 'request_id', 'status', 'upgrade_hint', 'upgrade_url'].sort());
		expect(b).toMatchObject({ status: 'pending_authorization', poll_interval: 2, poll_url: `${h.fake.url}/authorize/${b.request_id}` });
		expect(b.authorization_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/web\/authorize\//);
		expect(Math.abs(Date.parse(b.expires_at) - (now + 10 * MINUTE))).toBeLessThan(5000);
		expect(b.rate_limit).toEqual({ requests_per_hour: expect.any(Number), burst_per_minute: expect.any(Number) });
	});

	test('pending → poll while not approved → 202 pending', async () => {
		const b = await request();
		const res = await poll(b.request_id);
		expect(res.status).toBe(202);
		expect(res.body.status).toBe('pending');
	});

	test('pending → poll after approval → 200 with a 12-hour key, delivered once; then 410', async () => {
		const b = await request();
		h.fake.control.approveDevice(b.request_id);
		const now = h.fake.control.clock.now().getTime();
		const res = await poll(b.request_id);
		expect(res.status).toBe(200);
		expect(Object.keys(res.body).sort()).toEqual(['api_key', 'expires_at', 'key_preview', 'rate_limit', 'status', 'upgrade_hint', 'upgrade_url'].sort());
		expect(res.body.status).toBe('issued');
		expect(Math.abs(Date.parse(res.body.expires_at) - (now + 12 * HOUR))).toBeLessThan(5000);
		expect(res.body.key_preview.startsWith(res.body.api_key.slice(0, 13))).toBe(true);
		expect(res.body.key_preview).not.toBe(res.body.api_key);
		expect((await h.api.get('/account', { key: res.body.api_key })).body.data.role).toBe('owner');
		expectError(await poll(b.request_id), 410, 'authorization_gone');
		// Issuing never revokes other keys.
		expect((await h.api.get('/account', { key: KEYS.owner })).status).toBe(200);
		h.fake.control.clock.advance(12 * HOUR + MINUTE);
		expect((await h.api.get('/account', { key: res.body.api_key })).status).toBe(401);
	});

	test('opening authorization_url approves; ?decision=deny denies → 410', async () => {
		const a = await request();
		expect((await h.origin.get(new URL(a.authorization_url).pathname)).status).toBe(200);
		expect((await poll(a.request_id)).status).toBe(200);
		const d = await request();
		expect((await h.origin.get(new URL(d.authorization_url).pathname, { query: { decision: 'deny' } })).status).toBe(200);
		expectError(await poll(d.request_id), 410, 'authorization_gone');
	});

	test('denied (control) → 410', async () => {
		const b = await request();
		h.fake.control.denyDevice(b.request_id);
		expectError(await poll(b.request_id), 410, 'authorization_gone');
	});

	test('expired while pending → 410; approved but not collected before expiry → 410', async () => {
		const a = await request();
		h.fake.control.clock.advance(10 * MINUTE + 1000);
		expectError(await poll(a.request_id), 410, 'authorization_gone');
		const b = await request();
		h.fake.control.approveDevice(b.request_id);
		h.fake.control.clock.advance(11 * MINUTE);
		expectError(await poll(b.request_id), 410, 'authorization_gone');
	});

	test('control over HTTP: list, approve', async () => {
		const b = await request();
		const list = await h.origin.get('/_control/device_requests');
		expect(list.body.result.map((r: any) => r.id)).toContain(b.request_id);
		await h.origin.post(`/_control/device_requests/${b.request_id}/approve`);
		expect((await poll(b.request_id)).status).toBe(200);
	});

	test('unknown request id → 404', async () => {
		expectError(await poll('ar_nope'), 404, 'not_found');
	});
});
