import { KEYS, SEEDED } from './seed';
import { start } from './server';
import { expectError, useHarness } from './helpers';

const h = useHarness();

const FEED_POST_FIELDS = {
	id: 'number',
	external_id: 'string',
	platform: 'string',
	url: 'string',
	message: 'string',
	external_created_at: 'string',
	poster: 'object',
	media: 'object',
	like_count: 'number',
	comment_count: 'number',
	share_count: 'number',
	view_count: 'number',
	quote_count: 'number',
	bookmark_count: 'number',
	impression_count: 'number',
	tagged_users: 'string',
	moderation_status: 'string',
	ai_sentiment: 'string',
	ai_decision_reason: 'string',
	ai_moderation_reasoning: 'string',
	pinned: 'boolean',
	referenced_post: 'object',
	reshared_by: 'object',
	created_at: 'string',
};

async function allPosts(feedId: number, query: Record<string, string | number> = {}): Promise<any[]> {
	const out: any[] = [];
	for (let page = 1; ; page++) {
		const r = await h.api.get(`/feeds/${feedId}/posts`, { query: { ...query, page, per_page: 100 } });
		expect(r.status).toBe(200);
		out.push(...r.body.data);
		if (page >= r.body.meta.total_pages) return out;
	}
}

describe('GET /feeds/{id}/posts', () => {
	test('every feed post field with its type; newest first', async () => {
		const res = await h.api.get('/feeds/1/posts');
		expect(res.body.meta).toEqual({ page: 1, per_page: 20, total_count: 120, total_pages: 6 });
		for (const p of res.body.data) {
			for (const [f, t] of Object.entries(FEED_POST_FIELDS)) expect([f, typeof p[f]]).toEqual([f, t]);
			expect(['public', 'moderated', 'rejected']).toContain(p.moderation_status);
			expect(Object.keys(p.poster).sort()).toEqual(['display_name', 'image', 'name', 'platform_id', 'url']);
		}
		const times = res.body.data.map((p: any) => Date.parse(p.external_created_at));
		expect([...times].sort((a, b) => b - a)).toEqual(times);
	});

	test('pagination over 1,050 posts: 11 pages of 100, no duplicates or gaps', async () => {
		const { feedId, postCount } = h.fake.control.seedFeed({ posts: 1050 });
		expect(postCount).toBe(1050);
		const first = await h.api.get(`/feeds/${feedId}/posts`, { query: { per_page: 100 } });
		expect(first.body.meta).toEqual({ page: 1, per_page: 100, total_count: 1050, total_pages: 11 });
		const last = await h.api.get(`/feeds/${feedId}/posts`, { query: { per_page: 100, page: 11 } });
		expect(last.body.data).toHaveLength(50);
		const all = await allPosts(feedId);
		expect(new Set(all.map((p) => p.id)).size).toBe(1050);
		expect((await h.api.get(`/feeds/${feedId}/posts`, { query: { per_page: 100, page: 12 } })).body.data).toEqual([]);
	});

	test('seedFeed of 5,000 posts is quick', () => {
		const t0 = Date.now();
		h.fake.control.seedFeed({ posts: 5000 });
		expect(Date.now() - t0).toBeLessThan(2000);
	});

	test('per_page above 100 is 422 (not clamped); default 20', async () => {
		const err = expectError(await h.api.get('/feeds/1/posts', { query: { per_page: 101 } }), 422, 'validation_failed');
		expect(err.details.per_page[0]).toContain('100');
		expect((await h.api.get('/feeds/1/posts', { query: { per_page: 100 } })).body.data).toHaveLength(100);
	});

	test('status filter; without status every post that is not deleted', async () => {
		const all = await allPosts(1);
		const counts = { public: 0, moderated: 0, rejected: 0 } as Record<string, number>;
		for (const p of all) counts[p.moderation_status]++;
		expect(counts.moderated).toBeGreaterThan(0);
		expect(counts.rejected).toBeGreaterThan(0);
		for (const status of ['public', 'moderated', 'rejected']) {
			const r = await allPosts(1, { status });
			expect(r.length).toBe(counts[status]);
			expect(r.every((p) => p.moderation_status === status)).toBe(true);
		}
		expectError(await h.api.get('/feeds/1/posts', { query: { status: 'deleted' } }), 422, 'validation_failed');
	});

	test('search matches message, poster name and description (case-insensitive)', async () => {
		const all = await allPosts(1);
		const byMessage = all[5].message.split(' ').slice(0, 2).join(' ');
		const m = await allPosts(1, { search: byMessage.toUpperCase() });
		expect(m.length).toBeGreaterThan(0);
		expect(m.every((p) => p.message.toLowerCase().includes(byMessage.toLowerCase()))).toBe(true);
		const name = all[7].poster.name;
		const n = await allPosts(1, { search: name });
		expect(n.map((p) => p.id)).toContain(all[7].id);
		const withDescription = all.find((p) => p.description && !p.message.includes('full video description'));
		expect(withDescription).toBeDefined();
		const d = await allPosts(1, { search: 'full video description' });
		expect(d.length).toBeGreaterThan(0);
		expect(d.every((p) => p.description.includes('full video description'))).toBe(true);
		expect(await allPosts(1, { search: 'zzz-no-such-text' })).toEqual([]);
	});

	test('filter by source id, platform name or term (comma-separated); no other source parameter', async () => {
		const byId = await allPosts(1, { filter: String(SEEDED.sources.twitterAcme) });
		expect(byId.length).toBe(24);
		expect(byId.every((p) => p.platform === 'Twitter')).toBe(true);
		const byPlatform = await allPosts(1, { filter: 'instagram' });
		expect(byPlatform.length).toBe(24);
		expect(byPlatform.every((p) => p.platform === 'Instagram')).toBe(true);
		const byTerm = await allPosts(1, { filter: 'AcmeTV' });
		expect(byTerm.every((p) => p.platform === 'YouTube')).toBe(true);
		const combined = await allPosts(1, { filter: `${SEEDED.sources.twitterAcme},Reddit,#acme` });
		expect(new Set(combined.map((p) => p.platform))).toEqual(new Set(['Twitter', 'Reddit', 'Instagram']));
		const ignored = await h.api.get('/feeds/1/posts', { query: { source_id: SEEDED.sources.twitterAcme } });
		expect(ignored.body.meta.total_count).toBe(120);
	});

	test('starting_at and ending_at (inclusive)', async () => {
		const all = await allPosts(2);
		const a = all[40].external_created_at;
		const b = all[10].external_created_at;
		const range = await allPosts(2, { starting_at: a, ending_at: b });
		expect(range.map((p) => p.id)).toEqual(all.slice(10, 41).map((p) => p.id));
		expect((await allPosts(2, { starting_at: b })).length).toBe(11);
		expect((await allPosts(2, { ending_at: a })).length).toBe(20);
		expectError(await h.api.get('/feeds/2/posts', { query: { starting_at: 'last week' } }), 422, 'validation_failed');
	});
});

