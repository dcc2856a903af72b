import { KEYS } from './seed';
import { expectError, useHarness } from './helpers';

const h = useHarness();

type Q = Record<string, string | undefined>;
const posts = (query: Q, key?: string) => h.api.get('/data/posts', { query, key });
const entry = (res: any, platform: string) => res.body.meta.platforms.find((p: any) => p.platform === platform);

const VALID: Record<string, { term: string; term_type: string }> = {
	Bluesky: { term: 'acme.bsky.social', term_type: 'username' },
	Twitter: { term: '#acme', term_type: 'hashtag' },
	YouTube: { term: 'AcmeTV', term_type: 'channel' },
	Vimeo: { term: 'acme', term_type: 'username' },
	Facebook: { term: 'acme', term_type: 'username' },
	Instagram: { term: '#acme', term_type: 'hashtag' },
	Tumblr: { term: '#acme', term_type: 'hashtag' },
	Pinterest: { term: '#acme', term_type: 'hashtag' },
	Flickr: { term: 'acme', term_type: 'username' },
	Giphy: { term: 'acme', term_type: 'username' },
	LinkedIn: { term: 'acme', term_type: 'username' },
	Reddit: { term: 'news', term_type: 'channel' },
	TikTok: { term: '#acme', term_type: 'hashtag' },
	Google: { term: 'ChIJacmeCoffeeBerlin01', term_type: 'reviews' },
};

const ENGAGEMENT: Record<string, string[]> = {
	like_count: ['Bluesky', 'Twitter', 'YouTube', 'Vimeo', 'Facebook', 'Instagram', 'Tumblr', 'Pinterest', 'Flickr', 'Giphy', 'LinkedIn', 'Reddit', 'TikTok'],
	comment_count: ['Bluesky', 'Twitter', 'YouTube', 'Vimeo', 'Facebook', 'Instagram', 'Tumblr', 'Pinterest', 'Flickr', 'Giphy', 'LinkedIn', 'Reddit', 'TikTok'],
	share_count: ['Facebook', 'TikTok', 'Twitter', 'Bluesky'],
	view_count: ['YouTube', 'TikTok'],
	quote_count: ['Twitter', 'Bluesky'],
	bookmark_count: ['Twitter'],
	impression_count: ['Twitter'],
};

