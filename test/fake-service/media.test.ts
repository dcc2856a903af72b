/**
 * Media on loopback: off by default (the made-up CDN URLs stay), on by a switch (answers point at the
 * fake, which serves deterministic JPEG and MP4 bytes with their Content-Type), overrides for broken
 * media, and a log of media requests that says whether one carried an API key.
 */
import { request } from 'http';

import { SEEDED } from './seed';
import { start } from './server';
import { useHarness } from './helpers';

const h = useHarness();

const mediaUrls = (post: any): string[] => [post.poster.image, ...post.media.map((m: any) => m.url), ...post.media.map((m: any) => m.preview_image_url)];

async function posts(feedId = SEEDED.feeds.brandMentions): Promise<any[]> {
	const r = await h.api.get(`/feeds/${feedId}/posts`, { query: { per_page: 100 } });
	expect(r.status).toBe(200);
	return r.body.data;
}

async function fetchBytes(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; bytes: Buffer }> {
	const r = await fetch(url, { headers, redirect: 'manual' });
	return { status: r.status, type: r.headers.get('content-type'), bytes: Buffer.from(await r.arrayBuffer()) };
}

const withVideo = (list: any[]) => list.find((p) => p.media.some((m: any) => m.type === 'video'));
const withImage = (list: any[]) => list.find((p) => p.media.some((m: any) => m.type === 'image'));

