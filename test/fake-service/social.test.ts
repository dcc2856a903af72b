import { KEYS, SEEDED } from './seed';
import { DAY, expectError, MINUTE, useHarness } from './helpers';

const h = useHarness();

describe('social accounts', () => {
	test('GET /social_accounts/status: one entry per provider', async () => {
		const res = await h.api.get('/social_accounts/status');
		expect(res.status).toBe(200);
		for (const e of res.body.data) expect(Object.keys(e).sort()).toEqual(['allows_multiple', 'connected', 'platform', 'provider']);
		const by = Object.fromEntries(res.body.data.map((e: any) => [e.provider, e]));
		expect(by.facebook).toMatchObject({ platform: 'Facebook', connected: true, allows_multiple: true });
		expect(by.instagram.connected).toBe(true);
		expect(by.linkedin.connected).toBe(false);
		const solo = await h.api.get('/social_accounts/status', { key: KEYS.freeOwner });
		expect(solo.body.data.every((e: any) => e.connected === false)).toBe(true);
	});

	test('GET /social_accounts (paged) with CONTRIBUTING fields', async () => {
		const res = await h.api.get('/social_accounts');
		expect(res.body.meta).toEqual({ page: 1, per_page: 20, total_count: 2, total_pages: 1 });
		expect(Object.keys(res.body.data[0]).sort()).toEqual(['connected_at', 'expires_at', 'id', 'name', 'platform', 'provider', 'username']);
	});

	test('POST /social_accounts/connect_url: 201, valid 30 minutes, single use; opening connects', async () => {
		const now = h.fake.control.clock.now().getTime();
		const res = await h.api.post('/social_accounts/connect_url', { provider: 'linkedin' });
		expect(res.status).toBe(201);
		expect(res.body.data).toMatchObject({ provider: 'linkedin', url: expect.stringMatching(/\/web\/connect\/\w+$/) });
		expect(Math.abs(Date.parse(res.body.data.expires_at) - (now + 30 * MINUTE))).toBeLessThan(5000);
		const path = new URL(res.body.data.url).pathname;
		expect((await h.origin.get(path)).status).toBe(200);
		expectError(await h.origin.get(path), 410, 'link_used');
		const status = await h.api.get('/social_accounts/status');
		expect(status.body.data.find((e: any) => e.provider === 'linkedin').connected).toBe(true);
		expect((await h.api.get('/social_accounts')).body.meta.total_count).toBe(3);
	});

	test('a link older than 30 minutes is refused', async () => {
		const res = await h.api.post('/social_accounts/connect_url', { provider: 'threads' });
		h.fake.control.clock.advance(31 * MINUTE);
		expectError(await h.origin.get(new URL(res.body.data.url).pathname), 410, 'link_expired');
		expect(() => h.fake.control.openConnectionLink(res.body.data.url)).toThrow();
	});

	test('connect_url validates provider', async () => {
		expectError(await h.api.post('/social_accounts/connect_url', {}), 422, 'validation_failed');
		expectError(await h.api.post('/social_accounts/connect_url', { provider: 'myspace' }), 422, 'validation_failed');
	});

	test('DELETE /social_accounts/{id}: 204, then disconnected; 404 for unknown or foreign', async () => {
		expect((await h.api.delete(`/social_accounts/${SEEDED.socialAccounts.acmeFacebook}`)).status).toBe(204);
		const status = await h.api.get('/social_accounts/status');
		expect(status.body.data.find((e: any) => e.provider === 'facebook').connected).toBe(false);
		expectError(await h.api.delete(`/social_accounts/${SEEDED.socialAccounts.acmeFacebook}`), 404, 'not_found');
		expectError(await h.api.delete(`/social_accounts/${SEEDED.socialAccounts.agencyFacebook}`), 404, 'not_found');
	});

	test('an account past its expiry no longer counts as connected', async () => {
		h.fake.control.clock.advance(4 * DAY);
		const status = await h.api.get('/social_accounts/status');
		expect(status.body.data.find((e: any) => e.provider === 'instagram').connected).toBe(false);
	});
});
