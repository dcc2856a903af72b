/**
 * The download core of Post › Download Media with the network passed in: which media; the rules for the URL and
 * every redirect (public addresses over https unless private hosts are allowed); each host name resolved and the
 * request sent to the checked address, asking for the name; without a lookup (n8n 1.x) the answering address
 * checked before anything is read; a time limit for the whole file and the execution's stop; the size cap; only
 * images and videos kept, typed and named by their bytes; errors that name the post, the medium and the URL.
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

import {
	chooseMedia,
	downloadMedium,
	MediaError,
	type ChosenMedium,
	type DownloadOptions,
	type MediaAnswer,
} from '../../../../../nodes/SocialAggregator/common/media/medium';
import { detectFileType, fileNameOf } from '../../../../../nodes/SocialAggregator/common/media/fileType';
import { mediaRequest, mediaUrlProblem, planHop, type ResolveHost } from '../../../../../nodes/SocialAggregator/common/media/mediaUrl';

/** The longest name a medium's file gets, its extension included. */
const MAX_FILE_NAME = 120;

/** The file name made of `name` as a Content-Disposition gives it, exactly. */
const safeFileName = (name: string, extension: string, fallback: string) =>
	fileNameOf(`attachment; filename*=UTF-8''${encodeURIComponent(name)}`, 'https://x.example/', extension, fallback);

const POST = {
	id: 7,
	poster: { name: 'acme', image: 'https://cdn.example/avatars/1.jpg' },
	media: [
		{ type: 'image', url: 'https://cdn.example/media/a.jpg' },
		{ type: 'video', url: 'https://cdn.example/media/b.mp4' },
		{ type: 'photo', url: 'https://cdn.example/media/c.png' },
	],
};

const urls = (chosen: ChosenMedium[]) => chosen.map((m) => m.url);

