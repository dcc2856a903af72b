import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { isLoopback } from './baseUrl';
import { isEmptyValue, isObject, nonBlankText } from './utils';

// A post's media as files: which media, the one rule for their URLs, and the download itself with the fetcher
// passed in. Media hosts are not the service: nothing of the credential goes to them, only https (a host on this
// machine aside, like the Base URL), and at most `maxBytes` are read of any file.

/** Which media of a post: every medium, its images, its videos, or its first medium. */
export type MediaChoice = 'all' | 'images' | 'videos' | 'first';

export const MEDIA_CHOICES: MediaChoice[] = ['all', 'images', 'videos', 'first'];

/** SPEC.md shows the type `image` only; these names are read as images or videos too. */
const IMAGE_TYPES = ['image', 'photo', 'gif', 'animated_gif'];
const VIDEO_TYPES = ['video'];

/** The default cap of one file, in MB: a phone's video of a few minutes; a raised cap is the user's choice. */
export const DEFAULT_MAX_FILE_MB = 25;

/** Redirects followed per file, each checked by the same rule as the first URL. */
export const MAX_REDIRECTS = 5;

/** One medium chosen: where it sits in the post (`avatar` for the poster's picture), its type and URL as answered. */
export interface ChosenMedium {
	/** Its position in the post's `media`, from 0; null for the avatar. */
	index: number | null;
	/** `image`, `video` … as the service answered it; `avatar` for the poster's picture. */
	type: string;
	/** The URL as answered (checked only when fetched). */
	url: unknown;
	/** The medium as the service answered it. */
	answered: IDataObject;
}

/** The media of a post to download, in the post's order, the poster's avatar last when asked for. */
export function chooseMedia(post: IDataObject, choice: MediaChoice, avatar: boolean): ChosenMedium[] {
	const media = (Array.isArray(post.media) ? post.media : []).map((value: unknown, index) => {
		const answered = isObject(value) ? value : {};
		return { index, type: nonBlankText(answered.type) ?? '', url: answered.url, answered };
	});
	const ofType = (types: string[]) => media.filter((m) => types.includes(m.type.toLowerCase()));
	const chosen: ChosenMedium[] =
		choice === 'images' ? ofType(IMAGE_TYPES) : choice === 'videos' ? ofType(VIDEO_TYPES) : choice === 'first' ? media.slice(0, 1) : media;
	if (avatar) {
		const poster = isObject(post.poster) ? post.poster : {};
		if (poster.image !== undefined && poster.image !== null && poster.image !== '') {
			chosen.push({ index: null, type: 'avatar', url: poster.image, answered: { url: poster.image } });
		}
	}
	return chosen;
}

/** How a medium is named in messages: "image 2", "the avatar". */
export function mediumLabel(medium: ChosenMedium): string {
	if (medium.index === null) return 'the poster’s avatar';
	return `${medium.type || 'medium'} ${medium.index + 1}`;
}

/** Why a media URL may not be fetched: not a web address, plain http to another machine, or a user name in it. */
export function mediaUrlProblem(value: unknown): string | undefined {
	const url = typeof value === 'string' ? value.trim() : '';
	if (url === '') return 'it has no URL';
	if (!URL.canParse(url)) return 'its URL is not a web address';
	const parsed = new URL(url);
	if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `its URL is not an https address (${parsed.protocol})`;
	if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) {
		return 'its URL uses plain http; media are fetched over https only (plain http only from this machine)';
	}
	if (parsed.username || parsed.password) return 'its URL carries a user name or password';
	return undefined;
}

/** A medium that could not be downloaded: the message names the post, the medium and the URL. */
export class MediaError extends Error {
	constructor(
		message: string,
		readonly description: string,
	) {
		super(message);
		this.name = 'MediaError';
	}
}