describe('single post and moderation (SPEC table)', () => {
	const feed = SEEDED.feeds.brandMentions;

	async function firstWith(status: string): Promise<any> {
		const r = await h.api.get(`/feeds/${feed}/posts`, { query: { status, per_page: 1 } });
		return r.body.data[0];
	}

	test('GET one post', async () => {
		const p = await firstWith('public');
		const res = await h.api.get(`/feeds/${feed}/posts/${p.id}`);
		expect(res.status).toBe(200);
		expect(res.body.data).toEqual(p);
		expectError(await h.api.get(`/feeds/${feed}/posts/999999`), 404, 'not_found');
		expectError(await h.api.get(`/feeds/2/posts/${p.id}`), 404, 'not_found');
	});

	test.each(['public', 'moderated', 'rejected'])('any visible state (%s) → DELETE → soft-deleted: gone from lists and GET (404)', async (status) => {
		const p = await firstWith(status);
		const before = (await h.api.get(`/feeds/${feed}/posts`)).body.meta.total_count;
		const del = await h.api.delete(`/feeds/${feed}/posts/${p.id}`);
		expect(del.status).toBe(204);
		expectError(await h.api.get(`/feeds/${feed}/posts/${p.id}`), 404, 'not_found');
		expect((await h.api.get(`/feeds/${feed}/posts`)).body.meta.total_count).toBe(before - 1);
		expect((await allPosts(feed, { status })).some((x) => x.id === p.id)).toBe(false);
		expectError(await h.api.delete(`/feeds/${feed}/posts/${p.id}`), 404, 'not_found');
		expect(h.fake.control.getPost(p.id)).toMatchObject({ deleted: true });
	});

	test.each(['moderated', 'rejected', 'deleted'])('%s → approve → public, the post is returned', async (from) => {
		const p = await firstWith(from === 'deleted' ? 'public' : from);
		if (from === 'deleted') expect((await h.api.delete(`/feeds/${feed}/posts/${p.id}`)).status).toBe(204);
		const res = await h.api.post(`/feeds/${feed}/posts/${p.id}/approve`);
		expect(res.status).toBe(200);
		expect(res.body.data).toMatchObject({ id: p.id, moderation_status: 'public' });
		const got = await h.api.get(`/feeds/${feed}/posts/${p.id}`);
		expect(got.body.data.moderation_status).toBe('public');
	});

	test('reject, pin, unpin', async () => {
		const p = await firstWith('public');
		const rej = await h.api.post(`/feeds/${feed}/posts/${p.id}/reject`);
		expect(rej.body.data.moderation_status).toBe('rejected');
		const pin = await h.api.post(`/feeds/${feed}/posts/${p.id}/pin`);
		expect(pin.status).toBe(200);
		expect(pin.body.data.pinned).toBe(true);
		expect((await h.api.get(`/feeds/${feed}/posts/${p.id}`)).body.data.pinned).toBe(true);
		const unpin = await h.api.post(`/feeds/${feed}/posts/${p.id}/unpin`);
		expect(unpin.body.data.pinned).toBe(false);
		await h.api.delete(`/feeds/${feed}/posts/${p.id}`);
		expectError(await h.api.post(`/feeds/${feed}/posts/${p.id}/pin`), 404, 'not_found');
		expectError(await h.api.post(`/feeds/${feed}/posts/${p.id}/reject`), 404, 'not_found');
	});

	test('control.setPostStatus moderates a post', async () => {
		const p = await firstWith('public');
		h.fake.control.setPostStatus(p.id, 'moderated');
		const got = await h.api.get(`/feeds/${feed}/posts/${p.id}`);
		expect(got.body.data).toMatchObject({ moderation_status: 'moderated', ai_decision_reason: 'harmful_content' });
	});
});

