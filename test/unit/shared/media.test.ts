/**
 * The download core of Post › Download Media with the fetcher passed in: which media, the https rule
 * (loopback aside) for the URL and every redirect, the request (no credential, nothing of the node's),
 * file name and MIME type from the answer, the size cap (not read past it), and errors that name the post
 * and the URL.
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

import {
	chooseMedia,
	downloadMedium,
	fileNameOf,
	MediaError,
	mediaRequest,
	mediaUrlProblem,
	mimeTypeOf,
	type ChosenMedium,
	type MediaAnswer,
	type MediaFetch,
} from '../../../nodes/shared/media';

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

describe('mediaUrlProblem: https only, plain http from this machine only', () => {
	test.each([
		'https://cdn.example/a.jpg',
		'http://127.0.0.1:4010/media/a.jpg',
		'http://localhost/a.jpg',
		'http://[::1]:8080/a.jpg',
	])('%s may be fetched', (url) => {
		expect(mediaUrlProblem(url)).toBeUndefined();
	});

	test.each([
		['http://cdn.example/a.jpg', /plain http/],
		['http://10.0.0.1/a.jpg', /plain http/],
		['ftp://cdn.example/a.jpg', /not an https address \(ftp:\)/],
		['file:///etc/passwd', /not an https address/],
		['cdn.example/a.jpg', /not a web address/],
		['', /no URL/],
		[undefined, /no URL/],
		[42, /no URL/],
		['https://user:secret@cdn.example/a.jpg', /user name or password/],
	])('%s is refused', (url, reason) => {
		expect(mediaUrlProblem(url)).toMatch(reason);
	});
});

/** A fetcher that answers from a table of URLs and records every request it was given. */
function fetcher(answers: Record<string, Partial<MediaAnswer> | (() => Promise<MediaAnswer>)>) {
	const requests: IHttpRequestOptions[] = [];
	const fetch: MediaFetch = async (request) => {
		requests.push(request);
		const answer = answers[request.url];
		if (answer === undefined) throw new Error(`unexpected request to ${request.url}`);
		if (typeof answer === 'function') return await answer();
		return { statusCode: 200, headers: {}, body: Buffer.alloc(0), ...answer };
	};
	return { fetch, requests };
}

const medium = (url: unknown, type = 'image', index: number | null = 0): ChosenMedium => ({ index, type, url, answered: { url: url as string } });
const options = { postId: '7', maxBytes: 1000, timeoutMs: 5000 };

describe('downloadMedium', () => {
	test('one plain GET: no header of the node, no credential, the body as a stream, redirects not followed by the client', async () => {
		const { fetch, requests } = fetcher({ 'https://cdn.example/a.jpg': { headers: { 'content-type': 'image/jpeg' }, body: Buffer.from('jpeg') } });
		const file = await downloadMedium(fetch, medium('https://cdn.example/a.jpg'), options);
		expect(file).toEqual({ bytes: Buffer.from('jpeg'), fileName: 'a.jpg', mimeType: 'image/jpeg', url: 'https://cdn.example/a.jpg' });
		expect(requests).toEqual([mediaRequest('https://cdn.example/a.jpg', 5000)]);
		const [request] = requests;
		expect(request).toEqual({
			method: 'GET',
			url: 'https://cdn.example/a.jpg',
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: 5000,
		});
		expect(request.headers).toBeUndefined();
		expect(request.auth).toBeUndefined();
	});

	test('a refused URL is an error naming the post, the medium and the URL, and nothing is fetched', async () => {
		const { fetch, requests } = fetcher({});
		await expect(downloadMedium(fetch, medium('http://cdn.example/a.jpg'), options)).rejects.toThrow(
			'Could not download image 1 of post 7 from http://cdn.example/a.jpg: its URL uses plain http; media are fetched over https only (plain http only from this machine)',
		);
		await expect(downloadMedium(fetch, medium(undefined, 'video', 2), options)).rejects.toThrow('Could not download video 3 of post 7 from (none): it has no URL');
		await expect(downloadMedium(fetch, medium('ftp://x.example/a', 'avatar', null), options)).rejects.toThrow(
			/^Could not download the poster’s avatar of post 7 from ftp:\/\/x\.example\/a: /,
		);
		expect(requests).toEqual([]);
	});

	test('a non-2xx answer and a network error name the post and the URL; the error carries advice', async () => {
		const gone = { statusCode: 404, body: Buffer.from('gone') };
		const { fetch } = fetcher({
			'https://cdn.example/gone.jpg': gone,
			'https://cdn.example/reset.jpg': async () => {
				throw new Error('socket hang up');
			},
		});
		const error = await downloadMedium(fetch, medium('https://cdn.example/gone.jpg'), options).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(MediaError);
		expect((error as MediaError).message).toBe('Could not download image 1 of post 7 from https://cdn.example/gone.jpg: the media host answered 404');
		expect((error as MediaError).description).toMatch(/get the post again/);
		await expect(downloadMedium(fetch, medium('https://cdn.example/reset.jpg'), options)).rejects.toThrow(
			'Could not download image 1 of post 7 from https://cdn.example/reset.jpg: socket hang up',
		);
	});

	test('redirects: a relative one followed, each hop checked by the https rule, a loop ends', async () => {
		const { fetch, requests } = fetcher({
			'https://cdn.example/a.jpg': { statusCode: 302, headers: { location: '/b/real.jpg' } },
			'https://cdn.example/b/real.jpg': { headers: { 'content-type': 'image/jpeg' }, body: Buffer.from('x') },
			'https://cdn.example/out.jpg': { statusCode: 301, headers: { Location: 'http://evil.example/x.jpg' } },
			'https://cdn.example/loop.jpg': { statusCode: 307, headers: { location: 'https://cdn.example/loop.jpg' } },
		});
		const file = await downloadMedium(fetch, medium('https://cdn.example/a.jpg'), options);
		expect([file.url, file.fileName]).toEqual(['https://cdn.example/b/real.jpg', 'real.jpg']);
		expect(requests.map((r) => r.url)).toEqual(['https://cdn.example/a.jpg', 'https://cdn.example/b/real.jpg']);
		await expect(downloadMedium(fetch, medium('https://cdn.example/out.jpg'), options)).rejects.toThrow(
			'Could not download image 1 of post 7 from https://cdn.example/out.jpg: it redirects to http://evil.example/x.jpg, and that URL uses plain http',
		);
		expect(requests.some((r) => r.url.includes('evil'))).toBe(false);
		await expect(downloadMedium(fetch, medium('https://cdn.example/loop.jpg'), options)).rejects.toThrow(/: more than 5 redirects$/);
	});

	test('the size cap: a declared Content-Length over it is refused unread; a stream is not read past it', async () => {
		let pulled = 0;
		let destroyed = false;
		/** An endless body of 400-byte chunks that counts what was read of it. */
		const endless = () => {
			const body = (async function* () {
				for (;;) {
					pulled++;
					yield Buffer.alloc(400, 1);
				}
			})();
			return Object.assign(body, { destroy: () => (destroyed = true) });
		};
		const { fetch } = fetcher({
			'https://cdn.example/declared.mp4': async () => ({ statusCode: 200, headers: { 'content-length': '5000' }, body: endless() }),
			'https://cdn.example/endless.mp4': async () => ({ statusCode: 200, headers: {}, body: endless() }),
			'https://cdn.example/fits.mp4': { headers: { 'content-length': '1000' }, body: Buffer.alloc(1000, 2) },
		});
		const big = 'Could not download video 1 of post 7 from https://cdn.example/declared.mp4: the file is larger than 1000 bytes';
		await expect(downloadMedium(fetch, medium('https://cdn.example/declared.mp4', 'video'), options)).rejects.toThrow(big);
		expect([pulled, destroyed]).toEqual([0, true]);
		destroyed = false;
		await expect(downloadMedium(fetch, medium('https://cdn.example/endless.mp4', 'video'), { ...options, maxBytes: 1024 * 1024 })).rejects.toThrow(
			/endless\.mp4: the file is larger than 1 MB$/,
		);
		// 1 MiB in 400-byte chunks: the chunk that passes the cap is the last one read.
		expect(pulled).toBe(Math.floor((1024 * 1024) / 400) + 1);
		expect(destroyed).toBe(true);
		const fits = await downloadMedium(fetch, medium('https://cdn.example/fits.mp4', 'video'), options);
		expect(fits.bytes.length).toBe(1000);
	});

	test('a body that breaks off is an error naming the post and the URL', async () => {
		const broken = (async function* () {
			yield Buffer.from('part');
			throw new Error('aborted');
		})();
		const { fetch } = fetcher({ 'https://cdn.example/a.jpg': async () => ({ statusCode: 200, headers: {}, body: broken }) });
		await expect(downloadMedium(fetch, medium('https://cdn.example/a.jpg'), options)).rejects.toThrow(
			'Could not download image 1 of post 7 from https://cdn.example/a.jpg: the download broke off (aborted)',
		);
	});
});

