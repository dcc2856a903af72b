import { DATA_PLATFORMS } from './catalog';
import { KEYS, SEEDED } from './seed';
import { DAY, expectError, useHarness } from './helpers';

const h = useHarness();

const UPGRADE_FIELDS = ['type', 'current_plan', 'current_plan_display_name', 'required_plan', 'required_plan_display_name', 'upgrade_url', 'expires_at'];

function expectUpgradeAction(action: Record<string, unknown>, current: string, required: string) {
	expect(Object.keys(action).sort()).toEqual([...UPGRADE_FIELDS].sort());
	expect(action).toMatchObject({ type: 'upgrade_plan', current_plan: current, required_plan: required });
	for (const f of UPGRADE_FIELDS) expect(typeof action[f]).toBe('string');
	expect(String(action.upgrade_url)).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/web/upgrade\\?plan=${required}&token=\\w+`));
	expect(Number.isNaN(Date.parse(String(action.expires_at)))).toBe(false);
}

describe('GET /platforms', () => {
	test('the 14 Data API platforms with SPEC term types (no connection) plus connection-requiring types', async () => {
		h.fake.control.setShapes('spec'); // requires_connection as SPEC.md's object, or null; the live forms: shapes.test.ts
		const res = await h.api.get('/platforms');
		expect(res.status).toBe(200);
		const byName = new Map<string, any>(res.body.data.map((p: any) => [p.platform, p]));
		const table: Record<string, string[]> = {
			Bluesky: ['username', 'hashtag'],
			Twitter: ['username', 'hashtag', 'mentions'],
			YouTube: ['username', 'channel', 'hashtag'],
			Vimeo: ['username'],
			Facebook: ['username', 'hashtag'],
			Instagram: ['username', 'hashtag'],
			Tumblr: ['username', 'hashtag'],
			Pinterest: ['username', 'hashtag'],
			Flickr: ['username'],
			Giphy: ['username'],
			LinkedIn: ['username', 'hashtag'],
			Reddit: ['channel', 'mentions'],
			TikTok: ['username', 'hashtag', 'mentions'],
			Google: ['reviews'],
		};
		for (const [name, types] of Object.entries(table)) {
			const p = byName.get(name);
			expect(p).toBeDefined();
			expect(typeof p.display_name).toBe('string');
			const free = p.term_types.filter((t: any) => t.requires_connection === null).map((t: any) => t.term_type);
			for (const t of types) expect(free).toContain(t);
			for (const t of p.term_types) expect(typeof t.display_name).toBe('string');
		}
		const needing = res.body.data.flatMap((p: any) => p.term_types.filter((t: any) => t.requires_connection));
		expect(needing.length).toBeGreaterThan(0);
		for (const t of needing) expect(t.requires_connection).toEqual({ provider: expect.any(String), description: expect.any(String) });
		expect(DATA_PLATFORMS).toHaveLength(14);
	});
});

describe('feeds', () => {
	test('create (201), get, update (PATCH), list with include=sources, delete (204)', async () => {
		const created = await h.api.post('/feeds', { name: 'New feed', sync_interval: 30 });
		expect(created.status).toBe(201);
		const feed = created.body.data;
		expect(feed).toMatchObject({ name: 'New feed', sync_interval: 30, posts_count: 0, sources_count: 0 });
		expect(Object.keys(feed).sort()).toEqual([
			'created_at',
			'id',
			'moderation',
			'name',
			'posts_count',
			'slug',
			'sources_count',
			'sync_interval',
			'updated_at',
		]);
		expect(feed.slug).toBe(`new-feed-${feed.id}`);
		const got = await h.api.get(`/feeds/${feed.id}`);
		expect(got.body.data).toEqual(feed);
		const patched = await h.api.patch(`/feeds/${feed.id}`, { name: 'Renamed', sync_interval: null });
		expect(patched.status).toBe(200);
		expect(patched.body.data).toMatchObject({ id: feed.id, name: 'Renamed', sync_interval: null });
		const list = await h.api.get('/feeds', { query: { include: 'sources' } });
		expect(list.body.meta).toEqual({ page: 1, per_page: 20, total_count: 4, total_pages: 1 });
		expect(list.body.data[0].sources).toHaveLength(5);
		expect(list.body.data[0].sources[0]).toMatchObject({ id: SEEDED.sources.twitterAcme, platform: 'Twitter', term: '#acme', term_type: 'hashtag' });
		const plain = await h.api.get('/feeds');
		expect(plain.body.data[0].sources).toBeUndefined();
		const del = await h.api.delete(`/feeds/${feed.id}`);
		expect(del.status).toBe(204);
		expect(del.raw).toBe('');
		expectError(await h.api.get(`/feeds/${feed.id}`), 404, 'not_found');
	});

	test('list paging: page, per_page, past the end, per_page > 100 → 422', async () => {
		const page = await h.api.get('/feeds', { query: { per_page: 2, page: 2 } });
		expect(page.body.meta).toEqual({ page: 2, per_page: 2, total_count: 3, total_pages: 2 });
		expect(page.body.data.map((f: any) => f.id)).toEqual([3]);
		const past = await h.api.get('/feeds', { query: { page: 9 } });
		expect(past.status).toBe(200);
		expect(past.body.data).toEqual([]);
		const err = expectError(await h.api.get('/feeds', { query: { per_page: 101 } }), 422, 'validation_failed');
		expect(err.details.per_page).toEqual([expect.any(String)]);
		expectError(await h.api.get('/feeds', { query: { page: 0 } }), 422, 'validation_failed');
	});

	test('validation: name required, sync_interval in SERVICE-NOTES values', async () => {
		const e1 = expectError(await h.api.post('/feeds', {}), 422, 'validation_failed');
		expect(e1.details.name).toBeDefined();
		const e2 = expectError(await h.api.post('/feeds', { name: 'x', sync_interval: 7 }), 422, 'validation_failed');
		expect(e2.details.sync_interval).toBeDefined();
		for (const v of [1, 5, 10, 30, 60, 240, 1440]) expect((await h.api.post('/feeds', { name: `i${v}`, sync_interval: v })).status).toBe(201);
	});

	test('moderation: PATCH takes every setting under its body name; the record answers them under its own names', async () => {
		const created = await h.api.post('/feeds', { name: 'Moderated', queue: true, profanity: true });
		// POST takes the name and sync interval only; the settings are PATCH's.
		expect(created.body.data.moderation).toEqual({
			enabled: false,
			allowed: '',
			disallowed: '',
			profanity_filter: false,
			prevent_duplicates: false,
			deduplication_strategy: 'prioritize_top_source',
			ai_moderation_available: true,
			ai_moderation: false,
			ai_harmful_content_filter: false,
			ai_moderation_rules: '',
			ai_sentiment_filter: [],
		});
		const id = created.body.data.id;
		const settings = {
			queue: true,
			allowed: 'acme, launch ,',
			disallowed: 'spam,scam',
			profanity: true,
			prevent_duplicates: true,
			deduplication_strategy: 'distribute_across_sources',
			ai_moderation: true,
			ai_harmful_content_filter: true,
			ai_moderation_rules: 'Hide posts about competitors.\nKeep product praise.',
			ai_sentiment_filter: ['negative', 'neutral', 'negative'],
		};
		const patched = await h.api.patch(`/feeds/${id}`, settings);
		expect(patched.status).toBe(200);
		const expected = {
			enabled: true,
			allowed: 'acme,launch',
			disallowed: 'spam,scam',
			profanity_filter: true,
			prevent_duplicates: true,
			deduplication_strategy: 'distribute_across_sources',
			ai_moderation_available: true,
			ai_moderation: true,
			ai_harmful_content_filter: true,
			ai_moderation_rules: 'Hide posts about competitors.\nKeep product praise.',
			ai_sentiment_filter: ['negative', 'neutral'],
		};
		expect(patched.body.data.moderation).toEqual(expected);
		expect((await h.api.get(`/feeds/${id}`)).body.data.moderation).toEqual(expected);
		const listed = (await h.api.get('/feeds')).body.data.find((f: any) => f.id === id);
		expect(listed.moderation).toEqual(expected);
		// A PATCH changes only what it names; null words clear a list.
		const cleared = await h.api.patch(`/feeds/${id}`, { allowed: null, ai_sentiment_filter: [] });
		expect(cleared.body.data.moderation).toEqual({ ...expected, allowed: '', ai_sentiment_filter: [] });
	});

	test('moderation settings of the wrong type: 422 validation_failed with details per field, nothing changed', async () => {
		const feedId = SEEDED.feeds.productLaunch;
		const before = (await h.api.get(`/feeds/${feedId}`)).body.data.moderation;
		const res = await h.api.patch(`/feeds/${feedId}`, {
			queue: 'yes',
			allowed: ['a'],
			profanity: 1,
			deduplication_strategy: 'newest',
			ai_sentiment_filter: ['angry'],
			ai_moderation_rules: 5,
			name: 'Not renamed',
		});
		const err = expectError(res, 422, 'validation_failed');
		expect(Object.keys(err.details).sort()).toEqual(
			['ai_moderation_rules', 'ai_sentiment_filter', 'allowed', 'deduplication_strategy', 'profanity', 'queue'].sort(),
		);
		const after = (await h.api.get(`/feeds/${feedId}`)).body.data;
		expect(after.moderation).toEqual(before);
		expect(after.name).toBe('Product launch');
	});

	test('ai_moderation_not_available: 422 with an upgrade_plan action on a plan without AI moderation; nothing changed', async () => {
		const feedId = SEEDED.feeds.busy;
		const before = (await h.api.get(`/feeds/${feedId}`, { key: KEYS.proOwner })).body.data;
		expect(before.moderation.ai_moderation_available).toBe(false);
		const res = await h.api.patch(`/feeds/${feedId}`, { ai_moderation: true, queue: true }, { key: KEYS.proOwner });
		const err = expectError(res, 422, 'ai_moderation_not_available');
		expectUpgradeAction(err.action, 'pro', 'team');
		expect(err.action.required_plan_display_name).toBe('Team');
		expect(err.message).toContain('Pro');
		expect((await h.api.get(`/feeds/${feedId}`, { key: KEYS.proOwner })).body.data.moderation).toEqual(before.moderation);
		// The settings without AI work on that plan; turning AI off too.
		const other = await h.api.patch(`/feeds/${feedId}`, { queue: true, ai_moderation: false }, { key: KEYS.proOwner });
		expect(other.status).toBe(200);
		expect(other.body.data.moderation).toMatchObject({ enabled: true, ai_moderation: false });
		// The plan decides: after an upgrade (control API) the same request passes.
		h.fake.control.setAccount(SEEDED.accounts.busy, { plan: 'team' });
		const upgraded = await h.api.patch(`/feeds/${feedId}`, { ai_moderation: true }, { key: KEYS.proOwner });
		expect(upgraded.status).toBe(200);
		expect(upgraded.body.data.moderation).toMatchObject({ ai_moderation_available: true, ai_moderation: true });
	});

	test('feed_limit_reached: 422 with every upgrade_plan field', async () => {
		const res = await h.api.post('/feeds', { name: 'Second' }, { key: KEYS.freeOwner });
		const err = expectError(res, 422, 'feed_limit_reached');
		expectUpgradeAction(err.action, 'free', 'pro');
		expect(err.action.current_plan_display_name).toBe('Free');
		expect(err.action.required_plan_display_name).toBe('Pro');
	});

	test('collaborators see only assigned feeds and cannot create or delete feeds', async () => {
		const list = await h.api.get('/feeds', { key: KEYS.collaborator });
		expect(list.body.data.map((f: any) => f.id)).toEqual([SEEDED.feeds.brandMentions]);
		expectError(await h.api.get('/feeds/2', { key: KEYS.collaborator }), 404, 'not_found');
		expectError(await h.api.post('/feeds', { name: 'no' }, { key: KEYS.collaborator }), 403, 'forbidden');
	});

	test("another account's feed is 404", async () => {
		expectError(await h.api.get(`/feeds/${SEEDED.feeds.solo}`), 404, 'not_found');
	});
});

describe('sources', () => {
	test('list (paged), create (201) with auto-detected term type, delete (204)', async () => {
		const list = await h.api.get('/feeds/1/sources');
		expect(list.body.meta).toEqual({ page: 1, per_page: 20, total_count: 5, total_pages: 1 });
		const s = list.body.data[0];
		for (const [f, t] of Object.entries({ id: 'number', platform: 'string', term: 'string', term_type: 'string', name: 'string', options: 'object', syncable: 'boolean', synced_at: 'string', created_at: 'string' })) {
			expect(typeof s[f]).toBe(t);
		}
		const created = await h.api.post('/feeds/2/sources', { platform: 'Tumblr', term: '#launch' });
		expect(created.status).toBe(201);
		expect(created.body.data).toMatchObject({ platform: 'Tumblr', term: '#launch', term_type: 'hashtag', name: '#launch', syncable: true });
		const user = await h.api.post('/feeds/2/sources', { platform: 'Vimeo', term: '@acme', name: 'Acme on Vimeo', options: { lang: 'en' } });
		expect(user.body.data).toMatchObject({ term_type: 'username', name: 'Acme on Vimeo', options: { lang: 'en' } });
		expect((await h.api.delete(`/feeds/2/sources/${created.body.data.id}`)).status).toBe(204);
		expectError(await h.api.delete(`/feeds/2/sources/${created.body.data.id}`), 404, 'not_found');
	});

	test('platform and term_type are validated against GET /platforms', async () => {
		expect(expectError(await h.api.post('/feeds/2/sources', { platform: 'MySpace', term: 'x', term_type: 'username' }), 422, 'validation_failed').details.platform).toBeDefined();
		expect(expectError(await h.api.post('/feeds/2/sources', { platform: 'Vimeo', term: 'x', term_type: 'hashtag' }), 422, 'validation_failed').details.term_type).toBeDefined();
		expect(expectError(await h.api.post('/feeds/2/sources', { platform: 'Reddit', term: 'news' }), 422, 'validation_failed').details.term_type).toBeDefined();
		expect(expectError(await h.api.post('/feeds/2/sources', { platform: 'Vimeo', term_type: 'username' }), 422, 'validation_failed').details.term).toBeDefined();
		expect((await h.api.post('/feeds/2/sources', { platform: 'RSS', term: 'https://x.example/rss', term_type: 'url' })).status).toBe(201);
	});

	test('source_limit_reached: 422 with every upgrade_plan field', async () => {
		const err = expectError(await h.api.post(`/feeds/${SEEDED.feeds.solo}/sources`, { platform: 'Giphy', term: 'solo', term_type: 'username' }, { key: KEYS.freeOwner }), 422, 'source_limit_reached');
		expectUpgradeAction(err.action, 'free', 'pro');
	});

	test('social_account_required with a connection action; opening the link connects; then the source is created', async () => {
		const body = { platform: 'LinkedIn', term: 'acme-corp', term_type: 'company' };
		const err = expectError(await h.api.post('/feeds/2/sources', body), 422, 'social_account_required');
		expect(err.action).toEqual({ type: 'connect_social_account', provider: 'linkedin', connection_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/web\/connect\/\w+$/), expires_at: expect.any(String) });
		const opened = await h.origin.get(new URL(err.action.connection_url).pathname);
		expect(opened.status).toBe(200);
		const ok = await h.api.post('/feeds/2/sources', body);
		expect(ok.status).toBe(201);
		expect(ok.body.data.syncable).toBe(true);
	});

	test('a connected provider allows the connection term type (seeded facebook)', async () => {
		expect((await h.api.post('/feeds/2/sources', { platform: 'Facebook', term: 'AcmeLaunch', term_type: 'page' })).status).toBe(201);
	});

	test('disconnecting the account makes its sources unsyncable', async () => {
		expect((await h.api.delete(`/social_accounts/${SEEDED.socialAccounts.acmeFacebook}`)).status).toBe(204);
		const list = await h.api.get('/feeds/1/sources');
		const fb = list.body.data.find((s: any) => s.id === SEEDED.sources.facebookPage);
		expect(fb.syncable).toBe(false);
		expect(typeof fb.unsyncable_reason).toBe('string');
	});
});

describe('embed', () => {
	test('GET /feeds/{id}/embed: five strings', async () => {
		const res = await h.api.get('/feeds/1/embed');
		expect(res.status).toBe(200);
		const d = res.body.data;
		expect(Object.keys(d).sort()).toEqual(['feed_url', 'iframe', 'javascript', 'wordpress_php', 'wordpress_shortcode']);
		expect(d.javascript).toMatch(/^<script .*<\/script>$/);
		expect(d.iframe).toContain(d.feed_url);
		expect(d.wordpress_php).toContain(d.wordpress_shortcode);
		expect((await h.origin.get(new URL(d.feed_url).pathname)).status).toBe(200);
	});
});

describe('analytics', () => {
	test('default range: last 30 days on the fake clock; numbers computed from the posts in it', async () => {
		const res = await h.api.get('/feeds/2/analytics');
		expect(res.status).toBe(200);
		const a = res.body.data;
		const today = h.fake.control.clock.now().toISOString().slice(0, 10);
		const start = new Date(Date.parse(`${today}T00:00:00Z`) - 30 * DAY).toISOString().slice(0, 10);
		expect(a.period).toEqual({ start, end: today });
		// Recompute from the feed's public posts in the range.
		const posts: any[] = [];
		for (let page = 1; ; page++) {
			const r = await h.api.get('/feeds/2/posts', { query: { per_page: 100, page, status: 'public', starting_at: `${start}T00:00:00Z`, ending_at: `${today}T23:59:59.999Z` } });
			posts.push(...r.body.data);
			if (page >= r.body.meta.total_pages) break;
		}
		expect(posts.length).toBeGreaterThan(0);
		expect(posts.length).toBeLessThan(60);
		const likes = posts.reduce((s, p) => s + p.like_count, 0);
		const comments = posts.reduce((s, p) => s + p.comment_count, 0);
		expect(a.summary).toMatchObject({ total_posts: posts.length, total_likes: likes, total_comments: comments, total_engagement: likes + comments + posts.reduce((s, p) => s + p.share_count, 0) });
		expect(a.summary.page_views).toBeGreaterThan(0);
		expect(Number.isInteger(a.summary.clicks)).toBe(true);
		expect(a.sources).toHaveLength(4);
		expect(a.sources.reduce((s: number, x: any) => s + x.posts_count, 0)).toBe(posts.length);
		for (const s of a.sources) expect(Object.keys(s).sort()).toEqual(['id', 'platform', 'posts_count', 'term', 'total_comments', 'total_likes']);
		expect(a.top_posts.length).toBeGreaterThan(0);
		const eng = (p: any) => p.like_count + p.comment_count + p.share_count;
		const best = Math.max(...posts.map(eng));
		expect(eng(a.top_posts[0])).toBe(best);
	});

	test('explicit start/end; a range with no posts; validation', async () => {
		const none = await h.api.get('/feeds/2/analytics', { query: { start: '2020-01-01', end: '2020-01-31' } });
		expect(none.body.data.period).toEqual({ start: '2020-01-01', end: '2020-01-31' });
		expect(none.body.data.summary).toMatchObject({ total_posts: 0, total_likes: 0, total_comments: 0, total_engagement: 0 });
		expect(none.body.data.top_posts).toEqual([]);
		const wide = await h.api.get('/feeds/2/analytics', { query: { start: '2025-01-01', end: '2025-06-30' } });
		expect(wide.body.data.summary.total_posts).toBe(60);
		expectError(await h.api.get('/feeds/2/analytics', { query: { start: 'yesterday' } }), 422, 'validation_failed');
		expectError(await h.api.get('/feeds/2/analytics', { query: { start: '2025-05-02', end: '2025-05-01' } }), 422, 'validation_failed');
	});

	test('moving the clock moves the default window', async () => {
		const before = (await h.api.get('/feeds/2/analytics')).body.data.summary.total_posts;
		h.fake.control.clock.advance(20 * DAY);
		const after = (await h.api.get('/feeds/2/analytics')).body.data.summary.total_posts;
		expect(after).toBeLessThan(before);
	});
});