describe.each(['live', 'spec'] as const)('bulk action on several posts, in the %s shape', (shapes) => {
	const feed = SEEDED.feeds.brandMentions;
	const live = shapes === 'live';
	beforeEach(() => h.fake.control.setShapes(shapes));

	async function ids(status: string, count: number): Promise<number[]> {
		const r = await h.api.get(`/feeds/${feed}/posts`, { query: { status, per_page: count } });
		return r.body.data.map((p: any) => p.id);
	}

	test(`approve, reject and delete act on every post of the feed listed; ${live ? 'the count (delete: 204)' : 'a result per post, one the feed lacks failed'}`, async () => {
		const moderated = await ids('moderated', 2);
		const other = SEEDED.firstPostId + 130; // a post of another feed
		const approved = await h.api.post(`/feeds/${feed}/posts/bulk`, { action: 'approve', ids: [...moderated, other] });
		expect(approved.status).toBe(200);
		if (live) expect(approved.body).toEqual({ data: { action: 'approve', count: 2 } });
		else {
			expect(approved.body.data).toEqual([
				...moderated.map((id) => ({ id, success: true, moderation_status: 'public', deleted: false })),
				{ id: other, success: false, error: { code: 'not_found', message: 'Post not found' } },
			]);
		}
		for (const id of moderated) expect(h.fake.control.getPost(id)).toMatchObject({ moderation_status: 'public' });
		expect(h.fake.control.getPost(other)).toMatchObject({ feed_id: SEEDED.feeds.productLaunch, moderation_status: 'public' });

		const rejected = await h.api.post(`/feeds/${feed}/posts/bulk`, { action: 'reject', ids: moderated });
		expect(live ? rejected.body.data.count : rejected.body.data.map((r: any) => r.moderation_status)).toEqual(live ? 2 : ['rejected', 'rejected']);
		const deleted = await h.api.post(`/feeds/${feed}/posts/bulk`, { action: 'delete', ids: moderated });
		expect(deleted.status).toBe(live ? 204 : 200);
		if (live) expect(deleted.raw).toBe('');
		for (const id of moderated) expect(h.fake.control.getPost(id)).toMatchObject({ deleted: true });
		// A deleted post can be approved back, but not deleted or rejected again.
		const again = await h.api.post(`/feeds/${feed}/posts/bulk`, { action: 'reject', ids: moderated });
		expect(live ? again.body.data.count : again.body.data.filter((r: any) => r.success)).toEqual(live ? 0 : []);
		await h.api.post(`/feeds/${feed}/posts/bulk`, { action: 'approve', ids: moderated });
		for (const id of moderated) expect(h.fake.control.getPost(id)).toMatchObject({ deleted: false, moderation_status: 'public' });
	});

	test('the input is checked: 422 per field; another account\'s feed 404', async () => {
		const [one] = await ids('public', 1);
		const checked = [
			[{ action: 'pin', ids: [one] }, 'action'],
			[{ action: 'approve' }, 'ids'],
			[{ action: 'approve', ids: [] }, 'ids'],
			[{ action: 'approve', ids: ['1001'] }, 'ids'],
		] as const;
		for (const [body, field] of checked) {
			const refused = expectError(await h.api.post(`/feeds/${feed}/posts/bulk`, body), 422, 'validation_failed');
			expect(Object.keys(refused.details)).toEqual([field]);
		}
		expectError(await h.api.post(`/feeds/${SEEDED.feeds.solo}/posts/bulk`, { action: 'approve', ids: [one] }), 404, 'not_found');
		expect(h.fake.control.getPost(one)).toMatchObject({ moderation_status: 'public', deleted: false });
	});
});

