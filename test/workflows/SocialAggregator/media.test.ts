/**
 * Post › Download Media run in-process against the fake, which serves the media on loopback: one item per
 * medium with its file in the chosen binary field (the bytes the fake serves, named and typed from the
 * answer), pairedItem kept; a medium that cannot be fetched is an error naming the post and the URL, an
 * error item with Continue On Fail while the other media still come; no media request carries the API key;
 * as an agent's tool, JSON only.
 */
import { BinaryDataService } from 'n8n-core';
import { Container } from '@n8n/di';
import { DirectoryLoader } from 'n8n-core';
import type { IBinaryData, IDataObject } from 'n8n-workflow';

import { SEEDED } from '../../fake-service';
import { SocialAggregator } from '../../../nodes/SocialAggregator/SocialAggregator.node';
import { FAKE_OPTIONS, runOneNode, useFakeService, type NodeUnderTest } from '../support';
import { feed, NODE, runNode } from './helpers';

const fake = useFakeService({ ...FAKE_OPTIONS, serveMedia: true });

const FEED = SEEDED.feeds.brandMentions;

interface Post {
	id: number;
	media: Array<{ type: string; url: string }>;
	poster: { image: string };
}

/** The feed's posts as the service answers them (media URLs on the fake). */
async function posts(): Promise<Post[]> {
	const answer = await fetch(`${fake.url}/feeds/${FEED}/posts?per_page=100`, { headers: { Authorization: `Bearer ${fake.control.keys.owner}` } });
	return ((await answer.json()) as { data: Post[] }).data;
}

const find = async (test: (post: Post) => boolean, what: string): Promise<Post> => {
	const post = (await posts()).find(test);
	if (!post) throw new Error(`the seeded feed has no ${what}`);
	return post;
};
const ofType = (post: Post, type: string) => post.media.filter((m) => m.type === type);
const withImages = async () => await find((p) => ofType(p, 'image').length >= 2, 'post with two images');
const withVideo = async () => await find((p) => ofType(p, 'video').length >= 1, 'post with a video');
const withoutMedia = async () => await find((p) => p.media.length === 0, 'post without media');

const download = (post: number | string, more: Record<string, unknown> = {}) => ({
	resource: 'post',
	operation: 'downloadMedia',
	feedId: feed(FEED),
	postId: { __rl: true, mode: 'id', value: String(post) },
	...more,
});