/** What a media host answered: the status, the headers, and the body (a stream, or bytes). */
export interface MediaAnswer {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

/** Sends one plain request (no credential) and answers every status. */
export type MediaFetch = (request: IHttpRequestOptions) => Promise<MediaAnswer>;

export interface DownloadOptions {
	/** The post, as messages name it. */
	postId: string;
	/** The most bytes read of the file. */
	maxBytes: number;
	timeoutMs: number;
}

/** A downloaded file: its bytes, a file name and a MIME type from the answer, and the URL it came from. */
export interface MediaFile {
	bytes: Buffer;
	fileName: string;
	mimeType: string;
	url: string;
}

/** The request for one media URL: a GET with no credential and no header of the node's, the body as a stream. */
export function mediaRequest(url: string, timeoutMs: number): IHttpRequestOptions {
	return {
		method: 'GET',
		url,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Every hop is checked by the https rule, so redirects are followed here rather than by the HTTP client.
		disableFollowRedirect: true,
		timeout: timeoutMs,
	};
}

const REDIRECTS = [301, 302, 303, 307, 308];

/** A size as the Max File Size (MB) field says it; bytes below 1 MB. */
function sizeText(bytes: number): string {
	const mb = 1024 * 1024;
	return bytes >= mb ? `${Math.round((bytes / mb) * 100) / 100} MB` : `${bytes} bytes`;
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
	const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
	const value = Array.isArray(found) ? found[0] : found;
	return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** Stops reading a body that is not read to its end (a stream left open keeps its connection). */
function discard(body: unknown): void {
	const stream = body as { destroy?: () => void } | null;
	if (stream && typeof stream.destroy === 'function') stream.destroy();
}

/** The body's bytes, or `tooBig` past `maxBytes` (without reading further). */
async function readCapped(body: unknown, maxBytes: number): Promise<Buffer | 'tooBig'> {
	if (isEmptyValue(body)) return Buffer.alloc(0);
	if (Buffer.isBuffer(body) || body instanceof Uint8Array || typeof body === 'string') {
		const bytes = Buffer.from(body as Buffer);
		return bytes.length > maxBytes ? 'tooBig' : bytes;
	}
	if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
		throw new Error('the answer has no body that can be read');
	}
	const chunks: Buffer[] = [];
	let length = 0;
	for await (const chunk of body as AsyncIterable<Buffer | string>) {
		const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
		length += bytes.length;
		if (length > maxBytes) {
			discard(body);
			return 'tooBig';
		}
		chunks.push(bytes);
	}
	return Buffer.concat(chunks, length);
}

/**
 * Downloads one medium: its URL checked (and every redirect's), fetched with `fetch`, a 2xx read up to `maxBytes`.
 * Anything else is a MediaError naming the post, the medium and the URL.
 */
export async function downloadMedium(fetch: MediaFetch, medium: ChosenMedium, options: DownloadOptions): Promise<MediaFile> {
	const what = `${mediumLabel(medium)} of post ${options.postId}`;
	const shown = typeof medium.url === 'string' && medium.url.trim() !== '' ? medium.url.trim() : '(none)';
	const fail = (url: string, reason: string, description: string) =>
		new MediaError(`Could not download ${what} from ${url}: ${reason}`, description);
	let url = shown;
	const problem = mediaUrlProblem(medium.url);
	if (problem) {
		throw fail(url, problem, 'Nothing was fetched. Media are downloaded from https URLs only (plain http only from this machine, for a local test service).');
	}
	for (let redirects = 0; ; redirects++) {
		let answer: MediaAnswer;
		try {
			answer = await fetch(mediaRequest(url, options.timeoutMs));
		} catch (error) {
			const reason = error instanceof Error ? error.message : String(error);
			throw fail(url, reason, 'The media host could not be reached or broke off. Check the URL, or try again later.');
		}
		const location = header(answer.headers, 'location');
		if (REDIRECTS.includes(answer.statusCode) && location !== undefined) {
			discard(answer.body);
			const next = URL.canParse(location, url) ? new URL(location, url).href : location;
			const nextProblem = mediaUrlProblem(next);
			if (nextProblem) {
				throw fail(url, `it redirects to ${next}, and ${nextProblem.replace(/^its URL/, 'that URL')}`, 'Media are downloaded from https URLs only.');
			}
			if (redirects >= MAX_REDIRECTS) throw fail(url, `more than ${MAX_REDIRECTS} redirects`, 'The media host redirects in a loop.');
			url = next;
			continue;
		}
		if (answer.statusCode < 200 || answer.statusCode > 299) {
			discard(answer.body);
			throw fail(url, `the media host answered ${answer.statusCode}`, 'The file may have been removed from the platform, or its link may have expired: get the post again for fresh URLs.');
		}
		const tooBig = () =>
			fail(url, `the file is larger than ${sizeText(options.maxBytes)}`, 'Raise "Max File Size (MB)" under Options to download larger files.');
		const declared = Number(header(answer.headers, 'content-length'));
		if (Number.isFinite(declared) && declared > options.maxBytes) {
			discard(answer.body);
			throw tooBig();
		}
		let bytes: Buffer | 'tooBig';
		try {
			bytes = await readCapped(answer.body, options.maxBytes);
		} catch (error) {
			const reason = error instanceof Error ? error.message : String(error);
			throw fail(url, `the download broke off (${reason})`, 'Try again later.');
		}
		if (bytes === 'tooBig') throw tooBig();
		const mimeType = mimeTypeOf(header(answer.headers, 'content-type'), url, medium.type);
		const fileName = fileNameOf(header(answer.headers, 'content-disposition'), url, mimeType, `post-${options.postId}-${medium.index ?? 'avatar'}`);
		return { bytes, fileName, mimeType, url };
	}
}

// The first extension of a type is the one a file name without an extension gets.
const EXTENSIONS: Record<string, string> = {
	avif: 'image/avif',
	gif: 'image/gif',
	heic: 'image/heic',
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	m4v: 'video/x-m4v',
	mov: 'video/quicktime',
	mp4: 'video/mp4',
	png: 'image/png',
	webm: 'video/webm',
	webp: 'image/webp',
};

/** Content-Types that say nothing of the file. */
const UNTYPED = ['', 'application/octet-stream', 'binary/octet-stream', 'application/binary'];

const extensionOf = (name: string) => /\.([a-z0-9]{2,5})$/i.exec(name)?.[1].toLowerCase();

/** The MIME type: the answer's Content-Type, else the URL's file extension, else the medium's type, else bytes. */
export function mimeTypeOf(contentType: string | undefined, url: string, mediumType: string): string {
	const answered = (contentType ?? '').split(';')[0].trim().toLowerCase();
	if (!UNTYPED.includes(answered) && /^[a-z]+\/[a-z0-9.+-]+$/.test(answered)) return answered;
	const path = URL.canParse(url) ? new URL(url).pathname : url;
	const byExtension = EXTENSIONS[extensionOf(path) ?? ''];
	if (byExtension) return byExtension;
	const type = mediumType.toLowerCase();
	if (type === 'avatar' || IMAGE_TYPES.includes(type)) return type === 'gif' || type === 'animated_gif' ? 'image/gif' : 'image/jpeg';
	if (VIDEO_TYPES.includes(type)) return 'video/mp4';
	return 'application/octet-stream';
}

/** A file name without folders or control characters. */
function cleanName(name: string): string {
	return name.replace(/[\\/]/g, '_').replace(/[\p{Cc}]/gu, '').trim();
}

/** The file name: the answer's Content-Disposition, else the URL's last path segment, else `fallback`; with an extension. */
export function fileNameOf(disposition: string | undefined, url: string, mimeType: string, fallback: string): string {
	let name = '';
	const encoded = /filename\*\s*=\s*(?:UTF-8|utf-8)?''([^;]+)/.exec(disposition ?? '');
	const plain = /filename\s*=\s*"?([^";]+)"?/.exec(disposition ?? '');
	try {
		if (encoded) name = decodeURIComponent(encoded[1].trim());
		else if (plain) name = plain[1].trim();
		if (name === '' && URL.canParse(url)) name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
	} catch {
		name = '';
	}
	name = cleanName(name);
	if (name === '' || name === '.' || name === '..') name = fallback;
	if (!extensionOf(name)) {
		const extension = Object.entries(EXTENSIONS).find(([, type]) => type === mimeType)?.[0];
		if (extension) name = `${name}.${extension}`;
	}
	return name;
}