describe('GET /search/posts', () => {
	test('searches every feed of the account, paged, each post with feed_id', async () => {
		const res = await h.api.get('/search/posts', { query: { q: 'the', per_page: 100 } });
		expect(res.status).toBe(200);
		expect(res.body.meta.total_count).toBeGreaterThan(100);
		const feeds = new Set(res.body.data.map((p: any) => p.feed_id));
		expect(feeds.size).toBeGreaterThan(1);
		for (const f of feeds) expect([1, 2, 3]).toContain(f);
		const solo = await h.api.get('/search/posts', { query: { q: 'the' }, key: KEYS.freeOwner });
		expect(solo.body.data.every((p: any) => p.feed_id === SEEDED.feeds.solo)).toBe(true);
		const collab = await h.api.get('/search/posts', { query: { q: 'the', per_page: 100 }, key: KEYS.collaborator });
		expect(collab.body.data.every((p: any) => p.feed_id === 1)).toBe(true);
		expectError(await h.api.get('/search/posts'), 422, 'validation_failed');
	});
	test('deleted posts are not found', async () => {
		const p = (await h.api.get('/feeds/3/posts', { query: { per_page: 1 } })).body.data[0];
		const needle = p.poster.name;
		const before = await h.api.get('/search/posts', { query: { q: needle, per_page: 100 } });
		expect(before.body.data.map((x: any) => x.id)).toContain(p.id);
		await h.api.delete(`/feeds/3/posts/${p.id}`);
		const after = await h.api.get('/search/posts', { query: { q: needle, per_page: 100 } });
		expect(after.body.data.map((x: any) => x.id)).not.toContain(p.id);
	});
});