/** The bytes n8n keeps for a binary field (in memory in these tests, as base64). */
async function bytesOf(binary: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

const mediaLog = () => fake.control.media.requests();

test('all media of a post: one item per medium, each file in `data` with the bytes the fake serves, named and typed from the answer', async () => {
	const post = await withImages();
	const run = await runNode(fake, download(post.id));
	expect(run.error).toBeUndefined();
	const items = run.result.output(NODE);
	expect(items).toHaveLength(post.media.length);
	for (const [index, item] of items.entries()) {
		const medium = post.media[index];
		const served = fake.control.media.file(medium.url);
		const binary = item.binary!.data;
		expect((await bytesOf(binary)).equals(served.bytes)).toBe(true);
		expect(binary.mimeType).toBe(served.contentType);
		expect(binary.fileName).toBe(medium.url.split('/').pop());
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.json.id).toBe(post.id);
		expect(item.json.medium).toEqual({ ...medium, index });
	}
	// The post came through the service's transport once; each medium once, without the API key or any Authorization.
	expect(run.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /feeds/${FEED}/posts/${post.id}`]);
	expect(mediaLog().map((r) => r.path)).toEqual(post.media.map((m) => new URL(m.url).pathname));
	for (const request of mediaLog()) {
		expect(request.carriedApiKey).toBe(false);
		expect(request.headers).not.toContain('authorization');
	}
	expect(run.result.dump()).not.toContain(fake.control.keys.owner);
});

test('Videos Only: a video/mp4 file; Images Only and First Medium Only choose from the same post', async () => {
	const post = await withVideo();
	const [video] = ofType(post, 'video');
	const run = await runNode(fake, download(post.id, { media: 'videos' }));
	const items = run.result.output(NODE);
	expect(items.map((item) => (item.json.medium as IDataObject).url)).toEqual([video.url]);
	const binary = items[0].binary!.data;
	expect(binary.mimeType).toBe('video/mp4');
	expect((await bytesOf(binary)).equals(fake.control.media.file(video.url).bytes)).toBe(true);

	const images = await withImages();
	const onlyImages = await runNode(fake, download(images.id, { media: 'images' }));
	expect(onlyImages.result.output(NODE).map((item) => (item.json.medium as IDataObject).url)).toEqual(ofType(images, 'image').map((m) => m.url));
	const first = await runNode(fake, download(images.id, { media: 'first' }));
	expect(first.result.output(NODE).map((item) => (item.json.medium as IDataObject).index)).toEqual([0]);
});

test('the poster’s avatar as the last file; another field name; Simplify off gives the post as answered', async () => {
	const post = await withImages();
	const run = await runNode(fake, download(post.id, { media: 'first', includeAvatar: true, binaryPropertyName: 'photo', simplify: false }));
	const items = run.result.output(NODE);
	expect(items.map((item) => item.json.medium)).toEqual([
		{ ...post.media[0], index: 0 },
		{ url: post.poster.image, type: 'avatar', index: null },
	]);
	for (const item of items) expect(Object.keys(item.binary ?? {})).toEqual(['photo']);
	expect((await bytesOf(items[1].binary!.photo)).equals(fake.control.media.file(post.poster.image).bytes)).toBe(true);
	expect(items[0].json).toHaveProperty('external_id');
	expect(items[0].json).toHaveProperty('ai_sentiment');
});

test('two posts in: each medium keeps the pairedItem of its post', async () => {
	const a = await withImages();
	const b = await withVideo();
	const run = await runNode(fake, download('={{ $json.post }}', { media: 'first' }), { items: [{ post: a.id }, { post: b.id }] });
	expect(run.result.output(NODE).map((item) => [item.json.id, item.pairedItem])).toEqual([
		[a.id, { item: 0 }],
		[b.id, { item: 1 }],
	]);
});

test('a post without such media gives its item without a file', async () => {
	const post = await withoutMedia();
	const run = await runNode(fake, download(post.id));
	const items = run.result.output(NODE);
	expect(items).toHaveLength(1);
	expect(items[0].json.medium).toBeNull();
	expect(items[0].binary).toBeUndefined();
	expect(mediaLog()).toEqual([]);
});

describe('a medium that cannot be fetched', () => {
	test('a 404: the error names the post and the URL; with Continue On Fail an error item, and the other media still come', async () => {
		const post = await withImages();
		const broken = post.media[0].url;
		fake.control.media.set(broken, { status: 404 });
		const failed = await runNode(fake, download(post.id));
		expect(failed.error?.message).toBe(`Could not download image 1 of post ${post.id} from ${broken}: the media host answered 404`);

		const kept = await runNode(fake, download(post.id), { onError: 'continueRegularOutput' });
		const items = kept.result.output(NODE);
		expect(items).toHaveLength(post.media.length);
		expect(items[0].json.error).toBe(`Could not download image 1 of post ${post.id} from ${broken}: the media host answered 404`);
		expect(items[0].binary).toBeUndefined();
		expect(items[0].pairedItem).toEqual({ item: 0 });
		for (const item of items.slice(1)) expect(item.binary?.data.mimeType).toBe('image/jpeg');
	});

	test('a connection reset: an error item naming the post and the URL', async () => {
		const post = await withVideo();
		const [video] = ofType(post, 'video');
		fake.control.media.set(video.url, { reset: true });
		const run = await runNode(fake, download(post.id, { media: 'videos' }), { onError: 'continueRegularOutput' });
		const [item] = run.result.output(NODE);
		expect(item.json.error).toMatch(new RegExp(`^Could not download video \\d of post ${post.id} from ${video.url}: `));
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	test('plain http to another machine is refused before any fetch, also as a redirect target; a loopback redirect is followed', async () => {
		const post = await withImages();
		const [first, second] = post.media;
		const body = { data: { ...post, media: [{ ...first, url: 'http://cdn.example/a.jpg' }, second] } };
		fake.control.answers.add({ path: `/feeds/${FEED}/posts/${post.id}`, body });
		fake.control.media.set(second.url, { redirectTo: 'http://cdn.example/b.jpg' });
		const run = await runNode(fake, download(post.id), { onError: 'continueRegularOutput' });
		expect(run.result.output(NODE).map((item) => item.json.error)).toEqual([
			`Could not download image 1 of post ${post.id} from http://cdn.example/a.jpg: its URL uses plain http; media are fetched over https only (plain http only from this machine)`,
			`Could not download image 2 of post ${post.id} from ${second.url}: it redirects to http://cdn.example/b.jpg, and that URL uses plain http; media are fetched over https only (plain http only from this machine)`,
		]);
		expect(mediaLog().map((r) => r.path)).toEqual([new URL(second.url).pathname]);

		// A loop ends after 5 redirects.
		fake.control.media.set(second.url, { redirectTo: first.url });
		fake.control.media.set(first.url, { redirectTo: second.url });
		const loop = await runNode(fake, download(post.id, { media: 'first' }));
		expect(loop.error?.message).toMatch(/: more than 5 redirects$/);
		fake.control.media.set(second.url, {});
		const followed = await runNode(fake, download(post.id, { media: 'first' }));
		const [item] = followed.result.output(NODE);
		expect((await bytesOf(item.binary!.data)).equals(fake.control.media.file(second.url).bytes)).toBe(true);
		expect(item.binary!.data.fileName).toBe(second.url.split('/').pop());
	});

	test('a file over Max File Size (MB) is an error', async () => {
		const post = await withImages();
		const url = post.media[0].url;
		fake.control.media.set(url, { size: 3 * 1024 * 1024 });
		const run = await runNode(fake, download(post.id, { media: 'first', downloadOptions: { maxFileSize: 1 } }));
		expect(run.error?.message).toBe(`Could not download image 1 of post ${post.id} from ${url}: the file is larger than 1 MB`);
		const fits = await runNode(fake, download(post.id, { media: 'first', downloadOptions: { maxFileSize: 4 } }));
		expect((await bytesOf(fits.result.output(NODE)[0].binary!.data)).length).toBe(3 * 1024 * 1024);
	});
});