describe('mimeTypeOf: the Content-Type, else the file extension, else the medium type', () => {
	test.each([
		['image/png; charset=binary', 'https://x.example/a.jpg', 'image', 'image/png'],
		['IMAGE/WEBP', 'https://x.example/a', 'image', 'image/webp'],
		['application/octet-stream', 'https://x.example/a.mp4?sig=1', 'image', 'video/mp4'],
		[undefined, 'https://x.example/a.PNG', 'video', 'image/png'],
		[undefined, 'https://x.example/a', 'image', 'image/jpeg'],
		[undefined, 'https://x.example/a', 'photo', 'image/jpeg'],
		[undefined, 'https://x.example/a', 'gif', 'image/gif'],
		['', 'https://x.example/a', 'video', 'video/mp4'],
		[undefined, 'https://x.example/a', 'avatar', 'image/jpeg'],
		['not a type', 'https://x.example/a', 'audio', 'application/octet-stream'],
	])('%s, %s, %s → %s', (contentType, url, type, expected) => {
		expect(mimeTypeOf(contentType, url, type)).toBe(expected);
	});
});

describe('fileNameOf: Content-Disposition, else the URL’s last segment, else the fallback; with an extension', () => {
	test.each([
		['attachment; filename="launch photo.png"', 'https://x.example/a.jpg', 'image/png', 'launch photo.png'],
		["attachment; filename*=UTF-8''caf%C3%A9.jpg", 'https://x.example/a.jpg', 'image/jpeg', 'café.jpg'],
		['inline; filename="../../etc/passwd"', 'https://x.example/a.jpg', 'image/jpeg', '.._.._etc_passwd.jpg'],
		[undefined, 'https://x.example/media/a%20b.jpg?sig=1', 'image/jpeg', 'a b.jpg'],
		[undefined, 'https://x.example/media/abc', 'image/png', 'abc.png'],
		[undefined, 'https://x.example/media/abc', 'video/mp4', 'abc.mp4'],
		[undefined, 'https://x.example/', 'image/jpeg', 'post-7-0.jpg'],
		[undefined, 'https://x.example/%E0%A4%A', 'image/jpeg', 'post-7-0.jpg'],
		[undefined, 'https://x.example/', 'application/x-unknown', 'post-7-0'],
	])('%s, %s, %s → %s', (disposition, url, mimeType, expected) => {
		expect(fileNameOf(disposition, url, mimeType, 'post-7-0')).toBe(expected);
	});
});
