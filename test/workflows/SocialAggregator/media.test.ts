/**
 * Post › Download Media run in-process against the fake, which serves the media on loopback (so these runs allow
 * private network hosts, unless a test says otherwise): one item per medium with its file in the chosen binary
 * field (the bytes the fake serves, named and typed from those bytes), pairedItem kept; a medium that cannot be
 * fetched is an error naming the post and the URL, an error item with Continue On Fail while the other media
 * still come; no media request carries the API key; as an agent's tool, JSON only. With private hosts off (the
 * default), loopback media are refused before any request, also by a name n8n's lookup resolves; a host that
 * trickles is cut at Time Limit per File, and stopping the execution stops a download at once.
 */
import { createServer } from 'https';
import type { AddressInfo } from 'net';

import { OutboundHttp } from '@n8n/backend-network';
import { BinaryDataService } from 'n8n-core';
import { Container } from '@n8n/di';
import { DirectoryLoader, RoutingNode, type ExecuteContext } from 'n8n-core';
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeType } from 'n8n-workflow';

import { SEEDED } from '../../fake-service';
import { SocialAggregator } from '../../../nodes/SocialAggregator/SocialAggregator.node';
import { mediaRequest } from '../../../nodes/SocialAggregator/common/media/mediaUrl';
import { runWorkflow, setUpEngine } from '../harness';
import { credentialsFor, FAKE_OPTIONS, runOneNode, useFakeService, type NodeUnderTest } from '../support';
import { feed, NODE, NODE_TYPE, runNode, workflow } from './helpers';

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