test('no Content-Type: the MIME type from the file name', async () => {
	const post = await withVideo();
	const [video] = ofType(post, 'video');
	fake.control.media.set(video.url, { contentType: null });
	const run = await runNode(fake, download(post.id, { media: 'videos' }));
	expect(run.result.output(NODE)[0].binary!.data.mimeType).toBe('video/mp4');
});

test('a medium type the spec does not show (`photo`) counts as an image', async () => {
	const post = await withImages();
	const body = { data: { ...post, media: post.media.map((m) => ({ ...m, type: 'photo' })) } };
	fake.control.answers.add({ path: `/feeds/${FEED}/posts/${post.id}`, body });
	const run = await runNode(fake, download(post.id, { media: 'images' }));
	expect(run.result.output(NODE)).toHaveLength(post.media.length);
});

test('checked before any request: an empty field name, a size of 0, an unknown Media choice', async () => {
	const post = await withImages();
	const cases: Array<[Record<string, unknown>, RegExp]> = [
		[{ binaryPropertyName: ' ' }, /^The Put Output File in Field is empty \[item 0\]$/],
		[{ downloadOptions: { maxFileSize: 0 } }, /^The Max File Size \(MB\) must be a number above 0 \[item 0\]$/],
		[{ media: '={{ "all of them" }}' }, /^The Media must be "all" or "images" or "videos" or "first", not "all of them" \[item 0\]$/],
	];
	for (const [parameters, message] of cases) {
		const run = await runNode(fake, download(post.id, parameters));
		expect(run.error?.message).toMatch(message);
		expect(run.requests).toEqual([]);
	}
	expect(mediaLog()).toEqual([]);
});

describe('as an agent’s tool', () => {
	const TOOL_TYPE = 'n8n-nodes-social-aggregator.socialAggregatorTool';
	const tool = new SocialAggregator();
	tool.description = { ...tool.description, name: 'socialAggregatorTool' };
	DirectoryLoader.applyDeclarativeNodeOptionParameters(tool);
	const node: NodeUnderTest = { name: 'Media Tool', type: TOOL_TYPE, nodeTypes: { [TOOL_TYPE]: tool } };

	test('JSON only: each chosen medium described with the simplified post, nothing fetched, no binary', async () => {
		const post = await withImages();
		const run = await runOneNode(fake, node, download(post.id, { includeAvatar: true }));
		const items = run.result.output(node.name);
		expect(items).toHaveLength(post.media.length + 1);
		for (const item of items) {
			expect(item.binary).toBeUndefined();
			expect(Object.keys(item.json)).toEqual([...Object.keys(items[0].json).filter((key) => key !== 'medium'), 'medium']);
			expect(item.json).not.toHaveProperty('external_id');
		}
		expect(items.map((item) => (item.json.medium as IDataObject).url)).toEqual([...post.media.map((m) => m.url), post.poster.image]);
		expect(mediaLog()).toEqual([]);
	});
});
