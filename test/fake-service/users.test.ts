import { KEYS, SEEDED } from './seed';
import { expectError, MINUTE, useHarness } from './helpers';

const h = useHarness();

const U = SEEDED.users;
const invite = (body: unknown, key: string = KEYS.owner) => h.api.post('/users', body, { key });
const emailsTo = (to: string) => h.fake.control.emails().filter((e) => e.to === to);

describe('POST /users', () => {
	// SPEC.md's User, role included; the live invite answer has none (shapes.test.ts).
	beforeEach(() => h.fake.control.setShapes('spec'));

	test('User shape; 201', async () => {
		const res = await invite({ email: 'new.collab@example.com', role: 'collaborator', feed_ids: [1] });
		expect(res.status).toBe(201);
		expect(Object.keys(res.body.data).sort()).toEqual(['created_at', 'email', 'feed_ids', 'id', 'invitation_accepted', 'invitation_pending', 'role'].sort());
	});

	test.each([
		['freeOwner', 'free'],
		['proOwner', 'pro'],
	] as const)('rule 1: %s (plan %s) → 422 user_limit_reached with an upgrade_plan magic link', async (key, plan) => {
		const err = expectError(await invite({ email: 'x@example.com', role: 'collaborator' }, KEYS[key]), 422, 'user_limit_reached');
		expect(err.action).toMatchObject({ type: 'upgrade_plan', current_plan: plan, required_plan: 'team', required_plan_display_name: 'Team', current_plan_display_name: expect.any(String), expires_at: expect.any(String) });
		expect(err.action.upgrade_url).toContain('/web/upgrade?plan=team');
	});

	test('rule 1: Team and Enterprise plans may invite', async () => {
		expect((await invite({ email: 'a@example.com', role: 'collaborator' })).status).toBe(201);
		expect((await invite({ email: 'b@example.com', role: 'collaborator' }, KEYS.enterpriseOwner)).status).toBe(201);
	});

	test('rule 2: a manager gets an admin invitation; feed_ids ignored; all feeds once accepted', async () => {
		const res = await invite({ email: 'new.manager@example.com', role: 'manager', feed_ids: [1] });
		expect(res.status).toBe(201);
		expect(res.body.data).toMatchObject({ role: 'manager', invitation_pending: true, invitation_accepted: false, feed_ids: [] });
		expect(emailsTo('new.manager@example.com').map((e) => e.kind)).toEqual(['admin_invitation']);
		const accepted = h.fake.control.acceptInvitation(res.body.data.id);
		expect(accepted).toMatchObject({ invitation_pending: false, invitation_accepted: true, feed_ids: [1, 2, 3] });
	});

	test.each([
		[SEEDED.emails.busyOwner, 'a paid plan'],
		[SEEDED.emails.soloOwner, 'free plan with feeds'],
		[SEEDED.emails.agencyCollaborator, 'an existing enterprise account'],
	])('rule 2: %s (%s) cannot be invited as manager → 422', async (email, _why) => {
		expect(typeof _why).toBe('string');
		const err = expectError(await invite({ email, role: 'manager' }), 422, 'validation_failed');
		expect(err.details.email).toEqual([expect.any(String)]);
	});

	test('rule 2: an existing user on the free plan with no feeds can be invited as manager', async () => {
		expect((await invite({ email: SEEDED.emails.freeNoFeedsOwner, role: 'manager' })).status).toBe(201);
	});

	test("rule 3: collaborator with feed_ids: assigned; 'new feed' email for existing users, invitation for new ones", async () => {
		const existing = await invite({ email: SEEDED.emails.freeNoFeedsOwner, role: 'collaborator', feed_ids: [2, 1] });
		expect(existing.body.data).toMatchObject({ role: 'collaborator', feed_ids: [1, 2] });
		expect(emailsTo(SEEDED.emails.freeNoFeedsOwner).map((e) => e.kind)).toEqual(['new_feed']);
		const fresh = await invite({ email: 'fresh@example.com', role: 'collaborator', feed_ids: [3] });
		expect(fresh.body.data).toMatchObject({ feed_ids: [3], invitation_pending: true, invitation_accepted: false });
		expect(emailsTo('fresh@example.com').map((e) => e.kind)).toEqual(['invitation']);
	});

	test('rule 3: every feed id must belong to the account', async () => {
		const err = expectError(await invite({ email: 'c@example.com', role: 'collaborator', feed_ids: [1, SEEDED.feeds.solo] }), 422, 'validation_failed');
		expect(err.details.feed_ids[0]).toContain(String(SEEDED.feeds.solo));
		expect(h.fake.control.users(1).some((u) => u.email === 'c@example.com')).toBe(false);
	});

	test.each([[undefined], [[]]])('rule 4: collaborator with feed_ids %p → no assignments; PUT /users/{id}/feeds/{feed_id} attaches later', async (feedIds) => {
		const res = await invite({ email: 'later@example.com', role: 'collaborator', ...(feedIds ? { feed_ids: feedIds } : {}) });
		expect(res.body.data.feed_ids).toEqual([]);
		const put = await h.api.put(`/users/${res.body.data.id}/feeds/2`);
		expect(put.status).toBe(200);
		expect(put.body.data).toMatchObject({ id: res.body.data.id, feed_ids: [2] });
		expect((await h.api.put(`/users/${res.body.data.id}/feeds/2`)).body.data.feed_ids).toEqual([2]);
		expectError(await h.api.put(`/users/${res.body.data.id}/feeds/${SEEDED.feeds.solo}`), 404, 'not_found');
		expectError(await h.api.put(`/users/${U.acmeManager}/feeds/2`), 422, 'validation_failed');
		expectError(await h.api.put(`/users/99999/feeds/2`), 404, 'not_found');
	});

	test('rule 5: skip_invitation_email suppresses the invitation and the new-feed notification', async () => {
		await invite({ email: 'quiet@example.com', role: 'collaborator', feed_ids: [1], skip_invitation_email: true });
		await invite({ email: SEEDED.emails.freeNoFeedsOwner, role: 'collaborator', feed_ids: [1], skip_invitation_email: true });
		await invite({ email: 'quiet.manager@example.com', role: 'manager', skip_invitation_email: true });
		expect(emailsTo('quiet@example.com')).toEqual([]);
		expect(emailsTo(SEEDED.emails.freeNoFeedsOwner)).toEqual([]);
		expect(emailsTo('quiet.manager@example.com')).toEqual([]);
	});

	test('owner or manager key required; validation; already a member', async () => {
		expectError(await invite({ email: 'z@example.com', role: 'collaborator' }, KEYS.collaborator), 403, 'forbidden');
		expect((await invite({ email: 'm@example.com', role: 'collaborator' }, KEYS.manager)).status).toBe(201);
		expect(expectError(await invite({ email: 'nope', role: 'collaborator' }), 422, 'validation_failed').details.email).toBeDefined();
		expect(expectError(await invite({ email: 'r@example.com', role: 'owner' }), 422, 'validation_failed').details.role).toBeDefined();
		expectError(await invite({ email: SEEDED.emails.acmeCollaborator, role: 'collaborator' }), 422, 'validation_failed');
	});
});