describe('a daily sync (publishedOverMs): a day of posts stored at once', () => {
	test('published evenly over the span, all stored now, ids growing with the published time', async () => {
		const DAY = 86_400_000;
		const now = h.fake.control.clock.now().getTime();
		const posts = h.fake.control.syncFeed(2, { newPosts: 48, publishedOverMs: DAY }).posts;
		expect(posts).toHaveLength(48);
		const published = posts.map((p) => Date.parse(String(p.external_created_at)));
		expect(Math.max(...published) - Math.min(...published)).toBeGreaterThan(DAY * 0.9);
		expect(Math.max(...published)).toBeLessThanOrEqual(now + 1000);
		expect(new Set(posts.map((p) => p.created_at)).size).toBe(1);
		const byPublished = [...posts].sort((a, b) => Date.parse(String(a.external_created_at)) - Date.parse(String(b.external_created_at)));
		expect(byPublished.map((p) => p.id)).toEqual([...posts].map((p) => p.id).sort((a, b) => Number(a) - Number(b)));
	});
});

describe('the order of a feed\'s posts (not documented: two legal ones)', () => {
	const HOUR = 3_600_000;
	/** Feed 2 with a pinned post and a late sync (published 3 hours before it was stored), listed whole. */
	async function listedAfterLateSync(): Promise<{ list: any[]; pinnedId: number; lateIds: number[]; freshIds: number[] }> {
		const pinnedId = (await allPosts(2)).at(-1).id;
		expect((await h.api.post(`/feeds/2/posts/${pinnedId}/pin`)).status).toBe(200);
		const freshIds = h.fake.control.syncFeed(2, { newPosts: 3 }).posts.map((p) => p.id as number);
		const lateIds = h.fake.control.syncFeed(2, { newPosts: 2, publishedBeforeMs: 3 * HOUR }).posts.map((p) => p.id as number);
		return { list: await allPosts(2), pinnedId, lateIds, freshIds };
	}

	test('live: pinned posts first, then newest first by platform time; a post stored late sorts below earlier ones', async () => {
		const { list, pinnedId, lateIds, freshIds } = await listedAfterLateSync();
		expect(list[0].id).toBe(pinnedId);
		const ids = list.map((p) => p.id);
		const published = list.slice(1).map((p) => Date.parse(p.external_created_at));
		expect([...published].sort((a, b) => b - a)).toEqual(published);
		for (const id of lateIds) {
			expect(ids.indexOf(id)).toBeGreaterThan(Math.max(...freshIds.map((f) => ids.indexOf(f))));
			// Below posts stored before it that are not the fresh ones.
			expect(ids.slice(1, ids.indexOf(id)).some((other) => other < id && !freshIds.includes(other))).toBe(true);
		}
		// Stored now, published 3 hours before.
		const late = list.find((p) => p.id === lateIds[0]);
		expect(Date.parse(late.created_at) - Date.parse(late.external_created_at)).toBeGreaterThanOrEqual(3 * HOUR);
	});

	test('spec: newest stored first (by id), pinned posts where they fall; setPostOrder overrides the shape', async () => {
		h.fake.control.setShapes('spec');
		const { list, pinnedId, lateIds } = await listedAfterLateSync();
		const ids = list.map((p) => p.id);
		expect([...ids].sort((a, b) => b - a)).toEqual(ids);
		expect(ids.slice(0, 2)).toEqual([...lateIds].sort((a, b) => b - a));
		expect(ids.at(-1)).toBe(pinnedId);
		h.fake.control.setPostOrder('pinnedThenPlatform');
		expect((await allPosts(2))[0].id).toBe(pinnedId);
		h.fake.control.setPostOrder(null);
		expect((await allPosts(2))[0].id).toBe(Math.max(...ids));
	});
});