test('off by default: media and avatar URLs stay on their https CDN hosts', async () => {
	const list = await posts();
	const urls = list.flatMap(mediaUrls);
	expect(urls.length).toBeGreaterThan(50);
	for (const url of urls) expect(url).toMatch(/^https:\/\/(?!127\.0\.0\.1)[a-z0-9.-]+\/(media|avatars)\//);
});

test('on: every media URL of a post (image, video, preview, avatar) points at the fake, the rest of the answer unchanged', async () => {
	const before = await posts();
	h.fake.control.media.serve(true);
	const after = await posts();
	expect(after.map((p) => p.id)).toEqual(before.map((p) => p.id));
	for (const post of after) for (const url of mediaUrls(post)) expect(url.startsWith(`${h.fake.origin}/media/`)).toBe(true);
	// Only the media URLs changed (of referenced and reshared posts too); post and profile URLs did not.
	const moved = JSON.stringify(before).replace(/https:\/\/[a-z0-9.-]+\/(media|avatars)\/([^"]+)/g, (_, kind: string, name: string) =>
		`${h.fake.origin}/media/${kind === 'avatars' ? 'avatars/' : ''}${name}`,
	);
	expect(JSON.parse(moved)).toEqual(after);
	expect(after[0].poster.url).toBe(before[0].poster.url);
	// A single post and a cross-feed search too.
	const one = await h.api.get(`/feeds/${SEEDED.feeds.brandMentions}/posts/${after[0].id}`);
	expect(mediaUrls(one.body.data)).toEqual(mediaUrls(after[0]));
	const found = await h.api.get('/search/posts', { query: { q: 'acme' } });
	for (const url of found.body.data.flatMap(mediaUrls)) expect(url.startsWith(`${h.fake.origin}/media/`)).toBe(true);
});

test('serves a JPEG for an image and an MP4 for a video, the same bytes each time, as control.media.file says', async () => {
	h.fake.control.media.serve(true);
	const list = await posts();
	const image = withImage(list).media.find((m: any) => m.type === 'image').url;
	const video = withVideo(list).media.find((m: any) => m.type === 'video').url;
	const jpeg = await fetchBytes(image);
	expect(jpeg).toMatchObject({ status: 200, type: 'image/jpeg' });
	expect(jpeg.bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
	expect(jpeg.bytes.subarray(-2).toString('hex')).toBe('ffd9');
	expect(jpeg.bytes.equals(h.fake.control.media.file(image).bytes)).toBe(true);
	expect((await fetchBytes(image)).bytes.equals(jpeg.bytes)).toBe(true);
	const mp4 = await fetchBytes(video);
	expect(mp4).toMatchObject({ status: 200, type: 'video/mp4' });
	expect(mp4.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
	expect(mp4.bytes.equals(h.fake.control.media.file(video).bytes)).toBe(true);
	expect(mp4.bytes.equals(jpeg.bytes)).toBe(false);
	const avatar = await fetchBytes(list[0].poster.image);
	expect(avatar.type).toBe('image/jpeg');
	// The file of a name does not depend on whether serving is on: the CDN URL names the same file.
	h.fake.control.media.serve(false);
	const cdn = (await posts()).find((p) => p.id === withImage(list).id).media.find((m: any) => m.type === 'image').url;
	expect(h.fake.control.media.file(cdn).bytes.equals(jpeg.bytes)).toBe(true);
});

test('a medium made to fail: 404, a reset connection, a redirect, no Content-Type, another size', async () => {
	h.fake.control.media.serve(true);
	const [a, b, c, d, e] = ['x1_0.jpg', 'x2_0.jpg', 'x3_0.jpg', 'x4_0.mp4', 'x5_0.jpg'].map((name) => `${h.fake.origin}/media/${name}`);
	h.fake.control.media.set(a, { status: 404 });
	h.fake.control.media.set('x2_0.jpg', { reset: true });
	h.fake.control.media.set(c, { redirectTo: 'http://example.com/elsewhere.jpg' });
	h.fake.control.media.set(d, { contentType: null });
	h.fake.control.media.set(e, { size: 100_000 });
	expect((await fetchBytes(a)).status).toBe(404);
	await expect(fetchBytes(b)).rejects.toThrow();
	const moved = await fetch(c, { redirect: 'manual' });
	expect([moved.status, moved.headers.get('location')]).toEqual([302, 'http://example.com/elsewhere.jpg']);
	const untyped = await fetchBytes(d);
	expect([untyped.status, untyped.type, untyped.bytes.subarray(4, 8).toString('latin1')]).toEqual([200, null, 'ftyp']);
	const big = await fetchBytes(e);
	expect(big.bytes.length).toBe(100_000);
	expect(big.bytes.equals(h.fake.control.media.file(e).bytes)).toBe(true);
	expect((await fetchBytes(`${h.fake.origin}/media/readme.txt`)).status).toBe(404);
});

test('other bytes in place of the file, and a file sent a byte at a time until the client leaves', async () => {
	h.fake.control.media.serve(true);
	const [page, slow] = ['p1_0.jpg', 'p2_0.jpg'].map((name) => `${h.fake.origin}/media/${name}`);
	h.fake.control.media.set(page, { body: '<!doctype html><title>Sign in</title>' });
	const html = await fetchBytes(page);
	expect([html.status, html.type, html.bytes.toString()]).toEqual([200, 'image/jpeg', '<!doctype html><title>Sign in</title>']);
	expect(h.fake.control.media.file(page).bytes.toString()).toBe('<!doctype html><title>Sign in</title>');

	h.fake.control.media.set(slow, { trickleMs: 40 });
	const reader = new AbortController();
	const answer = await fetch(slow, { signal: reader.signal });
	expect([answer.status, answer.headers.get('content-length')]).toEqual([200, null]);
	const stream = answer.body!.getReader();
	const received: number[] = [];
	const started = Date.now();
	while (received.length < 5) {
		const { value } = await stream.read();
		received.push(...(value ?? []));
	}
	// Five bytes, one at a time: no sooner than four intervals after the first.
	expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 40 - 15);
	expect(Buffer.from(received.slice(0, 5)).equals(h.fake.control.media.file(slow).bytes.subarray(0, 5))).toBe(true);
	const [logged] = h.fake.control.media.requests().filter((r) => r.path === '/media/p2_0.jpg');
	expect(logged.open).toBe(true);
	reader.abort();
	await new Promise((resolve) => setTimeout(resolve, 200));
	const [left] = h.fake.control.media.requests().filter((r) => r.path === '/media/p2_0.jpg');
	expect(left.open).toBe(false);
	expect(left.closedAt).toBeGreaterThanOrEqual(left.receivedAt + 4 * 40 - 15);
	const sent = left.bytesSent;
	await new Promise((resolve) => setTimeout(resolve, 200));
	expect(h.fake.control.media.requests().find((r) => r.path === '/media/p2_0.jpg')?.bytesSent).toBe(sent);
	expect(h.fake.control.media.requests().find((r) => r.path === '/media/p1_0.jpg')).toMatchObject({ bytesSent: '<!doctype html><title>Sign in</title>'.length, open: false });
});

test('the media log: every request with its header names and whether it carried an API key; a reset clears it and serving', async () => {
	h.fake.control.media.serve(true);
	const url = `${h.fake.origin}/media/tw1_0.jpg`;
	await fetchBytes(url);
	await fetchBytes(url, { Authorization: `Bearer ${h.fake.control.keys.freeOwner}` });
	await fetchBytes(`${url}?key=${h.fake.control.keys.owner}`);
	const log = h.fake.control.media.requests();
	expect(log.map((r) => [r.path, r.status, r.carriedApiKey])).toEqual([
		['/media/tw1_0.jpg', 200, false],
		['/media/tw1_0.jpg', 200, true],
		['/media/tw1_0.jpg', 200, true],
	]);
	expect(log[0].headers).not.toContain('authorization');
	expect(log[1].headers).toContain('authorization');
	h.fake.control.reset();
	expect(h.fake.control.media.requests()).toEqual([]);
	expect(mediaUrls((await posts())[0])[0]).toMatch(/^https:/);
});

test('over HTTP: /_control/media/serve, /media/set, /media/requests, DELETE /media', async () => {
	expect((await h.origin.post('/_control/media/serve', { on: 'yes' })).status).toBe(400);
	expect((await h.origin.post('/_control/media/serve', { on: true })).status).toBe(200);
	expect(mediaUrls((await posts())[0])[0].startsWith(`${h.fake.origin}/media/`)).toBe(true);
	expect((await h.origin.post('/_control/media/set', { name: 'y_0.jpg', status: 410 })).status).toBe(200);
	expect((await fetchBytes(`${h.fake.origin}/media/y_0.jpg`)).status).toBe(410);
	const logged = await h.origin.get('/_control/media/requests');
	expect(logged.body.result.map((r: any) => [r.path, r.status])).toEqual([['/media/y_0.jpg', 410]]);
	expect((await h.origin.delete('/_control/media')).status).toBe(200);
	expect((await fetchBytes(`${h.fake.origin}/media/y_0.jpg`)).status).toBe(200);
});

test('start({ serveMedia: true }) serves from the start and after a reset', async () => {
	const fake = await start({ serveMedia: true });
	try {
		const url = async () => {
			const r = await fetch(`${fake.url}/feeds/1/posts?per_page=1`, { headers: { Authorization: `Bearer ${fake.apiKey}` } });
			return ((await r.json()) as any).data[0].poster.image as string;
		};
		expect((await url()).startsWith(`${fake.origin}/media/`)).toBe(true);
		fake.control.reset();
		expect((await url()).startsWith(`${fake.origin}/media/`)).toBe(true);
		// Plain node http as well as fetch: a reset medium ends the connection without an answer.
		fake.control.media.set('z_0.jpg', { reset: true });
		await expect(
			new Promise((resolve, reject) => request(`${fake.origin}/media/z_0.jpg`, resolve).on('error', reject).end()),
		).rejects.toThrow(/socket hang up|ECONNRESET/);
	} finally {
		await fake.close();
	}
});