describe('DELETE /users/{id}', () => {
	test('a pending admin invitation is cleared', async () => {
		expect((await h.api.delete(`/users/${U.acmePendingManager}`)).status).toBe(204);
		const all = h.fake.control.users();
		expect(all.some((u) => u.email === SEEDED.emails.acmePendingManager)).toBe(false);
	});

	test('otherwise the user is downgraded to a personal free plan and loses all assignments', async () => {
		const res = await h.api.delete(`/users/${U.acmeCollaborator}`);
		expect(res.status).toBe(204);
		expectError(await h.api.delete(`/users/${U.acmeCollaborator}`), 404, 'not_found');
		const memberships = h.fake.control.users().filter((u) => u.email === SEEDED.emails.acmeCollaborator);
		expect(memberships).toHaveLength(1);
		expect(memberships[0]).toMatchObject({ role: 'owner', account_id: expect.any(Number) });
		expect(memberships[0].account_id).not.toBe(1);
		expectError(await h.api.get('/account', { key: KEYS.collaborator }), 401, 'unauthorized');
	});

	test('the account owner cannot be deleted; a caller cannot delete themselves', async () => {
		expectError(await h.api.delete(`/users/${U.acmeOwner}`, { key: KEYS.manager }), 422, 'validation_failed');
		expectError(await h.api.delete(`/users/${U.acmeManager}`, { key: KEYS.manager }), 422, 'validation_failed');
		expect((await h.api.delete(`/users/${U.acmeManager}`)).status).toBe(204);
	});

	test('404 for a user of another account', async () => {
		expectError(await h.api.delete(`/users/${U.agencyCollaborator}`), 404, 'not_found');
	});
});