/** Leading bytes of each kept type, and of things that are not kept. */
const BYTES = {
	jpeg: Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex'),
	png: Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
	gif: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'),
	webp: Buffer.concat([Buffer.from('RIFF'), Buffer.from('1a000000', 'hex'), Buffer.from('WEBPVP8 '), Buffer.alloc(14)]),
	bmp: Buffer.concat([Buffer.from('BM'), Buffer.from('3a000000' + '00000000' + '36000000' + '28000000', 'hex'), Buffer.alloc(40)]),
	mp4: Buffer.from('00000018667479706973366d0000020069736f6d6d70343100000008' + '6d646174', 'hex'),
	mp4isom: Buffer.from('0000001c667479706d703432000000006d7034326d70343169736f6d', 'hex'),
	mov: Buffer.from('0000001466747970717420200000000071742020', 'hex'),
	m4v: Buffer.from('00000018667479704d3456200000000149534f4d4d345620', 'hex'),
	avif: Buffer.from('0000001c667479706176696600000000617669666d6966316d696166', 'hex'),
	heic: Buffer.from('00000018667479706865696300000000' + '6d69663168656963', 'hex'),
	heif: Buffer.from('00000014667479706d69663100000000' + '6d696631', 'hex'),
	webm: Buffer.from('1a45dfa39f4286810142f7810142f2810442f381084282847765626d42878104', 'hex'),
	mkv: Buffer.from('1a45dfa3a34286810142f7810142f2810442f381084282886d6174726f736b61', 'hex'),
	m4a: Buffer.from('00000020667479704d344120000000004d34412069736f6d0000000000000000', 'hex'),
	html: Buffer.from('<!DOCTYPE html>\n<html><head><title>Log in</title></head><body>…</body></html>'),
	svg: Buffer.from('<?xml version="1.0"?>\n<!-- made by hand -->\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
	js: Buffer.from('(function () { document.cookie; })();'),
	exe: Buffer.concat([Buffer.from('MZ\x90\x00', 'latin1'), Buffer.alloc(60)]),
	elf: Buffer.concat([Buffer.from('7f454c46020101', 'hex'), Buffer.alloc(20)]),
	pdf: Buffer.from('%PDF-1.7\n%âãÏÓ', 'latin1'),
	zip: Buffer.from('504b0304140000000800', 'hex'),
	json: Buffer.from('{"error":"not found"}'),
	text: Buffer.from('Not Found'),
	unknown: Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex'),
};

describe('chooseMedia', () => {
	test('all, images (any image type), videos, the first; the avatar last when asked', () => {
		expect(urls(chooseMedia(POST, 'all', false))).toEqual(POST.media.map((m) => m.url));
		expect(urls(chooseMedia(POST, 'images', false))).toEqual([POST.media[0].url, POST.media[2].url]);
		expect(chooseMedia(POST, 'videos', false).map((m) => [m.index, m.type])).toEqual([[1, 'video']]);
		expect(urls(chooseMedia(POST, 'first', true))).toEqual([POST.media[0].url, POST.poster.image]);
		expect(chooseMedia(POST, 'first', true)[1]).toEqual({ index: null, type: 'avatar', url: POST.poster.image, answered: { url: POST.poster.image } });
	});

	test('odd answers: no media list, entries that are not objects, no poster or no avatar', () => {
		expect(chooseMedia({ media: null }, 'all', true)).toEqual([]);
		expect(chooseMedia({ media: 'x', poster: { image: '' } }, 'all', true)).toEqual([]);
		expect(chooseMedia({ media: [null, 3] }, 'all', false).map((m) => [m.index, m.type, m.url])).toEqual([
			[0, '', undefined],
			[1, '', undefined],
		]);
		expect(chooseMedia({ media: [{ type: 5, url: 'https://x.example/a' }] }, 'images', false)).toEqual([]);
	});
});

describe('mediaUrlProblem: https to a public address or a host name; anything with Allow Private Network Hosts', () => {
	test.each(['https://cdn.example/a.jpg', 'https://8.8.8.8/a.jpg', 'https://[2606:4700::1]/a.jpg', 'https://pbs.twimg.com:8443/a.jpg'])(
		'%s may be fetched (a host name is checked once resolved)',
		(url) => {
			expect(mediaUrlProblem(url)).toBeUndefined();
		},
	);

	test.each([
		['http://cdn.example/a.jpg', 'its URL uses plain http; media are fetched over https only'],
		['http://127.0.0.1:4010/media/a.jpg', 'its address 127.0.0.1 is a loopback address (this machine)'],
		['https://127.0.0.1/a.jpg', 'its address 127.0.0.1 is a loopback address (this machine)'],
		['https://2130706433/a.jpg', 'its address 127.0.0.1 is a loopback address (this machine)'],
		['https://0x7f.1/a.jpg', 'its address 127.0.0.1 is a loopback address (this machine)'],
		['https://017700000001/a.jpg', 'its address 127.0.0.1 is a loopback address (this machine)'],
		['https://127.1/a.jpg', 'its address 127.0.0.1 is a loopback address (this machine)'],
		['https://[::1]/a.jpg', 'its address ::1 is a loopback address (this machine)'],
		['https://[::ffff:127.0.0.1]/a.jpg', 'its address ::ffff:7f00:1 is a loopback address (this machine), as IPv4 127.0.0.1'],
		['https://10.0.0.7/a.jpg', 'its address 10.0.0.7 is a private address'],
		['https://172.16.3.4/a.jpg', 'its address 172.16.3.4 is a private address'],
		['https://192.168.0.1/a.jpg', 'its address 192.168.0.1 is a private address'],
		['https://169.254.169.254/latest/meta-data/', 'its address 169.254.169.254 is a link-local address'],
		['https://100.64.0.1/a.jpg', 'its address 100.64.0.1 is a shared address (carrier-grade NAT)'],
		['https://0.0.0.0/a.jpg', 'its address 0.0.0.0 is an unspecified address'],
		['https://[fd00::1]/a.jpg', 'its address fd00::1 is a unique local address (private)'],
		['https://[fe80::1]/a.jpg', 'its address fe80::1 is a link-local address'],
		['https://[fe80::1%25eth0]/a.jpg', 'its URL is not a web address'],
		['ftp://cdn.example/a.jpg', 'its URL is not an https address (ftp:)'],
		['file:///etc/passwd', 'its URL is not an https address (file:)'],
		['cdn.example/a.jpg', 'its URL is not a web address'],
		['', 'it has no URL'],
		[undefined, 'it has no URL'],
		[42, 'it has no URL'],
		['https://user:secret@cdn.example/a.jpg', 'its URL carries a user name or password'],
	])('%s is refused: %s', (url, reason) => {
		expect(mediaUrlProblem(url)).toBe(reason);
	});

	test('Allow Private Network Hosts opens private addresses and plain http, not other schemes or user names', () => {
		for (const url of ['http://127.0.0.1:4010/media/a.jpg', 'https://10.0.0.7/a.jpg', 'http://intranet.local/a.jpg', 'https://[::1]/a.jpg']) {
			expect(mediaUrlProblem(url, true)).toBeUndefined();
		}
		expect(mediaUrlProblem('ftp://10.0.0.7/a.jpg', true)).toMatch(/not an https address/);
		expect(mediaUrlProblem('http://u:p@10.0.0.7/a.jpg', true)).toMatch(/user name/);
	});
});

/** A resolver answering from a table of host names, recording what it was asked. */
function resolver(table: Record<string, string[] | Error>) {
	const asked: string[] = [];
	const resolve: ResolveHost = async (hostname) => {
		asked.push(hostname);
		const found = table[hostname];
		if (found === undefined) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
		if (found instanceof Error) throw found;
		return found;
	};
	return { resolve, asked };
}

const PUBLIC_IP = '93.184.215.14';
const CDN = { 'cdn.example': [PUBLIC_IP], 'pbs.twimg.com': ['2606:4700::6810:84e5', PUBLIC_IP] };

describe('planHop: a name resolved, every address checked, the request sent to the first', () => {
	test('a host name goes to its checked address, asked for by name (and port), TLS checking the name', async () => {
		const { resolve, asked } = resolver({ ...CDN, 'pbs.twimg.com.': CDN['pbs.twimg.com'] });
		expect(await planHop('https://cdn.example/a.jpg?x=1', resolve, false)).toEqual({
			url: 'https://cdn.example/a.jpg?x=1',
			target: `https://${PUBLIC_IP}/a.jpg?x=1`,
			host: 'cdn.example',
			servername: 'cdn.example',
			checkRemote: false,
		});
		expect(await planHop('https://pbs.twimg.com.:8443/a.jpg', resolve, false)).toMatchObject({
			target: 'https://[2606:4700::6810:84e5]:8443/a.jpg',
			host: 'pbs.twimg.com.:8443',
			servername: 'pbs.twimg.com',
		});
		expect(asked).toEqual(['cdn.example', 'pbs.twimg.com.']);
	});

	test('a name with any address that is not public is refused, naming the address and its kind', async () => {
		const { resolve } = resolver({
			'intranet.example': ['10.0.0.7'],
			'mixed.example': [PUBLIC_IP, '169.254.169.254'],
			'localhost': ['127.0.0.1', '::1'],
			'mapped.example': ['::ffff:192.168.1.1'],
			'empty.example': [],
			'odd.example': ['not-an-address'],
			'blocked.example': new Error('Access to 10.1.1.1 is blocked by SSRF protection'),
		});
		const refused = async (url: string) => ((await planHop(url, resolve, false)) as { refused: string }).refused;
		expect(await refused('https://intranet.example/a.jpg')).toBe('its host resolves to 10.0.0.7, a private address');
		expect(await refused('https://mixed.example/a.jpg')).toBe('its host resolves to 169.254.169.254, a link-local address');
		expect(await refused('https://localhost/a.jpg')).toBe('its host resolves to 127.0.0.1, a loopback address (this machine)');
		expect(await refused('https://mapped.example/a.jpg')).toBe('its host resolves to ::ffff:192.168.1.1, a private address, as IPv4 192.168.1.1');
		expect(await refused('https://empty.example/a.jpg')).toBe('its host has no address');
		expect(await refused('https://odd.example/a.jpg')).toBe('its host resolves to not-an-address, which is not an IP address');
		expect(await refused('https://blocked.example/a.jpg')).toBe('its host could not be resolved (Access to 10.1.1.1 is blocked by SSRF protection)');
		expect(await refused('https://nowhere.example/a.jpg')).toBe('its host could not be resolved (getaddrinfo ENOTFOUND nowhere.example)');
	});

	test('an IP address is not looked up; Allow Private Network Hosts sends the URL as it is; without a lookup the answer is checked', async () => {
		const { resolve, asked } = resolver(CDN);
		expect(await planHop(`https://${PUBLIC_IP}/a.jpg`, resolve, false)).toEqual({
			url: `https://${PUBLIC_IP}/a.jpg`,
			target: `https://${PUBLIC_IP}/a.jpg`,
			checkRemote: false,
		});
		expect(await planHop('http://intranet.example/a.jpg', resolve, true)).toEqual({
			url: 'http://intranet.example/a.jpg',
			target: 'http://intranet.example/a.jpg',
			checkRemote: false,
		});
		expect(asked).toEqual([]);
		expect(await planHop('https://cdn.example/a.jpg', undefined, false)).toEqual({
			url: 'https://cdn.example/a.jpg',
			target: 'https://cdn.example/a.jpg',
			checkRemote: true,
		});
	});
});

interface Answer extends Partial<MediaAnswer> {
	/** The address the answer came from, as a socket of n8n 1.x would tell it. */
	remote?: string;
}

/** The URL a request asked for: its target, with the host it names in place of the address it went to. */
function asked(request: IHttpRequestOptions): string {
	const url = new URL(request.url);
	const host = request.headers?.Host;
	if (typeof host === 'string') url.host = host;
	return url.href;
}

/** A network: `resolve` from a table of names, `fetch` answering from a table of URLs (as asked for), recording requests. */
function network(answers: Record<string, Answer | ((request: IHttpRequestOptions) => Promise<MediaAnswer>)>, names: Record<string, string[]> | null = CDN) {
	const requests: IHttpRequestOptions[] = [];
	const fetch = async (request: IHttpRequestOptions): Promise<MediaAnswer> => {
		requests.push(request);
		const answer = answers[asked(request)];
		if (answer === undefined) throw new Error(`unexpected request to ${asked(request)}`);
		if (typeof answer === 'function') return await answer(request);
		const { remote, ...rest } = answer;
		const body = rest.body ?? Buffer.alloc(0);
		return { statusCode: 200, headers: {}, ...rest, body: remote ? Object.assign(streamOf([body as Buffer]), { socket: { remoteAddress: remote } }) : body };
	};
	return { net: { fetch, resolve: names ? resolver(names).resolve : undefined }, requests };
}

/** A stream of these chunks, counting what was read of it and whether it was destroyed. */
function streamOf(chunks: Buffer[], between?: () => Promise<void>) {
	const state = { pulled: 0, destroyed: false };
	const body = (async function* () {
		for (const chunk of chunks) {
			if (between) await between();
			state.pulled++;
			yield chunk;
		}
	})();
	return Object.assign(body, { destroy: () => (state.destroyed = true), state });
}

const medium = (url: unknown, type = 'image', index: number | null = 0): ChosenMedium => ({ index, type, url, answered: { url: url as string } });
const options: DownloadOptions = { postId: '7', maxBytes: 1000, timeoutMs: 5000, timeLimitMs: 5000 };
const failure = async (promise: Promise<unknown>) => (await promise.catch((error: unknown) => error)) as MediaError;

describe('downloadMedium: where it connects', () => {
	test('one plain GET to the checked address: the host asked for by name, TLS on the name, no credential, redirects not followed by the client', async () => {
		const { net, requests } = network({ 'https://cdn.example/a.jpg': { body: BYTES.jpeg } });
		const file = await downloadMedium(net, medium('https://cdn.example/a.jpg'), options);
		expect(file).toEqual({ bytes: BYTES.jpeg, fileName: 'a.jpg', mimeType: 'image/jpeg', url: 'https://cdn.example/a.jpg' });
		expect(requests).toHaveLength(1);
		const { abortSignal, ...request } = requests[0];
		expect(abortSignal).toBeInstanceOf(AbortSignal);
		expect(request).toEqual({
			method: 'GET',
			url: `https://${PUBLIC_IP}/a.jpg`,
			headers: { Host: 'cdn.example' },
			agentOptions: { servername: 'cdn.example' },
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: 5000,
		});
		expect(request.auth).toBeUndefined();
	});

	test('mediaRequest: an address or a name sent as it is has no Host header of the node’s', () => {
		expect(mediaRequest({ url: 'https://8.8.8.8/a', target: 'https://8.8.8.8/a', checkRemote: false }, 100)).toEqual({
			method: 'GET',
			url: 'https://8.8.8.8/a',
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: 100,
		});
	});

	test.each([
		['http://cdn.example/a.jpg', 'its URL uses plain http; media are fetched over https only'],
		['http://127.0.0.1:8500/v1/kv/?recurse', 'its address 127.0.0.1 is a loopback address (this machine)'],
		['https://169.254.169.254/latest/meta-data/iam/', 'its address 169.254.169.254 is a link-local address'],
		['https://0x7f.1/a.jpg', 'its address 127.0.0.1 is a loopback address (this machine)'],
		['https://internal.example/a.jpg', 'its host resolves to 10.0.0.7, a private address'],
		['https://localhost/a.jpg', 'its host resolves to 127.0.0.1, a loopback address (this machine)'],
	])('%s is refused before any request: %s', async (url, reason) => {
		const { net, requests } = network({}, { ...CDN, 'internal.example': ['10.0.0.7'], 'localhost': ['127.0.0.1'] });
		const error = await failure(downloadMedium(net, medium(url), options));
		expect(error).toBeInstanceOf(MediaError);
		expect(error.message).toBe(`Could not download image 1 of post 7 from ${url}: ${reason}`);
		expect(error.description).toMatch(/turn on "Allow Private Network Hosts" under Options/);
		expect(requests).toEqual([]);
	});

	test('errors name the medium: no URL, the avatar, another type', async () => {
		const { net, requests } = network({});
		expect((await failure(downloadMedium(net, medium(undefined, 'video', 2), options))).message).toBe('Could not download video 3 of post 7 from (none): it has no URL');
		expect((await failure(downloadMedium(net, medium('ftp://x.example/a', 'avatar', null), options))).message).toMatch(
			/^Could not download the poster’s avatar of post 7 from ftp:\/\/x\.example\/a: /,
		);
		expect(requests).toEqual([]);
	});

	test('redirects: each hop checked and sent to its own checked address; one to a private address or plain http is refused unread', async () => {
		const { net, requests } = network(
			{
				'https://cdn.example/cat.jpg': { statusCode: 302, headers: { location: 'http://127.0.0.1:8500/v1/kv/?recurse' } },
				'https://cdn.example/a.jpg': { statusCode: 302, headers: { location: '/b/real.jpg' } },
				'https://cdn.example/b/real.jpg': { statusCode: 301, headers: { Location: 'https://pbs.twimg.com/real.png' } },
				'https://pbs.twimg.com/real.png': { body: BYTES.png },
				'https://cdn.example/inside.jpg': { statusCode: 307, headers: { location: 'https://internal.example/x.jpg' } },
				'https://cdn.example/http.jpg': { statusCode: 301, headers: { location: 'http://evil.example/x.jpg' } },
				'https://cdn.example/loop.jpg': { statusCode: 307, headers: { location: 'https://cdn.example/loop.jpg' } },
			},
			{ ...CDN, 'internal.example': ['192.168.1.20'] },
		);
		const file = await downloadMedium(net, medium('https://cdn.example/a.jpg'), options);
		expect([file.url, file.fileName, file.mimeType]).toEqual(['https://pbs.twimg.com/real.png', 'real.png', 'image/png']);
		expect(requests.map((r) => [r.url, r.headers?.Host])).toEqual([
			[`https://${PUBLIC_IP}/a.jpg`, 'cdn.example'],
			[`https://${PUBLIC_IP}/b/real.jpg`, 'cdn.example'],
			['https://[2606:4700::6810:84e5]/real.png', 'pbs.twimg.com'],
		]);
		requests.length = 0;
		const cases: Array<[string, string]> = [
			['cat', 'it redirects to http://127.0.0.1:8500/v1/kv/?recurse, and that address 127.0.0.1 is a loopback address (this machine)'],
			['inside', 'it redirects to https://internal.example/x.jpg, and that host resolves to 192.168.1.20, a private address'],
			['http', 'it redirects to http://evil.example/x.jpg, and that URL uses plain http; media are fetched over https only'],
		];
		for (const [name, reason] of cases) {
			const error = await failure(downloadMedium(net, medium(`https://cdn.example/${name}.jpg`), options));
			expect(error.message).toBe(`Could not download image 1 of post 7 from https://cdn.example/${name}.jpg: ${reason}`);
		}
		expect(requests.map(asked)).toEqual(['https://cdn.example/cat.jpg', 'https://cdn.example/inside.jpg', 'https://cdn.example/http.jpg']);
		await expect(downloadMedium(net, medium('https://cdn.example/loop.jpg'), options)).rejects.toThrow(/: more than 5 redirects$/);
	});

	test('Allow Private Network Hosts: a loopback http URL and its redirects are fetched as they are, nothing looked up', async () => {
		const { net, requests } = network(
			{
				'http://127.0.0.1:4010/media/a.jpg': { statusCode: 302, headers: { location: 'http://intranet.local/a.jpg' } },
				'http://intranet.local/a.jpg': { body: BYTES.jpeg },
			},
			{},
		);
		const file = await downloadMedium(net, medium('http://127.0.0.1:4010/media/a.jpg'), { ...options, allowPrivateNetwork: true });
		expect(file.url).toBe('http://intranet.local/a.jpg');
		expect(requests.map((r) => [r.url, r.headers, r.agentOptions])).toEqual([
			['http://127.0.0.1:4010/media/a.jpg', undefined, undefined],
			['http://intranet.local/a.jpg', undefined, undefined],
		]);
	});

	test('without a lookup (n8n 1.x): the address an answer came from is checked before its status or body is read', async () => {
		const { net, requests } = network(
			{
				'https://cdn.example/a.jpg': { body: BYTES.jpeg, remote: PUBLIC_IP },
				'https://rebound.example/a.jpg': { statusCode: 302, headers: { location: 'https://cdn.example/a.jpg' }, remote: '10.0.0.7' },
				'https://unknown.example/a.jpg': { body: BYTES.jpeg },
			},
			null,
		);
		expect((await downloadMedium(net, medium('https://cdn.example/a.jpg'), options)).mimeType).toBe('image/jpeg');
		expect((await failure(downloadMedium(net, medium('https://rebound.example/a.jpg'), options))).message).toBe(
			'Could not download image 1 of post 7 from https://rebound.example/a.jpg: its host answered from 10.0.0.7, a private address',
		);
		expect((await failure(downloadMedium(net, medium('https://unknown.example/a.jpg'), options))).message).toMatch(
			/unknown\.example\/a\.jpg: the address its host answered from could not be checked/,
		);
		expect(requests.map((r) => r.url)).toEqual(['https://cdn.example/a.jpg', 'https://rebound.example/a.jpg', 'https://unknown.example/a.jpg']);
		expect(requests.every((r) => r.headers === undefined)).toBe(true);
	});
});

describe('downloadMedium: answers', () => {
	test('a non-2xx answer and a network error name the post and the URL; the error carries advice', async () => {
		const { net } = network({
			'https://cdn.example/gone.jpg': { statusCode: 404, body: Buffer.from('gone') },
			'https://cdn.example/reset.jpg': async () => {
				throw new Error('socket hang up');
			},
		});
		const error = await failure(downloadMedium(net, medium('https://cdn.example/gone.jpg'), options));
		expect(error).toBeInstanceOf(MediaError);
		expect(error.message).toBe('Could not download image 1 of post 7 from https://cdn.example/gone.jpg: the media host answered 404');
		expect(error.description).toMatch(/get the post again/);
		await expect(downloadMedium(net, medium('https://cdn.example/reset.jpg'), options)).rejects.toThrow(
			'Could not download image 1 of post 7 from https://cdn.example/reset.jpg: socket hang up',
		);
	});

	test('the size cap: a declared Content-Length over it is refused unread; a stream is not read past it', async () => {
		const endless = () => {
			const state = { pulled: 0, destroyed: false };
			const body = (async function* () {
				yield BYTES.mp4;
				for (;;) {
					state.pulled++;
					yield Buffer.alloc(400, 1);
				}
			})();
			return Object.assign(body, { destroy: () => (state.destroyed = true), state });
		};
		const declared = endless();
		const unbounded = endless();
		const { net } = network({
			'https://cdn.example/declared.mp4': async () => ({ statusCode: 200, headers: { 'content-length': '5000' }, body: declared }),
			'https://cdn.example/endless.mp4': async () => ({ statusCode: 200, headers: {}, body: unbounded }),
			'https://cdn.example/fits.mp4': { headers: { 'content-length': '1000' }, body: Buffer.concat([BYTES.mp4, Buffer.alloc(1000 - BYTES.mp4.length)]) },
		});
		await expect(downloadMedium(net, medium('https://cdn.example/declared.mp4', 'video'), options)).rejects.toThrow(
			'Could not download video 1 of post 7 from https://cdn.example/declared.mp4: the file is larger than 1000 bytes',
		);
		expect(declared.state).toEqual({ pulled: 0, destroyed: true });
		await expect(downloadMedium(net, medium('https://cdn.example/endless.mp4', 'video'), { ...options, maxBytes: 1024 * 1024 })).rejects.toThrow(
			/endless\.mp4: the file is larger than 1 MB$/,
		);
		// 1 MiB in 400-byte chunks after the head: the chunk that passes the cap is the last one read.
		expect(unbounded.state.pulled).toBe(Math.floor((1024 * 1024 - BYTES.mp4.length) / 400) + 1);
		expect(unbounded.state.destroyed).toBe(true);
		expect((await downloadMedium(net, medium('https://cdn.example/fits.mp4', 'video'), options)).bytes.length).toBe(1000);
	});

	test('a body that breaks off is an error naming the post and the URL', async () => {
		const broken = (async function* () {
			yield BYTES.jpeg;
			throw new Error('aborted');
		})();
		const { net } = network({ 'https://cdn.example/a.jpg': async () => ({ statusCode: 200, headers: {}, body: broken }) });
		await expect(downloadMedium(net, medium('https://cdn.example/a.jpg'), options)).rejects.toThrow(
			'Could not download image 1 of post 7 from https://cdn.example/a.jpg: the download broke off (aborted)',
		);
	});
});

describe('downloadMedium: the time limit and the execution’s stop', () => {
	const tick = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
	const elapsed = async (work: Promise<unknown>) => {
		const started = Date.now();
		const error = await failure(work);
		return { error, ms: Date.now() - started };
	};

	test('a host that trickles a byte at a time is cut at the limit, its body destroyed', async () => {
		const body = streamOf([BYTES.jpeg.subarray(0, 3), ...Array.from({ length: 100 }, () => Buffer.from([0]))], async () => await tick(50));
		const { net } = network({ 'https://cdn.example/slow.jpg': async () => ({ statusCode: 200, headers: {}, body }) });
		const { error, ms } = await elapsed(downloadMedium(net, medium('https://cdn.example/slow.jpg'), { ...options, timeLimitMs: 400 }));
		expect(error.message).toBe('Could not download image 1 of post 7 from https://cdn.example/slow.jpg: it took longer than 0.4 s, the Time Limit per File');
		expect(error.description).toMatch(/Raise "Time Limit per File \(Seconds\)"/);
		expect(ms).toBeGreaterThanOrEqual(380);
		expect(ms).toBeLessThan(1000);
		expect(body.state.destroyed).toBe(true);
		expect(body.state.pulled).toBeLessThan(12);
	});

	test('the limit covers a host that never answers, a lookup that never ends, and redirects together', async () => {
		let abortedWith: unknown;
		const { net } = network({
			'https://cdn.example/never.jpg': async (request) =>
				await new Promise<MediaAnswer>((_, reject) => (request.abortSignal as AbortSignal).addEventListener('abort', () => reject((abortedWith = new Error('canceled'))))),
		});
		const silent = await elapsed(downloadMedium(net, medium('https://cdn.example/never.jpg'), { ...options, timeLimitMs: 200 }));
		expect(silent.error.message).toMatch(/never\.jpg: it took longer than 0\.2 s, the Time Limit per File$/);
		expect(silent.ms).toBeLessThan(1000);
		expect(abortedWith).toBeInstanceOf(Error);

		const stuck = { fetch: net.fetch, resolve: async () => await new Promise<string[]>(() => undefined) };
		const lookup = await elapsed(downloadMedium(stuck, medium('https://cdn.example/a.jpg'), { ...options, timeLimitMs: 200 }));
		expect(lookup.error.message).toMatch(/it took longer than 0\.2 s/);

		// Each hop answers within 120 ms, but four of them do not fit in 300 ms.
		const hops = network({
			'https://cdn.example/1.jpg': async () => (await tick(120), { statusCode: 302, headers: { location: '/2.jpg' }, body: '' }),
			'https://cdn.example/2.jpg': async () => (await tick(120), { statusCode: 302, headers: { location: '/3.jpg' }, body: '' }),
			'https://cdn.example/3.jpg': async () => (await tick(120), { statusCode: 200, headers: {}, body: BYTES.jpeg }),
		});
		const chain = await elapsed(downloadMedium(hops.net, medium('https://cdn.example/1.jpg'), { ...options, timeLimitMs: 300 }));
		expect(chain.error.message).toMatch(/from https:\/\/cdn\.example\/3\.jpg: it took longer than 0\.3 s/);
	});

	test('the execution’s stop ends a read at once; a stopped execution sends nothing more', async () => {
		const cancel = new AbortController();
		const body = streamOf(Array.from({ length: 100 }, (_, i) => (i === 0 ? BYTES.jpeg.subarray(0, 3) : Buffer.from([0]))), async () => await tick(50));
		const { net, requests } = network({ 'https://cdn.example/a.jpg': async () => ({ statusCode: 200, headers: {}, body }) });
		setTimeout(() => cancel.abort(), 150);
		const { error, ms } = await elapsed(downloadMedium(net, medium('https://cdn.example/a.jpg'), { ...options, cancelSignal: cancel.signal }));
		expect(error.message).toBe('Could not download image 1 of post 7 from https://cdn.example/a.jpg: the execution was stopped');
		expect(ms).toBeLessThan(1000);
		expect(body.state.destroyed).toBe(true);
		expect(requests[0].abortSignal?.aborted).toBe(true);

		const again = await failure(downloadMedium(net, medium('https://cdn.example/a.jpg'), { ...options, cancelSignal: cancel.signal }));
		expect(again.message).toMatch(/: the execution was stopped$/);
		expect(requests).toHaveLength(1);
	});
});

describe('downloadMedium: only images and videos are kept, typed and named by their bytes', () => {
	test('a PNG answered as text/html from a .jpg URL is image/png, named .png', async () => {
		const { net } = network({ 'https://cdn.example/a.jpg': { headers: { 'content-type': 'text/html' }, body: BYTES.png } });
		const file = await downloadMedium(net, medium('https://cdn.example/a.jpg'), options);
		expect([file.mimeType, file.fileName]).toEqual(['image/png', 'a.png']);
	});

	test.each([
		['html', 'its bytes look like HTML (a web page)'],
		['svg', 'its bytes look like SVG (an image that can carry script)'],
		['js', 'its bytes look like JavaScript'],
		['exe', 'its bytes look like a Windows program'],
		['json', 'its bytes look like JSON'],
		['m4a', 'its bytes look like audio (MPEG-4)'],
		['unknown', 'its first bytes are of no image or video format'],
	] as const)('%s answered as image/jpeg is refused: %s', async (kind, looks) => {
		const { net } = network({ 'https://cdn.example/a.jpg': { headers: { 'content-type': 'image/jpeg' }, body: BYTES[kind] } });
		const error = await failure(downloadMedium(net, medium('https://cdn.example/a.jpg'), options));
		expect(error.message).toBe(`Could not download image 1 of post 7 from https://cdn.example/a.jpg: the file is not an image or a video: ${looks}`);
		expect(error.description).toMatch(/^Only images \(JPEG, PNG, GIF, WebP, AVIF, HEIC, BMP\) and videos/);
	});

	test('an empty file is refused; a long web page is not read past its first bytes', async () => {
		const page = streamOf([Buffer.from('<html>'), ...Array.from({ length: 50 }, () => Buffer.alloc(100, 0x20))]);
		const { net } = network({
			'https://cdn.example/empty.jpg': { body: Buffer.alloc(0) },
			'https://cdn.example/page.jpg': async () => ({ statusCode: 200, headers: {}, body: page }),
		});
		await expect(downloadMedium(net, medium('https://cdn.example/empty.jpg'), options)).rejects.toThrow(/empty\.jpg: the file is empty$/);
		await expect(downloadMedium(net, medium('https://cdn.example/page.jpg'), { ...options, maxBytes: 100_000 })).rejects.toThrow(/HTML \(a web page\)/);
		expect(page.state).toEqual({ pulled: 7, destroyed: true });
	});
});

describe('detectFileType', () => {
	test.each([
		['jpeg', 'image/jpeg', 'jpg'],
		['png', 'image/png', 'png'],
		['gif', 'image/gif', 'gif'],
		['webp', 'image/webp', 'webp'],
		['bmp', 'image/bmp', 'bmp'],
		['mp4', 'video/mp4', 'mp4'],
		['mp4isom', 'video/mp4', 'mp4'],
		['mov', 'video/quicktime', 'mov'],
		['m4v', 'video/x-m4v', 'm4v'],
		['avif', 'image/avif', 'avif'],
		['heic', 'image/heic', 'heic'],
		['heif', 'image/heif', 'heif'],
		['webm', 'video/webm', 'webm'],
		['mkv', 'video/x-matroska', 'mkv'],
	] as const)('%s: %s, .%s', (kind, mimeType, extension) => {
		expect(detectFileType(BYTES[kind])).toEqual({ mimeType, extension });
	});

	test.each([
		['html', 'HTML (a web page)'],
		['svg', 'SVG (an image that can carry script)'],
		['js', 'JavaScript'],
		['exe', 'a Windows program'],
		['elf', 'a Linux program (ELF)'],
		['pdf', 'a PDF document'],
		['zip', 'a ZIP archive'],
		['json', 'JSON'],
		['text', 'plain text'],
		['m4a', 'audio (MPEG-4)'],
		['unknown', 'unknown'],
	] as const)('%s is not media: %s', (kind, notMedia) => {
		expect(detectFileType(BYTES[kind])).toEqual({ notMedia });
	});

	test('text forms of SVG and HTML, with a byte-order mark or leading space; a bare "BM" is no bitmap', () => {
		expect(detectFileType(Buffer.from('\uFEFF  <svg width="1"/>'))).toEqual({ notMedia: 'SVG (an image that can carry script)' });
		expect(detectFileType(Buffer.from('<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN">'))).toEqual({ notMedia: 'SVG (an image that can carry script)' });
		expect(detectFileType(Buffer.from('<?xml version="1.0"?><rss/>'))).toEqual({ notMedia: 'XML' });
		expect(detectFileType(Buffer.from('\n<script>alert(1)</script>'))).toEqual({ notMedia: 'HTML (a web page)' });
		expect(detectFileType(Buffer.from('#!/bin/sh\nrm -rf /'))).toEqual({ notMedia: 'a script (#!)' });
		expect(detectFileType(Buffer.from('BMW cars are fast, they say'))).toEqual({ notMedia: 'plain text' });
	});
});

describe('file names: safe on every system, ending in the detected extension', () => {
	test.each([
		['photo.jpg', 'jpg', 'photo.jpg'],
		['photo.png', 'jpg', 'photo.jpg'],
		['index.html', 'png', 'index.png'],
		['launch photo', 'mp4', 'launch photo.mp4'],
		['IMG_2024.12.01', 'jpg', 'IMG_2024.12.01.jpg'],
		['invoice\u202Egpj.exe', 'jpg', 'invoicegpj.jpg'],
		['a\u0000b\u0007c\u200Bd\u2028.jpg', 'jpg', 'abcd.jpg'],
		['../../etc/passwd', 'jpg', '_.._etc_passwd.jpg'],
		['C:\\Windows\\x.jpg', 'jpg', 'C__Windows_x.jpg'],
		['a*b?c"d<e>f|g:h.jpg', 'jpg', 'a_b_c_d_e_f_g_h.jpg'],
		['.htaccess', 'png', 'htaccess.png'],
		['...', 'png', 'post-7-0.png'],
		['...hidden.jpg', 'jpg', 'hidden.jpg'],
		['CON.jpg', 'jpg', '_CON.jpg'],
		['con', 'png', '_con.png'],
		['Lpt9.tar.jpg', 'jpg', '_Lpt9.tar.jpg'],
		['COM10.jpg', 'jpg', 'COM10.jpg'],
		['nul .jpg', 'jpg', '_nul.jpg'],
		['', 'webm', 'post-7-0.webm'],
		['\u202E', 'jpg', 'post-7-0.jpg'],
	])('%j, detected .%s → %j', (name, extension, expected) => {
		expect(safeFileName(name, extension, 'post-7-0')).toBe(expected);
	});

	test(`capped at ${MAX_FILE_NAME} characters, keeping the extension, never splitting a character`, () => {
		const long = safeFileName(`${'a'.repeat(300)}.jpg`, 'jpg', 'x');
		expect(long).toBe(`${'a'.repeat(MAX_FILE_NAME - 4)}.jpg`);
		const emoji = safeFileName('😀'.repeat(200), 'webm', 'x');
		expect(Array.from(emoji)).toHaveLength(MAX_FILE_NAME);
		expect(emoji.endsWith('😀.webm')).toBe(true);
	});

	test.each([
		['attachment; filename="launch photo.png"', 'https://x.example/a.jpg', 'png', 'launch photo.png'],
		["attachment; filename*=UTF-8''caf%C3%A9.jpg", 'https://x.example/a.jpg', 'jpg', 'café.jpg'],
		['inline; filename="../../etc/passwd"', 'https://x.example/a.jpg', 'jpg', '_.._etc_passwd.jpg'],
		['attachment; filename="report.exe"', 'https://x.example/a.jpg', 'jpg', 'report.jpg'],
		[undefined, 'https://x.example/media/a%20b.jpg?sig=1', 'jpg', 'a b.jpg'],
		[undefined, 'https://x.example/media/abc', 'png', 'abc.png'],
		[undefined, 'https://x.example/media/%E2%80%AEgpj.exe', 'mp4', 'gpj.mp4'],
		[undefined, 'https://x.example/', 'jpg', 'post-7-0.jpg'],
		[undefined, 'https://x.example/%E0%A4%A', 'jpg', 'post-7-0.jpg'],
	])('fileNameOf(%s, %s, .%s) → %s', (disposition, url, extension, expected) => {
		expect(fileNameOf(disposition, url, extension, 'post-7-0')).toBe(expected);
	});
});