describe('feed sync', () => {
	test('control.syncFeed adds newest posts', async () => {
		const r = h.fake.control.syncFeed(2, { newPosts: 3 });
		expect(r.posts).toHaveLength(3);
		const list = await h.api.get('/feeds/2/posts', { query: { per_page: 3 } });
		expect(list.body.data.map((p: any) => p.id).sort()).toEqual(r.posts.map((p) => p.id).sort());
		expect(list.body.meta.total_count).toBe(63);
	});

	test('autoSync: feeds sync on the clock by their sync_interval', async () => {
		const auto = await start({ autoSync: { postsPerSync: 2 }, clock: { mode: 'frozen' } });
		try {
			const count = async (feed: number) => {
				const r = await fetch(`${auto.url}/feeds/${feed}`, { headers: { Authorization: `Bearer ${KEYS.owner}` } });
				return ((await r.json()) as any).data.posts_count as number;
			};
			expect(await count(2)).toBe(60);
			auto.control.clock.advance(31 * 60_000); // feed 2 syncs every 30 minutes, feed 1 every 60
			expect(await count(2)).toBe(62);
			expect(await count(1)).toBe(120);
			await auto.control.webhooks.settle();
			expect(auto.control.webhooks.deliveries({ webhookId: SEEDED.webhooks.acmeActive }).length).toBeGreaterThan(0);
		} finally {
			await auto.close();
		}
	});

	test("mix 'moderated': the posts of a sync wait for review, listed only once approved", async () => {
		const { posts } = h.fake.control.syncFeed(2, { newPosts: 3, mix: 'moderated' });
		expect(posts.every((p) => p.moderation_status === 'moderated')).toBe(true);
		const listed = async () => (await allPosts(2, { status: 'public' })).map((p) => p.id);
		expect(await listed()).not.toContain(posts[0].id);
		await h.api.post(`/feeds/2/posts/${posts[0].id}/approve`);
		expect(await listed()).toContain(posts[0].id);
	});
});

describe('post changes after the Nth request of a route (a list that moves while it is read)', () => {
	test('the change is made right after the Nth matching request is answered, once, for the query asked', async () => {
		const pinned = (await h.api.get('/feeds/2/posts', { query: { page: 1, per_page: 10 } })).body.data[5].id;
		h.fake.control.setPinned(pinned, true);
		const page1 = await h.api.get('/feeds/2/posts', { query: { page: 1, per_page: 10 } });
		const ids = page1.body.data.map((p: any) => p.id);
		h.fake.control.postChanges.add({ path: '/feeds/:id/posts', query: { page: '1' }, afterRequests: 2, action: 'delete', postIds: ids.slice(0, 3).filter((id: number) => id !== pinned) });
		h.fake.control.postChanges.add({ path: '/feeds/:id/posts', afterRequests: 2, action: 'unpin', postIds: [pinned] });
		const again = await h.api.get('/feeds/2/posts', { query: { page: 1, per_page: 10 } });
		expect(again.body.data.map((p: any) => p.id)).toEqual(ids);
		// The second page-1 request is answered in full; the posts are gone right after it.
		expect((await h.api.get('/feeds/2/posts', { query: { page: 1, per_page: 10 } })).body.data.map((p: any) => p.id)).toEqual(ids);
		expect(h.fake.control.getPost(ids.find((id: number) => id !== pinned))).toMatchObject({ deleted: true });
		expect(h.fake.control.getPost(pinned)).toMatchObject({ pinned: false });
		expect(h.fake.control.postChanges.list()).toEqual([]);
		const after = await h.api.get('/feeds/2/posts', { query: { page: 1, per_page: 10 } });
		expect(after.body.data.map((p: any) => p.id)).toEqual(expect.not.arrayContaining(ids.slice(0, 3).filter((id: number) => id !== pinned)));
	});

	test('reject, moderate and approve; an unknown action is refused', async () => {
		const [p] = (await h.api.get('/feeds/2/posts', { query: { per_page: 1 } })).body.data;
		h.fake.control.postChanges.add({ path: '/feeds/:id', action: 'reject', postIds: [p.id] });
		await h.api.get('/feeds/2');
		expect(h.fake.control.getPost(p.id)).toMatchObject({ moderation_status: 'rejected' });
		h.fake.control.postChanges.add({ path: '/feeds/:id', action: 'approve', postIds: [p.id] });
		await h.api.get('/feeds/2');
		expect(h.fake.control.getPost(p.id)).toMatchObject({ moderation_status: 'public' });
		expect(() => h.fake.control.postChanges.add({ path: '/feeds', action: 'explode' as never, postIds: [] })).toThrow(/action must be one of/);
	});
});