describe('GET /data/posts: shape and field rules', () => {
	test.each(Object.keys(VALID))('%s: fields, engagement present or omitted per SPEC', async (platform) => {
		const res = await posts({ ...VALID[platform], platforms: platform });
		expect(res.status).toBe(200);
		const e = entry(res, platform);
		expect(e).toMatchObject({ platform, success: true });
		expect(e.count).toBe(res.body.data.length);
		expect(res.body.meta.total_results).toBe(res.body.data.length);
		expect(res.body.data.length).toBeGreaterThanOrEqual(20);
		expect(res.body.data.length).toBeLessThanOrEqual(25);
		for (const p of res.body.data) {
			expect(p.platform).toBe(platform);
			for (const f of ['platform_id', 'url', 'message']) expect(p[f] === null || typeof p[f] === 'string').toBe(true);
			expect(Number.isNaN(Date.parse(p.post_created_at))).toBe(false);
			expect(typeof p.tagged_users).toBe('string');
			expect(Object.keys(p.poster).sort()).toEqual(['display_name', 'image', 'name', 'platform_id', 'url']);
			expect(Array.isArray(p.media)).toBe(true);
			expect(p.referenced_post === null || typeof p.referenced_post === 'object').toBe(true);
			expect(p.reshared_by === null || typeof p.reshared_by === 'object').toBe(true);
			for (const [field, platforms] of Object.entries(ENGAGEMENT)) {
				if (platforms.includes(platform)) expect([field, Number.isInteger(p[field])]).toEqual([field, true]);
				else expect([field, field in p]).toEqual([field, false]);
			}
			for (const m of p.media) {
				expect(Object.keys(m).sort()).toEqual(['alt_text', 'height', 'platform_id', 'preview_image_url', 'type', 'url', 'width']);
			}
		}
	});

	test('media rule: only native media or a platform thumbnail; link-only posts keep the link in message with empty media', async () => {
		const res = await posts({ term: '#acme', platforms: 'Twitter,Bluesky,Facebook,Tumblr,LinkedIn' });
		let linkOnly = 0;
		let withThumb = 0;
		for (const p of res.body.data) {
			const links: string[] = (p.message.match(/https:\/\/[^\s<"]+/g) ?? []).filter((u: string) => !u.includes('/hashtag/'));
			const hosts = new Set(links.map((u) => new URL(u).hostname));
			for (const m of p.media) {
				expect(hosts.has(new URL(m.url).hostname)).toBe(false);
				expect(hosts.has(new URL(m.preview_image_url).hostname)).toBe(false);
			}
			if (links.length && p.media.length === 0) linkOnly++;
			if (links.length && p.media.length === 1) withThumb++;
		}
		expect(linkOnly).toBeGreaterThan(0);
		expect(withThumb).toBeGreaterThan(0);
	});

	test('X messages contain HTML; deterministic answers', async () => {
		const a = await posts({ term: '#acme', platforms: 'Twitter' });
		expect(a.body.data.some((p: any) => /<a href=/.test(p.message))).toBe(true);
		const b = await posts({ term: '#acme', platforms: 'Twitter' });
		expect(b.body).toEqual(a.body);
	});
});

describe('GET /data/posts: rules 1-6', () => {
	test('rule 1: unknown platform and unsupported term_type are entries; other platforms still return', async () => {
		h.fake.control.setShapes('spec'); // SPEC.md's table names X only as Twitter; the live service takes X too (shapes.test.ts)
		const res = await posts({ term: 'acme', term_type: 'username', platforms: 'Twitter,MySpace,Reddit,X' });
		expect(res.status).toBe(200);
		expect(entry(res, 'Twitter')).toMatchObject({ success: true, count: 20 });
		expect(entry(res, 'MySpace')).toMatchObject({ success: false, error_code: 'unknown_platform', message: expect.any(String) });
		expect(entry(res, 'X')).toMatchObject({ success: false, error_code: 'unknown_platform' });
		expect(entry(res, 'Reddit')).toMatchObject({ success: false, error_code: 'invalid_term_type', message: expect.stringContaining('Reddit') });
		expect(res.body.data.every((p: any) => p.platform === 'Twitter')).toBe(true);
	});

	test('rule 2: one page per platform; sizes differ by platform; limit/per_page are ignored', async () => {
		const res = await posts({ term: 'acme', platforms: 'Twitter,Bluesky,Facebook', per_page: '5', limit: '5' });
		expect(entry(res, 'Twitter').count).toBe(20);
		expect(entry(res, 'Bluesky').count).toBe(25);
		expect(entry(res, 'Facebook').count).toBe(21);
		expect(res.body.data).toHaveLength(66);
	});

	test('rule 3: every success entry has next_cursor and has_more (true exactly when next_cursor is present)', async () => {
		const res = await posts({ term: '#acme', platforms: 'Twitter,Pinterest,Instagram' });
		for (const e of res.body.meta.platforms) {
			expect('next_cursor' in e && 'has_more' in e).toBe(true);
			expect(e.has_more).toBe(e.next_cursor !== null);
		}
		expect(entry(res, 'Pinterest')).toMatchObject({ next_cursor: null, has_more: false, count: 25 });
	});

	test('rule 4: following cursors (comma-joined) reaches every post once; exhausted platforms have null', async () => {
		h.fake.control.data.configure('Twitter', { pages: 3 });
		h.fake.control.data.configure('Bluesky', { totalPosts: 30 });
		const seen = new Map<string, Set<string>>([['Twitter', new Set()], ['Bluesky', new Set()]]);
		let cursors: Record<string, string> = {};
		let rounds = 0;
		let platforms = ['Twitter', 'Bluesky'];
		while (platforms.length) {
			rounds++;
			const res = await posts({ term: 'acme', platforms: platforms.join(','), cursor: Object.values(cursors).join(',') || undefined });
			for (const p of res.body.data) {
				const set = seen.get(p.platform)!;
				expect(set.has(p.platform_id)).toBe(false);
				set.add(p.platform_id);
			}
			cursors = {};
			for (const e of res.body.meta.platforms) if (e.next_cursor) cursors[e.platform] = e.next_cursor;
			platforms = Object.keys(cursors);
			expect(rounds).toBeLessThan(10);
		}
		expect(rounds).toBe(3);
		expect(seen.get('Twitter')!.size).toBe(60);
		expect(seen.get('Bluesky')!.size).toBe(30);
	});

	test('rule 5: cursors are matched by the platform they encode, in any order; a platform without a cursor gets its first page', async () => {
		const first = await posts({ term: 'acme', platforms: 'Twitter,Bluesky' });
		const tw = entry(first, 'Twitter').next_cursor;
		const bs = entry(first, 'Bluesky').next_cursor;
		const direct = await posts({ term: 'acme', platforms: 'Twitter', cursor: tw });
		const reversed = await posts({ term: 'acme', platforms: 'Twitter,Bluesky,Vimeo', cursor: `${bs},${tw}` });
		expect(reversed.body.data.filter((p: any) => p.platform === 'Twitter')).toEqual(direct.body.data);
		const firstVimeo = await posts({ term: 'acme', platforms: 'Vimeo' });
		expect(reversed.body.data.filter((p: any) => p.platform === 'Vimeo')).toEqual(firstVimeo.body.data);
		const page2Bluesky = reversed.body.data.filter((p: any) => p.platform === 'Bluesky');
		const page1Ids = new Set(first.body.data.filter((p: any) => p.platform === 'Bluesky').map((p: any) => p.platform_id));
		expect(page2Bluesky.some((p: any) => page1Ids.has(p.platform_id))).toBe(false);
	});

	test('rule 5: a malformed cursor gives invalid_cursor for its platform only', async () => {
		const first = await posts({ term: 'acme', platforms: 'Twitter,Bluesky' });
		const tw = entry(first, 'Twitter').next_cursor as string;
		const res = await posts({ term: 'acme', platforms: 'Twitter,Bluesky', cursor: `${tw},garbage!!` });
		expect(entry(res, 'Twitter')).toMatchObject({ success: true });
		expect(entry(res, 'Bluesky')).toMatchObject({ success: false, error_code: 'invalid_cursor', message: expect.any(String) });
		const tampered = tw.slice(0, -2) + (tw.endsWith('AA') ? 'BB' : 'AA');
		const t = await posts({ term: 'acme', platforms: 'Twitter,Bluesky', cursor: tampered });
		expect(entry(t, 'Twitter')).toMatchObject({ success: false, error_code: 'invalid_cursor' });
		expect(entry(t, 'Bluesky')).toMatchObject({ success: true, count: 25 });
	});

	test('rule 6: a hand-built cursor is refused (opaque and signed); a cursor for another term too', async () => {
		const forged = Buffer.from(JSON.stringify({ v: 1, p: 'Twitter', t: 'username', q: 'acme', b: 5 })).toString('base64url');
		const res = await posts({ term: 'acme', platforms: 'Twitter', cursor: forged });
		expect(entry(res, 'Twitter')).toMatchObject({ success: false, error_code: 'invalid_cursor' });
		const first = await posts({ term: 'acme', platforms: 'Twitter' });
		const other = await posts({ term: 'other', platforms: 'Twitter', cursor: entry(first, 'Twitter').next_cursor });
		expect(entry(other, 'Twitter')).toMatchObject({ success: false, error_code: 'invalid_cursor' });
	});
});

describe('GET /data/posts: term types and errors', () => {
	test('auto-detection: # → hashtag; @ or no prefix → username', async () => {
		const tag = await posts({ term: '#sunset', platforms: 'Instagram' });
		expect(tag.body.data.every((p: any) => p.message.includes('#sunset'))).toBe(true);
		for (const term of ['@sunset', 'sunset']) {
			const user = await posts({ term, platforms: 'Instagram' });
			expect(user.body.data.every((p: any) => p.poster.name === 'sunset')).toBe(true);
		}
		const g = await posts({ term: 'ChIJacmeCoffeeBerlin01', platforms: 'Google' });
		expect(entry(g, 'Google')).toMatchObject({ success: false, error_code: 'invalid_term_type' });
	});

	test('invalid_term per platform', async () => {
		const res = await posts({ term: '#two words', platforms: 'Twitter,Instagram' });
		expect(entry(res, 'Twitter')).toMatchObject({ success: false, error_code: 'invalid_term' });
		const g = await posts({ term: 'Acme Coffee', term_type: 'reviews', platforms: 'Google' });
		expect(entry(g, 'Google')).toMatchObject({ success: false, error_code: 'invalid_term' });
		const mentions = await posts({ term: 'two words', term_type: 'mentions', platforms: 'Reddit,Twitter' });
		expect(entry(mentions, 'Reddit')).toMatchObject({ success: true });
	});

	test('fetch_timeout and platform_error on demand (N times, then recovers; or always)', async () => {
		h.fake.control.data.fail('Twitter', { errorCode: 'fetch_timeout', times: 2 });
		h.fake.control.data.fail('Bluesky', { errorCode: 'platform_error' });
		for (let i = 0; i < 2; i++) {
			const res = await posts({ term: 'acme', platforms: 'Twitter,Bluesky,Vimeo' });
			expect(entry(res, 'Twitter')).toMatchObject({ success: false, error_code: 'fetch_timeout', message: expect.any(String) });
			expect(entry(res, 'Bluesky')).toMatchObject({ success: false, error_code: 'platform_error' });
			expect(entry(res, 'Vimeo')).toMatchObject({ success: true });
		}
		const res = await posts({ term: 'acme', platforms: 'Twitter,Bluesky' });
		expect(entry(res, 'Twitter')).toMatchObject({ success: true });
		expect(entry(res, 'Bluesky')).toMatchObject({ success: false, error_code: 'platform_error' });
	});

	test('failures can target one term', async () => {
		h.fake.control.data.fail('Twitter', { errorCode: 'platform_error', term: 'broken' });
		expect(entry(await posts({ term: 'fine', platforms: 'Twitter' }), 'Twitter').success).toBe(true);
		expect(entry(await posts({ term: '@broken', platforms: 'Twitter' }), 'Twitter').success).toBe(false);
	});

	test('HTTP errors: 401, 422 for missing term/platforms or an unknown term_type value', async () => {
		expectError(await posts({ term: 'a', platforms: 'Twitter' }, 'sag_live_bad'), 401, 'unauthorized');
		expect(expectError(await posts({ platforms: 'Twitter' }), 422, 'validation_failed').details.term).toBeDefined();
		expect(expectError(await posts({ term: 'a' }), 422, 'validation_failed').details.platforms).toBeDefined();
		expect(expectError(await posts({ term: 'a', platforms: 'Twitter', term_type: 'keyword' }), 422, 'validation_failed').details.term_type).toBeDefined();
	});

	test('unconfirmed temporary key: email_confirmation_required; the same key works once confirmed', async () => {
		expectError(await posts({ term: 'a', platforms: 'Twitter' }, KEYS.unconfirmed), 403, 'email_confirmation_required');
		h.fake.control.confirmEmail('unconfirmed@new.example');
		expect((await posts({ term: 'a', platforms: 'Twitter' }, KEYS.unconfirmed)).status).toBe(200);
	});
});

describe('Data API controls', () => {
	test('page size and number of pages per platform and per term', async () => {
		h.fake.control.data.configure('Vimeo', { pageSize: 7, totalPosts: 10 });
		h.fake.control.data.configure('Vimeo', { term: 'special', pages: 1, pageSize: 3 });
		const a = await posts({ term: 'acme', platforms: 'Vimeo' });
		expect(entry(a, 'Vimeo')).toMatchObject({ count: 7, has_more: true });
		const b = await posts({ term: 'acme', platforms: 'Vimeo', cursor: entry(a, 'Vimeo').next_cursor });
		expect(entry(b, 'Vimeo')).toMatchObject({ count: 3, next_cursor: null, has_more: false });
		const s = await posts({ term: 'special', platforms: 'Vimeo' });
		expect(entry(s, 'Vimeo')).toMatchObject({ count: 3, next_cursor: null });
		h.fake.control.data.configure('Pinterest', { totalPosts: 100 });
		expect(entry(await posts({ term: 'acme', platforms: 'Pinterest' }), 'Pinterest')).toMatchObject({ count: 25, next_cursor: null, has_more: false });
	});

	test('addPosts: new posts come first on the next first page; old cursors still continue', async () => {
		const before = await posts({ term: '#acme', platforms: 'Twitter' });
		const oldCursor = entry(before, 'Twitter').next_cursor;
		const page2Before = await posts({ term: '#acme', platforms: 'Twitter', cursor: oldCursor });
		const added = h.fake.control.data.addPosts('Twitter', '#acme', 2);
		expect(added).toHaveLength(2);
		const after = await posts({ term: '#acme', platforms: 'Twitter' });
		expect(after.body.data.slice(0, 2).map((p: any) => p.platform_id)).toEqual(added.map((p) => p.platform_id));
		expect(Date.parse(after.body.data[0].post_created_at)).toBeGreaterThan(Date.parse(before.body.data[0].post_created_at));
		expect(after.body.data[2]).toEqual(before.body.data[0]);
		const page2After = await posts({ term: '#acme', platforms: 'Twitter', cursor: oldCursor });
		expect(page2After.body.data).toEqual(page2Before.body.data);
	});

	test('cursorLifetimeMs: a cursor older than that on the fake clock is invalid_cursor; a fresh one still continues', async () => {
		h.fake.control.data.configure('Twitter', { term: '#acme', termType: 'hashtag', cursorLifetimeMs: 10 * 60_000 });
		const first = await posts({ term: '#acme', platforms: 'Twitter,Bluesky' });
		const cursors = [entry(first, 'Twitter').next_cursor, entry(first, 'Bluesky').next_cursor].join(',');
		h.fake.control.clock.advance(9 * 60_000);
		expect(entry(await posts({ term: '#acme', platforms: 'Twitter', cursor: entry(first, 'Twitter').next_cursor }), 'Twitter')).toMatchObject({ success: true });
		h.fake.control.clock.advance(2 * 60_000);
		const late = await posts({ term: '#acme', platforms: 'Twitter,Bluesky', cursor: cursors });
		expect(entry(late, 'Twitter')).toMatchObject({ success: false, error_code: 'invalid_cursor', message: 'Twitter: the cursor has expired' });
		// Another platform's cursor, without a lifetime, still continues; a new first page gives a working cursor.
		expect(entry(late, 'Bluesky')).toMatchObject({ success: true });
		const again = await posts({ term: '#acme', platforms: 'Twitter' });
		expect(entry(await posts({ term: '#acme', platforms: 'Twitter', cursor: entry(again, 'Twitter').next_cursor }), 'Twitter')).toMatchObject({ success: true });
	});

	test('pinned: the oldest post opens every first page, before new posts, and no later page lists it', async () => {
		h.fake.control.data.configure('Twitter', { term: 'acme', termType: 'username', pinned: true, pageSize: 5, totalPosts: 12 });
		const walk = async () => {
			const pages: string[][] = [];
			let cursor: string | undefined;
			do {
				const res = await posts({ term: 'acme', term_type: 'username', platforms: 'Twitter', cursor });
				pages.push(res.body.data.map((p: any) => p.platform_id));
				expect(entry(res, 'Twitter').count).toBe(res.body.data.length);
				cursor = entry(res, 'Twitter').next_cursor ?? undefined;
			} while (cursor);
			return pages;
		};
		const before = await walk();
		expect(before.map((page) => page.length)).toEqual([5, 5, 2]);
		const pin = before[0][0];
		expect(before.flat().filter((id) => id === pin)).toHaveLength(1);
		expect(new Set(before.flat()).size).toBe(12);
		const added = h.fake.control.data.addPosts('Twitter', 'acme', 3, 'username').map((p) => p.platform_id);
		const after = await walk();
		expect(after[0]).toEqual([pin, ...added, before[0][1]]);
		expect(after.flat().sort()).toEqual([...before.flat(), ...added].sort());
	});

	test('cursorLifetimeMs and pinned over HTTP', async () => {
		expect((await h.origin.post('/_control/data/configure', { platform: 'Vimeo', pinned: true, cursorLifetimeMs: 1000 })).status).toBe(200);
		const first = await posts({ term: 'acme', platforms: 'Vimeo' });
		expect((await posts({ term: 'acme', platforms: 'Vimeo' })).body.data[0]).toEqual(first.body.data[0]);
		await h.origin.post('/_control/clock/advance', { ms: 2000 });
		expect(entry(await posts({ term: 'acme', platforms: 'Vimeo', cursor: entry(first, 'Vimeo').next_cursor }), 'Vimeo').error_code).toBe('invalid_cursor');
	});

	test('credits: 1 most, 3 Instagram/LinkedIn/TikTok, 6 Facebook; per page; none for failed platforms', async () => {
		h.fake.control.data.fail('Bluesky', { errorCode: 'platform_error' });
		await posts({ term: 'acme', platforms: 'Twitter,Instagram,LinkedIn,TikTok,Facebook,Bluesky,MySpace' });
		expect(h.fake.control.data.credits()).toEqual({ total: 1 + 3 + 3 + 3 + 6, byPlatform: { Twitter: 1, Instagram: 3, LinkedIn: 3, TikTok: 3, Facebook: 6 }, requests: 1 });
		const r = await posts({ term: 'acme', platforms: 'Twitter' });
		await posts({ term: 'acme', platforms: 'Twitter', cursor: entry(r, 'Twitter').next_cursor });
		expect(h.fake.control.data.credits().byPlatform.Twitter).toBe(3);
		expect(h.fake.control.requests.list({ path: '/data/posts' }).map((e) => e.credits)).toEqual([16, 1, 1]);
	});

	test('insufficient_credits when the account balance is too low', async () => {
		h.fake.control.setAccount(1, { creditBalance: 5 });
		expectError(await posts({ term: 'acme', platforms: 'Facebook' }), 402, 'insufficient_credits');
		expect((await posts({ term: 'acme', platforms: 'Twitter' })).status).toBe(200);
		expect(h.fake.control.data.credits().total).toBe(1);
	});

	test('controls over HTTP', async () => {
		await h.origin.post('/_control/data/fail', { platform: 'Giphy', errorCode: 'fetch_timeout', times: 1 });
		await h.origin.post('/_control/data/configure', { platform: 'Flickr', pageSize: 4, pages: 2 });
		const res = await posts({ term: 'acme', platforms: 'Giphy,Flickr' });
		expect(entry(res, 'Giphy').error_code).toBe('fetch_timeout');
		expect(entry(res, 'Flickr').count).toBe(4);
		const added = await h.origin.post('/_control/data/posts', { platform: 'Flickr', term: 'acme', count: 1 });
		expect(added.body.result).toHaveLength(1);
		expect((await h.origin.get('/_control/data/credits')).body.result.total).toBe(1);
	});
});

describe('GET /data/profiles', () => {
	test('the spec shape (chosen through the control API): flat profiles per term and platform, Google place ids usable for reviews', async () => {
		expect((await h.origin.post('/_control/shapes', { shapes: 'spec' })).status).toBe(200);
		const res = await h.api.get('/data/profiles', { query: { term: 'Acme Coffee Berlin,acme', platforms: 'Google,Twitter,MySpace' } });
		expect(res.status).toBe(200);
		const google = res.body.data.find((p: any) => p.platform === 'Google' && p.term === 'Acme Coffee Berlin');
		expect(google).toMatchObject({ name: 'Acme Coffee Berlin', place_id: expect.stringMatching(/^ChIJ[A-Za-z0-9_-]{8,}$/) });
		const tw = res.body.data.find((p: any) => p.platform === 'Twitter' && p.term === 'acme');
		expect(tw).toMatchObject({ name: 'acme', platform_id: expect.any(String), display_name: expect.any(String), url: expect.any(String), image: expect.any(String) });
		expect('place_id' in tw).toBe(false);
		expect(entry(res, 'MySpace')).toMatchObject({ success: false, error_code: 'unknown_platform' });
		expect(entry(res, 'Google')).toMatchObject({ success: true, count: 2 });
		const reviews = await posts({ term: google.place_id, term_type: 'reviews', platforms: 'Google' });
		expect(entry(reviews, 'Google')).toMatchObject({ success: true });
		expect(reviews.body.data.every((p: any) => !('like_count' in p))).toBe(true);
	});
	test('the spec shape with the Google place id in platform_id (chosen through the control API): the name apart, no place_id; a reset or clear brings back place_id', async () => {
		h.fake.control.setShapes('spec');
		const query = { term: 'Acme Coffee Berlin', platforms: 'Google,Twitter' };
		const before = (await h.api.get('/data/profiles', { query })).body.data.find((p: any) => p.platform === 'Google');
		expect((await h.origin.post('/_control/data/place_ids', { field: 'platform_id' })).status).toBe(200);
		const res = await h.api.get('/data/profiles', { query });
		const google = res.body.data.find((p: any) => p.platform === 'Google');
		expect(google).toMatchObject({ name: 'Acme Coffee Berlin', platform_id: before.place_id });
		expect('place_id' in google).toBe(false);
		// Only Google's profiles change.
		expect(res.body.data.find((p: any) => p.platform === 'Twitter')).toMatchObject({ platform_id: expect.not.stringMatching(/^ChIJ/) });
		const reviews = await posts({ term: google.platform_id, term_type: 'reviews', platforms: 'Google' });
		expect(entry(reviews, 'Google')).toMatchObject({ success: true, count: expect.any(Number) });
		expect(reviews.body.data.length).toBeGreaterThan(0);
		expect((await h.origin.post('/_control/data/place_ids', { field: 'name' })).status).toBe(400);
		h.fake.control.data.clear();
		expect((await h.api.get('/data/profiles', { query })).body.data.find((p: any) => p.platform === 'Google')).toMatchObject({ place_id: before.place_id });
		h.fake.control.data.placeIds('platform_id');
		h.fake.control.reset();
		h.fake.control.setShapes('spec');
		expect((await h.api.get('/data/profiles', { query })).body.data.find((p: any) => p.platform === 'Google')).toMatchObject({ place_id: before.place_id });
	});
	test('the live shape by default: one group per platform and handle, exact_match, nullable metrics; the Google handle is a place id for reviews', async () => {
		const res = await h.api.get('/data/profiles', { query: { term: 'nasa,fizzbuzz,nobody1,Acme Coffee Berlin', platforms: 'Twitter,Google,MySpace' } });
		expect(res.status).toBe(200);
		const group = (platform: string, term: string) => res.body.data.find((g: any) => g.platform === platform && g.term === term);
		expect(res.body.data).toHaveLength(8);
		for (const g of res.body.data) expect(Object.keys(g).sort()).toEqual(['exact_match', 'platform', 'profiles', 'term']);
		expect(group('Twitter', 'nasa')).toEqual({
			platform: 'Twitter',
			term: 'nasa',
			exact_match: true,
			profiles: [{ platform: 'Twitter', handle: 'nasa', url: expect.stringContaining('/nasa'), metrics: { follower_count: expect.any(Number), post_count: expect.any(Number) } }],
		});
		const fuzzy = group('Twitter', 'fizzbuzz');
		expect(fuzzy.exact_match).toBe(false);
		expect(fuzzy.profiles.map((p: any) => p.handle)).toEqual(['fizzbuzz_official', 'thefizzbuzz']);
		expect(group('Twitter', 'nobody1')).toEqual({ platform: 'Twitter', term: 'nobody1', exact_match: false, profiles: [] });
		const google = group('Google', 'Acme Coffee Berlin').profiles[0];
		expect(google.metrics.follower_count).toBeNull();
		expect(google.handle).toMatch(/^ChIJ[A-Za-z0-9_-]{8,}$/);
		expect(entry(res, 'MySpace')).toMatchObject({ success: false, error_code: 'unknown_platform' });
		const reviews = await posts({ term: google.handle, term_type: 'reviews', platforms: 'Google' });
		expect(entry(reviews, 'Google')).toMatchObject({ success: true });
	});
	test('profiles follow the shapes: flat in spec, grouped in live; a reset brings back the start option (live)', async () => {
		h.fake.control.setShapes('spec');
		const flat = await h.api.get('/data/profiles', { query: { term: 'nasa', platforms: 'Twitter' } });
		expect(flat.body.data[0]).toMatchObject({ platform: 'Twitter', term: 'nasa', name: 'nasa' });
		h.fake.control.reset();
		const grouped = await h.api.get('/data/profiles', { query: { term: 'nasa', platforms: 'Twitter' } });
		expect(grouped.body.data[0].profiles).toHaveLength(1);
	});
	test('at most 5 terms; term and platforms required', async () => {
		expectError(await h.api.get('/data/profiles', { query: { term: 'a,b,c,d,e,f', platforms: 'Twitter' } }), 422, 'validation_failed');
		expectError(await h.api.get('/data/profiles', { query: { platforms: 'Twitter' } }), 422, 'validation_failed');
		expectError(await h.api.get('/data/profiles', { query: { term: 'a' } }), 422, 'validation_failed');
	});
});