describe('POST /users/{id}/sign_in_token (SPEC table)', () => {
	const mint = (userId: number, body?: unknown, key: string = KEYS.owner) => h.api.post(`/users/${userId}/sign_in_token`, body, { key });

	test('none unconsumed → new token with a 30-minute window; URL on the service host', async () => {
		const now = h.fake.control.clock.now().getTime();
		const res = await mint(U.acmeCollaborator);
		expect(res.status).toBe(201);
		expect(Object.keys(res.body.data).sort()).toEqual(['expires_at', 'sign_in_token', 'sign_in_url']);
		expect(Math.abs(Date.parse(res.body.data.expires_at) - (now + 30 * MINUTE))).toBeLessThan(5000);
		expect(res.body.data.sign_in_url).toBe(`${h.fake.origin}/web/sign_in/${res.body.data.sign_in_token}`);
	});

	test('unconsumed and valid → the same token, expires_at unchanged', async () => {
		const a = (await mint(U.acmeCollaborator)).body.data;
		h.fake.control.clock.advance(10 * MINUTE);
		const b = (await mint(U.acmeCollaborator)).body.data;
		expect(b).toEqual(a);
	});

	test('unconsumed but expired → the same token, fresh 30-minute window', async () => {
		const a = (await mint(U.acmeCollaborator)).body.data;
		h.fake.control.clock.advance(31 * MINUTE);
		const now = h.fake.control.clock.now().getTime();
		const b = (await mint(U.acmeCollaborator)).body.data;
		expect(b.sign_in_token).toBe(a.sign_in_token);
		expect(Date.parse(b.expires_at)).toBeGreaterThan(Date.parse(a.expires_at));
		expect(Math.abs(Date.parse(b.expires_at) - (now + 30 * MINUTE))).toBeLessThan(5000);
	});

	test('consumed → a new token is minted; opening the URL signs in once', async () => {
		const a = (await mint(U.acmeCollaborator)).body.data;
		const open = await h.origin.get(new URL(a.sign_in_url).pathname);
		expect(open.status).toBe(200);
		expect(open.raw).toContain(SEEDED.emails.acmeCollaborator);
		expectError(await h.origin.get(new URL(a.sign_in_url).pathname), 410, 'token_used');
		const b = (await mint(U.acmeCollaborator)).body.data;
		expect(b.sign_in_token).not.toBe(a.sign_in_token);
		h.fake.control.consumeSignInToken(b.sign_in_url);
		const c = (await mint(U.acmeCollaborator)).body.data;
		expect(c.sign_in_token).not.toBe(b.sign_in_token);
	});

	test('an expired link cannot be opened', async () => {
		const a = (await mint(U.acmeCollaborator)).body.data;
		h.fake.control.clock.advance(31 * MINUTE);
		expectError(await h.origin.get(new URL(a.sign_in_url).pathname), 410, 'token_expired');
	});

	test('the dashboard home and each feed are separate destinations', async () => {
		const home = (await mint(U.acmeCollaborator)).body.data;
		const feed = (await mint(U.acmeCollaborator, { feed_id: 1 })).body.data;
		expect(feed.sign_in_token).not.toBe(home.sign_in_token);
		expect((await mint(U.acmeCollaborator, { feed_id: 1 })).body.data.sign_in_token).toBe(feed.sign_in_token);
		expect((await h.origin.get(new URL(feed.sign_in_url).pathname)).raw).toContain('Feed 1');
	});

	test('feed_id not assigned to the collaborator → 404', async () => {
		expectError(await mint(U.acmeCollaborator, { feed_id: 2 }), 404, 'not_found');
		expectError(await mint(U.acmeCollaborator, { feed_id: SEEDED.feeds.solo }), 404, 'not_found');
	});

	test('owner or manager target → 422', async () => {
		expectError(await mint(U.acmeOwner), 422, 'validation_failed');
		expectError(await mint(U.acmeManager), 422, 'validation_failed');
	});

	test('sign-in tokens not enabled → 403; collaborator key → 403; other account → 404', async () => {
		expectError(await mint(U.soloOwner, undefined, KEYS.freeOwner), 403, 'sign_in_tokens_disabled');
		expectError(await mint(U.acmeCollaboratorNoFeeds, undefined, KEYS.collaborator), 403, 'forbidden');
		expectError(await mint(U.agencyCollaborator), 404, 'not_found');
		h.fake.control.setAccount(1, { signInTokensEnabled: false });
		expectError(await mint(U.acmeCollaborator), 403, 'sign_in_tokens_disabled');
	});

	test('a manager key may mint', async () => {
		expect((await mint(U.acmeCollaborator, undefined, KEYS.manager)).status).toBe(201);
	});

	test('white-label host', async () => {
		const res = await mint(U.agencyCollaborator, undefined, KEYS.enterpriseOwner);
		expect(res.body.data.sign_in_url).toBe(`https://social.agency.example/sign_in/${res.body.data.sign_in_token}`);
		expect(h.fake.control.consumeSignInToken(res.body.data.sign_in_url)).toEqual({ userId: U.agencyCollaborator, feedId: null });
	});

	test('the token never appears in the request log', async () => {
		const res = await mint(U.acmeCollaborator);
		expect(JSON.stringify(h.fake.control.requests.list())).not.toContain(res.body.data.sign_in_token);
	});
});