/** Post › Download Media of a post; the fake's media are on this machine, so private hosts are allowed unless `more` says otherwise. */
const download = (post: number | string, more: Record<string, unknown> = {}) => {
	const { downloadOptions, ...rest } = more;
	return {
		resource: 'post',
		operation: 'downloadMedia',
		feedId: feed(FEED),
		postId: { __rl: true, mode: 'id', value: String(post) },
		downloadOptions: { allowPrivateNetwork: true, ...(downloadOptions as object | undefined) },
		...rest,
	};
};

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** The bytes n8n keeps for a binary field (in memory in these tests, as base64). */
async function bytesOf(binary: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

const mediaLog = () => fake.control.media.requests();

test('all media of a post: one item per medium, each file in `data` with the bytes the fake serves, named and typed from them', async () => {
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

	test('Allow Private Network Hosts on: a loopback redirect is followed, a loop ends after 5 redirects', async () => {
		const post = await withImages();
		const [first, second] = post.media;
		fake.control.media.set(first.url, { redirectTo: second.url });
		const followed = await runNode(fake, download(post.id, { media: 'first' }));
		const [item] = followed.result.output(NODE);
		expect((await bytesOf(item.binary!.data)).equals(fake.control.media.file(second.url).bytes)).toBe(true);
		expect(item.binary!.data.fileName).toBe(second.url.split('/').pop());
		expect(mediaLog().map((r) => r.path)).toEqual([new URL(first.url).pathname, new URL(second.url).pathname]);

		fake.control.media.set(second.url, { redirectTo: first.url });
		const loop = await runNode(fake, download(post.id, { media: 'first' }));
		expect(loop.error?.message).toMatch(/: more than 5 redirects$/);
	});

	test('a web page in place of an image is an error item saying so, whatever its Content-Type', async () => {
		const post = await withImages();
		const url = post.media[0].url;
		fake.control.media.set(url, { body: '<!DOCTYPE html><html><title>Sign in</title></html>' });
		const run = await runNode(fake, download(post.id, { media: 'first' }), { onError: 'continueRegularOutput' });
		const [item] = run.result.output(NODE);
		expect(item.json.error).toBe(
			`Could not download image 1 of post ${post.id} from ${url}: the file is not an image or a video: its bytes look like HTML (a web page)`,
		);
		expect(item.binary).toBeUndefined();
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

test('no Content-Type, or a wrong one: the MIME type and the extension from the bytes', async () => {
	const post = await withVideo();
	const [video] = ofType(post, 'video');
	fake.control.media.set(video.url, { contentType: null });
	const run = await runNode(fake, download(post.id, { media: 'videos' }));
	expect(run.result.output(NODE)[0].binary!.data.mimeType).toBe('video/mp4');
	fake.control.media.set(video.url, { contentType: 'text/html' });
	const html = await runNode(fake, download(post.id, { media: 'videos' }));
	expect(html.result.output(NODE)[0].binary!.data).toMatchObject({ mimeType: 'video/mp4', fileName: video.url.split('/').pop() });
});

describe('Allow Private Network Hosts off (the default): media on this machine are refused before any request', () => {
	const off = (post: number, more: Record<string, unknown> = {}) => download(post, { ...more, downloadOptions: { allowPrivateNetwork: false } });

	test('every loopback medium and the avatar is an error item naming the post, the URL and why; the fake sees no media request', async () => {
		const post = await withImages();
		const run = await runNode(fake, off(post.id, { includeAvatar: true }), { onError: 'continueRegularOutput' });
		const items = run.result.output(NODE);
		expect(items).toHaveLength(post.media.length + 1);
		const urls = [...post.media.map((m) => m.url), post.poster.image];
		const labels = [...post.media.map((m, i) => `${m.type} ${i + 1}`), 'the poster’s avatar'];
		expect(items.map((item) => item.json.error)).toEqual(
			urls.map((url, i) => `Could not download ${labels[i]} of post ${post.id} from ${url}: its address 127.0.0.1 is a loopback address (this machine)`),
		);
		expect(String((items[0].json.details as IDataObject).description)).toMatch(/turn on "Allow Private Network Hosts" under Options/);
		expect(items.every((item) => item.binary === undefined)).toBe(true);
		expect(mediaLog()).toEqual([]);
	});

	test('a host name n8n’s lookup resolves to this machine, the cloud metadata address, plain http: refused, nothing sent', async () => {
		const post = await withImages();
		const { port } = new URL(post.media[0].url);
		const media = [
			{ type: 'image', url: `https://localhost:${port}/media/a.jpg` },
			{ type: 'image', url: 'https://169.254.169.254/latest/meta-data/iam/security-credentials/' },
			{ type: 'image', url: 'https://[::ffff:127.0.0.1]/media/a.jpg' },
			{ type: 'image', url: 'http://cdn.example/a.jpg' },
		];
		fake.control.answers.add({ path: `/feeds/${FEED}/posts/${post.id}`, body: { data: { ...post, media } } });
		const run = await runNode(fake, off(post.id), { onError: 'continueRegularOutput' });
		const errors = run.result.output(NODE).map((item) => String(item.json.error));
		const from = (i: number) => `Could not download image ${i + 1} of post ${post.id} from ${media[i].url}: `;
		expect(errors[0].startsWith(from(0))).toBe(true);
		expect(errors[0].slice(from(0).length)).toMatch(/^its host resolves to (127\.0\.0\.1|::1), a loopback address \(this machine\)$/);
		expect(errors.slice(1)).toEqual([
			`${from(1)}its address 169.254.169.254 is a link-local address`,
			`${from(2)}its address ::ffff:7f00:1 is a loopback address (this machine), as IPv4 127.0.0.1`,
			`${from(3)}its URL uses plain http; media are fetched over https only`,
		]);
		expect(mediaLog()).toEqual([]);
	});
});

/**
 * The node as n8n hands it to its engine: n8n's NodeTypes gives a declarative node an execute() that runs its
 * routing (n8n's node-types.js), and that context carries the execution's cancel signal; the engine's own path for
 * a node without execute() gives none.
 */
function runAsN8nDoes(): SocialAggregator {
	const node = new SocialAggregator();
	DirectoryLoader.applyDeclarativeNodeOptionParameters(node);
	(node as INodeType).execute = async function (this: IExecuteFunctions) {
		return (await new RoutingNode(this as ExecuteContext, node).runNode()) ?? [];
	};
	return node;
}

describe('bounded downloads', () => {
	test('a host that sends a byte every 0.3 s is cut at Time Limit per File (2 s, ±10%), and its connection is closed', async () => {
		const post = await withImages();
		const url = post.media[0].url;
		fake.control.media.set(url, { trickleMs: 300 });
		const run = await runNode(fake, download(post.id, { media: 'first', downloadOptions: { timeLimit: 2 } }));
		const ended = Date.now();
		expect(run.error?.message).toBe(`Could not download image 1 of post ${post.id} from ${url}: it took longer than 2 s, the Time Limit per File`);
		expect(run.error?.description).toMatch(/Raise "Time Limit per File \(Seconds\)" under Options/);
		// From the media request to the run's end, and to its connection closed (the fake sees it a moment later): the bound, give or take 10%.
		for (let waited = 0; mediaLog()[0].closedAt === undefined && waited < 500; waited += 20) await sleep(20);
		const [request] = mediaLog();
		expect(request.closedAt! - request.receivedAt).toBeGreaterThanOrEqual(1800);
		expect(request.closedAt! - request.receivedAt).toBeLessThanOrEqual(2200);
		expect(ended - request.receivedAt).toBeLessThanOrEqual(2200);
		expect(request.open).toBe(false);
		expect(request.bytesSent).toBeLessThanOrEqual(8);
		await sleep(400);
		expect(mediaLog()[0].bytesSent).toBe(request.bytesSent);
	});

	test('stopping the execution stops a download within 2 s: the read ends and the connection closes', async () => {
		const post = await withImages();
		const url = post.media[0].url;
		fake.control.media.set(url, { trickleMs: 300 });
		const node = runAsN8nDoes();
		const cancel = new AbortController();
		const running = runWorkflow(workflow(download(post.id, { media: 'first' })), {
			nodeTypes: { [NODE_TYPE]: node },
			credentials: credentialsFor(fake),
			cancelSignal: cancel.signal,
		});
		// Stop once the file is being read.
		for (let waited = 0; mediaLog()[0]?.bytesSent === undefined || mediaLog()[0].bytesSent < 2; waited += 50) {
			if (waited > 5000) throw new Error('the download never started');
			await sleep(50);
		}
		const stoppedAt = Date.now();
		cancel.abort();
		const result = await running;
		const ended = Date.now() - stoppedAt;
		while (mediaLog()[0].open && Date.now() - stoppedAt < 3000) await sleep(20);
		const closed = Date.now() - stoppedAt;
		expect(ended).toBeLessThan(2000);
		expect(closed).toBeLessThan(2000);
		expect(mediaLog()[0].open).toBe(false);
		expect(result.error(NODE)?.message).toBe(`Could not download image 1 of post ${post.id} from ${url}: the execution was stopped`);
	});
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

describe('a request sent to the checked address, through n8n’s own HTTP stack', () => {
	// A certificate for media.test alone (its own issuer, valid until 2126), for a host on this machine.
	const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgGGxNxsZ3d/i0vFB/
Dg8hZFreC6ruZYzU7AKubYZELmahRANCAATg0mXZe53zd33M1GxFyysfde2Xk3c8
OQNWPbO14Sd0NGAWsoAcmQdTcAbHTdCWETKUaq7mZqqjnZV+IcpuL02A
-----END PRIVATE KEY-----`;
	const CERT = `-----BEGIN CERTIFICATE-----
MIIBmDCCAT6gAwIBAgIUQJDseFNB149C/ueCuLIW8DSsHdIwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKbWVkaWEudGVzdDAgFw0yNjExMjcwODQ5NTVaGA8yMTI2MTEw
MzA4NDk1NVowFTETMBEGA1UEAwwKbWVkaWEudGVzdDBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABODSZdl7nfN3fczUbEXLKx917ZeTdzw5A1Y9s7XhJ3Q0YBaygByZ
B1NwBsdN0JYRMpRqruZmqqOdlX4hym4vTYCjajBoMB0GA1UdDgQWBBRZ4E302Xy1
kmMIsNSnXBT636z+OTAfBgNVHSMEGDAWgBRZ4E302Xy1kmMIsNSnXBT636z+OTAV
BgNVHREEDjAMggptZWRpYS50ZXN0MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0E
AwIDSAAwRQIhAI7v/FN1nMlmB4X7xlMkfRa2XwkijevJS3KR95tQhUYWAiB/wEvp
bl3ncbnzinudavISHYJaqL10qGo9ZUFvok7f3A==
-----END CERTIFICATE-----`;

	test('the connection goes to the address; the host is asked for by name, and TLS checks the certificate against that name', async () => {
		setUpEngine();
		const seen: Array<{ host?: string; servername: string | false }> = [];
		const server = createServer({ key: KEY, cert: CERT }, (req, res) => {
			seen.push({ host: req.headers.host, servername: (req.socket as unknown as { servername: string | false }).servername });
			res.writeHead(200, { 'Content-Type': 'image/jpeg' });
			res.end(Buffer.from('ffd8ffe0', 'hex'));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		const send = async (servername: string) => {
			const request = mediaRequest(
				{ url: `https://media.test:${port}/a.jpg`, target: `https://127.0.0.1:${port}/a.jpg`, host: `media.test:${port}`, servername, checkRemote: false },
				5000,
			);
			// The test's certificate is trusted here; a real host's is checked against n8n's usual authorities.
			request.agentOptions = { ...request.agentOptions, ca: CERT };
			request.encoding = 'arraybuffer';
			return await Container.get(OutboundHttp).requests().request(request);
		};
		try {
			const answer = (await send('media.test')) as { statusCode: number; body: Buffer };
			expect(answer.statusCode).toBe(200);
			expect(seen).toEqual([{ host: `media.test:${port}`, servername: 'media.test' }]);
			await expect(send('other.test')).rejects.toThrow(/altnames|does not match/i);
			expect(seen).toHaveLength(1);
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	});
});
