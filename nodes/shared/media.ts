import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { classifyAddress, kindText } from './ipAddress';
import { isEmptyValue, isObject, nonBlankText } from './utils';

// A post's media as files: which media, the rules for their URLs, and the download itself with the network passed
// in. A post's media URLs are written by whoever posted, and the download runs inside the user's network: a media
// host gets nothing of the credential, every hop (the first URL and each redirect) must be a public address over
// https unless the user allows private hosts, the connection goes to the address that was checked, a file has a
// time limit and a size cap, and only the bytes of an image or a video are kept, named and typed by those bytes.

/** Which media of a post: every medium, its images, its videos, or its first medium. */
export type MediaChoice = 'all' | 'images' | 'videos' | 'first';

export const MEDIA_CHOICES: MediaChoice[] = ['all', 'images', 'videos', 'first'];

/** The service documents the type `image` only (docs/service.md#media); these names are read as images or videos too. */
const IMAGE_TYPES = ['image', 'photo', 'gif', 'animated_gif'];
const VIDEO_TYPES = ['video'];

/** The default cap of one file, in MB: a phone's video of a few minutes; a raised cap is the user's choice. */
export const DEFAULT_MAX_FILE_MB = 25;

/** The default time one file may take, from connecting to its last byte. */
export const DEFAULT_TIME_LIMIT_SECONDS = 60;

/** Redirects followed per file, each checked by the same rules as the first URL. */
const MAX_REDIRECTS = 5;

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
function mediumLabel(medium: ChosenMedium): string {
	if (medium.index === null) return 'the poster’s avatar';
	return `${medium.type || 'medium'} ${medium.index + 1}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Where a medium may be fetched from
// ---------------------------------------------------------------------------------------------------------------

/**
 * Why a media URL may not be fetched, before any lookup: not a web address, a user name in it, an IP address that
 * is not public, or plain http; with `allowPrivateNetwork`, any http(s) address without a user name.
 */
export function mediaUrlProblem(value: unknown, allowPrivateNetwork = false): string | undefined {
	const url = typeof value === 'string' ? value.trim() : '';
	if (url === '') return 'it has no URL';
	if (!URL.canParse(url)) return 'its URL is not a web address';
	const parsed = new URL(url);
	if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `its URL is not an https address (${parsed.protocol})`;
	if (parsed.username || parsed.password) return 'its URL carries a user name or password';
	if (allowPrivateNetwork) return undefined;
	// The URL parser has already rewritten 2130706433, 0x7f.1 and 127.1 to 127.0.0.1.
	const literal = classifyAddress(parsed.hostname);
	if (literal && literal.kind !== 'public') return `its address ${literal.address} is ${kindText(literal)}`;
	if (parsed.protocol === 'http:') return 'its URL uses plain http; media are fetched over https only';
	return undefined;
}

/** All addresses of a host name, by n8n's own lookup (which applies the instance's SSRF rules as well). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** Where one hop's request goes: the address checked, with the name the host is asked by and TLS verifies. */
interface Hop {
	/** The URL as the post or a redirect gave it. */
	url: string;
	/** The URL connected to: the checked IP address in place of a host name. */
	target: string;
	/** The host (and port) the request names, for a target that is an address in place of the name. */
	host?: string;
	/** The name TLS asks for and checks the certificate against. */
	servername?: string;
	/** Whether the answer's remote address must be checked before anything of it is read (no lookup was possible). */
	checkRemote: boolean;
}

/**
 * The hop to `url`, its address checked: an IP address in the URL as it is, a host name through `resolve` (every
 * address it has must be public, and the request goes to the first of them, so no second lookup can answer
 * otherwise). Without `resolve` (n8n before 2.0 offers a node no lookup), a host name is connected to by name and
 * the address it answered from is checked before anything of the answer is read. `allowPrivateNetwork` sends the
 * URL as it is. A refusal's reason completes "Could not download … from <url>: ".
 */
export async function planHop(url: string, resolve: ResolveHost | undefined, allowPrivateNetwork: boolean): Promise<Hop | { refused: string }> {
	const parsed = new URL(url);
	const literal = classifyAddress(parsed.hostname);
	if (literal && literal.kind !== 'public' && !allowPrivateNetwork) return { refused: `its address ${literal.address} is ${kindText(literal)}` };
	if (allowPrivateNetwork || literal) return { url, target: parsed.href, checkRemote: false };
	if (!resolve) return { url, target: parsed.href, checkRemote: true };
	let addresses: string[];
	try {
		addresses = await resolve(parsed.hostname);
	} catch (error) {
		return { refused: `its host could not be resolved (${error instanceof Error ? error.message : String(error)})` };
	}
	if (addresses.length === 0) return { refused: 'its host has no address' };
	for (const address of addresses) {
		const found = classifyAddress(address);
		if (!found) return { refused: `its host resolves to ${address}, which is not an IP address` };
		if (found.kind !== 'public') return { refused: `its host resolves to ${found.address}, ${kindText(found)}` };
	}
	const pinned = new URL(parsed.href);
	pinned.hostname = addresses[0].includes(':') ? `[${addresses[0]}]` : addresses[0];
	return { url, target: pinned.href, host: parsed.host, servername: parsed.hostname.replace(/\.$/, ''), checkRemote: false };
}

/** The address an answer came from, where its body is the socket's own stream; undefined when that is not known. */
function remoteAddress(body: unknown): string | undefined {
	const socket = (body as { socket?: { remoteAddress?: unknown } } | null)?.socket;
	return typeof socket?.remoteAddress === 'string' ? socket.remoteAddress : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// The download
// ---------------------------------------------------------------------------------------------------------------

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
type MediaFetch = (request: IHttpRequestOptions) => Promise<MediaAnswer>;

/** How media reach the network: the request, and the lookup of host names where n8n offers one. */
export interface MediaNetwork {
	fetch: MediaFetch;
	resolve?: ResolveHost;
}

export interface DownloadOptions {
	/** The post, as messages name it. */
	postId: string;
	/** The most bytes read of the file. */
	maxBytes: number;
	/** How long one request may wait for its answer (n8n's request timeout). */
	timeoutMs: number;
	/** How long the whole file may take, redirects, lookups and body included. */
	timeLimitMs: number;
	/** Whether hosts on private, loopback and other non-public addresses, and plain http, may be fetched. */
	allowPrivateNetwork?: boolean;
	/** The execution's cancel signal: the download stops when it fires. */
	cancelSignal?: AbortSignal;
}

/** A downloaded file: its bytes, a file name and a MIME type from what the bytes are, and the URL it came from. */
export interface MediaFile {
	bytes: Buffer;
	fileName: string;
	mimeType: string;
	url: string;
}

/** The request for one hop: a GET with no credential and no header of the node's, the body as a stream. */
export function mediaRequest(hop: Hop, timeoutMs: number, signal?: AbortSignal): IHttpRequestOptions {
	const request: IHttpRequestOptions = {
		method: 'GET',
		url: hop.target,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Every hop is checked by the same rules, so redirects are followed here rather than by the HTTP client.
		disableFollowRedirect: true,
		timeout: timeoutMs,
	};
	if (signal) request.abortSignal = signal;
	// The connection goes to the checked address; the host is still asked for by its name, and TLS checks the
	// certificate against that name (n8n keeps a servername given for an address).
	if (hop.host) request.headers = { Host: hop.host };
	if (hop.servername) request.agentOptions = { servername: hop.servername };
	return request;
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

/** `promise`, or the signal's reason as soon as it fires (a request or a read that hangs is left behind). */
async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
	signal.throwIfAborted();
	let onAbort = () => {};
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(signal.reason);
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		return await Promise.race([promise, aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

/** The leading bytes read before a body is judged: enough for an SVG's XML prologue or a video's brands. */
const HEAD_BYTES = 512;

type BodyRead = { bytes: Buffer } | { tooBig: true } | { head: Buffer };

/**
 * The body's bytes, `tooBig` past `maxBytes` (without reading further), or `head` when its first bytes are not an
 * image or a video (without reading further); it stops as soon as `signal` fires (the caller then destroys the body).
 */
async function readBody(body: unknown, maxBytes: number, signal: AbortSignal): Promise<BodyRead> {
	if (isEmptyValue(body)) return { bytes: Buffer.alloc(0) };
	if (Buffer.isBuffer(body) || body instanceof Uint8Array || typeof body === 'string') {
		const bytes = Buffer.from(body as Buffer);
		return bytes.length > maxBytes ? { tooBig: true } : { bytes };
	}
	if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
		throw new Error('the answer has no body that can be read');
	}
	const chunks: Buffer[] = [];
	let length = 0;
	let judged = false;
	const iterator = (body as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
	for (;;) {
		// The caller destroys the body when this throws (the time limit, the execution stopped, a broken read).
		const next = await untilAborted(iterator.next(), signal);
		if (next.done) break;
		const bytes = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
		length += bytes.length;
		if (length > maxBytes) {
			discard(body);
			return { tooBig: true };
		}
		chunks.push(bytes);
		if (!judged && length >= HEAD_BYTES) {
			judged = true;
			const head = Buffer.concat(chunks, length);
			if ('notMedia' in detectFileType(head)) {
				discard(body);
				return { head };
			}
		}
	}
	return { bytes: Buffer.concat(chunks, length) };
}

/** "2 s", "0.5 s". */
const secondsText = (ms: number) => `${Math.round(ms) / 1000} s`;

const TIME_HELP =
	'The media host sent the file too slowly or not at all. Raise "Time Limit per File (Seconds)" under Options for large files or slow hosts.';

const ADDRESS_HELP =
	'Nothing was read from it. A post’s links are written by whoever posted, so media are downloaded only from public internet addresses, over https. To download from your own network (an intranet host, or a test service on this machine), turn on "Allow Private Network Hosts" under Options.';

const TYPE_HELP =
	'Only images (JPEG, PNG, GIF, WebP, AVIF, HEIC, BMP) and videos (MP4, MOV, M4V, WebM, Matroska) are kept, recognised by their first bytes: the link may lead to a web page, a script or a program. Nothing was saved.';

/**
 * Downloads one medium within `timeLimitMs`: its URL checked and every redirect's, each hop's address checked
 * (`planHop`), fetched with `network.fetch`, a 2xx read up to `maxBytes` and kept only when its bytes are an image
 * or a video. Anything else is a MediaError naming the post, the medium and the URL.
 */
export async function downloadMedium(network: MediaNetwork, medium: ChosenMedium, options: DownloadOptions): Promise<MediaFile> {
	const what = `${mediumLabel(medium)} of post ${options.postId}`;
	const shown = typeof medium.url === 'string' && medium.url.trim() !== '' ? medium.url.trim() : '(none)';
	const fail = (url: string, reason: string, description: string) =>
		new MediaError(`Could not download ${what} from ${url}: ${reason}`, description);
	const allow = options.allowPrivateNetwork === true;
	const deadline = AbortSignal.timeout(options.timeLimitMs);
	const signal = options.cancelSignal ? AbortSignal.any([deadline, options.cancelSignal]) : deadline;
	/** Why a request or a read ended, when the time limit or the execution's stop ended it. */
	const stopped = (url: string) => {
		if (options.cancelSignal?.aborted) return fail(url, 'the execution was stopped', 'Nothing more was read.');
		if (deadline.aborted) return fail(url, `it took longer than ${secondsText(options.timeLimitMs)}, the Time Limit per File`, TIME_HELP);
		return undefined;
	};
	/** The hop to `next`, or a MediaError from `from` saying why not; `redirect` words a redirect's refusal. */
	const plan = async (from: string, next: string, redirect = false): Promise<Hop> => {
		const refuse = (reason: string) =>
			fail(from, redirect ? `it redirects to ${next}, and ${reason.replace(/^its /, 'that ')}` : reason, ADDRESS_HELP);
		const problem = mediaUrlProblem(next, allow);
		if (problem) throw refuse(problem);
		let planned: Hop | { refused: string };
		try {
			planned = await untilAborted(planHop(next, network.resolve, allow), signal);
		} catch (error) {
			throw stopped(from) ?? fail(from, error instanceof Error ? error.message : String(error), ADDRESS_HELP);
		}
		if ('refused' in planned) throw refuse(planned.refused);
		return planned;
	};
	let url = shown;
	let hop = await plan(url, shown === '(none)' ? '' : shown);
	for (let redirects = 0; ; redirects++) {
		let answer: MediaAnswer;
		const sent = network.fetch(mediaRequest(hop, options.timeoutMs, signal));
		try {
			answer = await untilAborted(sent, signal);
		} catch (error) {
			// A request left behind by the time limit may still answer: its body is not read.
			void sent.then((late) => discard(late.body), () => undefined);
			const reason = error instanceof Error ? error.message : String(error);
			throw stopped(url) ?? fail(url, reason, 'The media host could not be reached or broke off. Check the URL, or try again later.');
		}
		if (hop.checkRemote) {
			const from = remoteAddress(answer.body);
			const found = from === undefined ? undefined : classifyAddress(from);
			if (!found || found.kind !== 'public') {
				discard(answer.body);
				const reason = found
					? `its host answered from ${found.address}, ${kindText(found)}`
					: 'the address its host answered from could not be checked (this n8n version offers nodes no lookup of host names)';
				throw fail(url, reason, ADDRESS_HELP);
			}
		}
		const location = header(answer.headers, 'location');
		if (REDIRECTS.includes(answer.statusCode) && location !== undefined) {
			discard(answer.body);
			const next = URL.canParse(location, url) ? new URL(location, url).href : location;
			if (redirects >= MAX_REDIRECTS) throw fail(url, `more than ${MAX_REDIRECTS} redirects`, 'The media host redirects in a loop.');
			hop = await plan(url, next, true);
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
		let read: BodyRead;
		try {
			read = await readBody(answer.body, options.maxBytes, signal);
		} catch (error) {
			discard(answer.body);
			const reason = error instanceof Error ? error.message : String(error);
			throw stopped(url) ?? fail(url, `the download broke off (${reason})`, 'Try again later.');
		}
		if ('tooBig' in read) throw tooBig();
		const bytes = 'head' in read ? read.head : read.bytes;
		if (bytes.length === 0) throw fail(url, 'the file is empty', TYPE_HELP);
		const type = detectFileType(bytes);
		if ('notMedia' in type) {
			const looks = type.notMedia === 'unknown' ? 'its first bytes are of no image or video format' : `its bytes look like ${type.notMedia}`;
			throw fail(url, `the file is not an image or a video: ${looks}`, TYPE_HELP);
		}
		const fallback = `post-${options.postId}-${medium.index ?? 'avatar'}`;
		const fileName = fileNameOf(header(answer.headers, 'content-disposition'), url, type.extension, fallback);
		return { bytes, fileName, mimeType: type.mimeType, url };
	}
}

// ---------------------------------------------------------------------------------------------------------------
// What the bytes are
// ---------------------------------------------------------------------------------------------------------------

/** An image or a video recognised by its bytes, with the extension its file gets. */
interface MediaType {
	mimeType: string;
	extension: string;
}

const media = (mimeType: string, extension: string): MediaType => ({ mimeType, extension });

/** ISO base media brands (the `ftyp` box) of plain MP4 video. */
const MP4_BRANDS = new Set([
	'isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'mp41', 'mp42', 'mp71', 'avc1', 'av01',
	'dash', 'msnv', 'mmp4', 'f4v ', 'f4p ', 'xavc', '3gp4', '3gp5', '3gp6', '3gp7', '3gp8', '3gp9', '3g2a', '3g2b', '3g2c',
]);
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis']);
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'heif']);
const AUDIO_BRANDS = new Set(['m4a ', 'm4b ', 'm4p ', 'f4a ', 'f4b ']);

/** An ISO base media file (MP4, MOV, HEIC, AVIF …) by the brands of its `ftyp` box. */
function isoMediaType(bytes: Buffer): MediaType | { notMedia: string } {
	const size = Math.min(bytes.readUInt32BE(0), bytes.length);
	const major = bytes.toString('latin1', 8, 12).toLowerCase();
	const brands = [major];
	for (let at = 16; at + 4 <= size; at += 4) brands.push(bytes.toString('latin1', at, at + 4).toLowerCase());
	if (brands.includes('avif') || brands.includes('avis')) return media('image/avif', 'avif');
	if (HEIC_BRANDS.has(major) || (HEIF_BRANDS.has(major) && brands.some((b) => HEIC_BRANDS.has(b)))) return media('image/heic', 'heic');
	if (HEIF_BRANDS.has(major)) return media('image/heif', 'heif');
	if (major === 'qt  ') return media('video/quicktime', 'mov');
	if (major.startsWith('m4v')) return media('video/x-m4v', 'm4v');
	if (AUDIO_BRANDS.has(major)) return { notMedia: 'audio (MPEG-4)' };
	if (brands.some((b) => MP4_BRANDS.has(b))) return media('video/mp4', 'mp4');
	return { notMedia: 'unknown' };
}

/** What text that is not media looks like: HTML, SVG, XML, JSON, JavaScript, a script, or plain text; undefined if binary. */
function textKind(bytes: Buffer): string | undefined {
	const head = bytes.subarray(0, HEAD_BYTES);
	const printable = head.every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b !== 127));
	const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
	if (text.startsWith('<')) {
		if (/^<svg[\s>/]|^<!doctype svg/.test(text) || (/^<(\?xml|!--)/.test(text) && /<svg[\s>/]/.test(text))) return 'SVG (an image that can carry script)';
		if (/^<\?xml/.test(text) && !/<html[\s>]/.test(text)) return 'XML';
		return 'HTML (a web page)';
	}
	if (!printable) return undefined;
	if (text.startsWith('#!')) return 'a script (#!)';
	if (/^[{[]/.test(text)) return 'JSON';
	if (/^(\(\s*function|!function|["']use strict["']|(var|let|const|function|async|import|export|class)[\s{(]|(window|document|self)\.|\/\/|\/\*)/.test(text)) return 'JavaScript';
	return 'plain text';
}

/**
 * What a file's leading bytes are: an image or a video this node keeps (JPEG, PNG, GIF, WebP, BMP, AVIF, HEIC/HEIF,
 * MP4, MOV, M4V, WebM, Matroska), or what else they look like (`unknown` when nothing is recognised). The answer's
 * Content-Type and the URL's extension are not asked: a host may say anything of a file.
 */
export function detectFileType(bytes: Buffer): MediaType | { notMedia: string } {
	const starts = (hex: string, at = 0) => bytes.length >= at + hex.length / 2 && bytes.subarray(at, at + hex.length / 2).equals(Buffer.from(hex, 'hex'));
	const ascii = (text: string, at = 0) => bytes.toString('latin1', at, at + text.length) === text;
	if (starts('ffd8ff')) return media('image/jpeg', 'jpg');
	if (starts('89504e470d0a1a0a')) return media('image/png', 'png');
	if (ascii('GIF87a') || ascii('GIF89a')) return media('image/gif', 'gif');
	if (ascii('RIFF') && ascii('WEBP', 8)) return media('image/webp', 'webp');
	if (ascii('BM') && bytes.length >= 18 && bytes.readUInt32LE(6) === 0 && [12, 40, 52, 56, 64, 108, 124].includes(bytes.readUInt32LE(14))) {
		return media('image/bmp', 'bmp');
	}
	if (bytes.length >= 12 && ascii('ftyp', 4)) return isoMediaType(bytes);
	if (starts('1a45dfa3')) {
		const head = bytes.toString('latin1', 0, 64);
		if (head.includes('webm')) return media('video/webm', 'webm');
		if (head.includes('matroska')) return media('video/x-matroska', 'mkv');
		return { notMedia: 'unknown' };
	}
	if (ascii('MZ')) return { notMedia: 'a Windows program' };
	if (starts('7f454c46')) return { notMedia: 'a Linux program (ELF)' };
	if (['feedface', 'feedfacf', 'cefaedfe', 'cffaedfe', 'cafebabe'].some((magic) => starts(magic))) return { notMedia: 'a program (Mach-O or Java)' };
	if (ascii('%PDF-')) return { notMedia: 'a PDF document' };
	if (starts('504b0304')) return { notMedia: 'a ZIP archive' };
	if (starts('1f8b')) return { notMedia: 'a gzip archive' };
	if (ascii('ID3') || ascii('OggS') || ascii('fLaC') || (ascii('RIFF') && ascii('WAVE', 8))) return { notMedia: 'audio' };
	return { notMedia: textKind(bytes) ?? 'unknown' };
}

// ---------------------------------------------------------------------------------------------------------------
// File names
// ---------------------------------------------------------------------------------------------------------------

/** The longest file name given, extension included. */
export const MAX_FILE_NAME = 120;

/** Names Windows keeps for devices, with any extension. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i;

/**
 * A file name safe on every system, ending in `extension`: no control or format characters (a right-to-left
 * override can disguise `gpj.exe`), no path characters, no leading dots, no Windows device name, at most
 * MAX_FILE_NAME characters; the name's own extension gives way to `extension`; `fallback` where nothing is left.
 */
export function safeFileName(name: string, extension: string, fallback: string): string {
	const clean = (text: string) =>
		text
			.replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, '')
			.replace(/[\\/:*?"<>|]/g, '_')
			.replace(/\.(?=[a-z0-9]*[a-z])[a-z0-9]{1,5}$/i, '')
			.replace(/^[\s.]+|[\s.]+$/g, '');
	let base = clean(name) || clean(fallback) || 'medium';
	if (WINDOWS_RESERVED.test(base.split('.')[0].trim())) base = `_${base}`;
	const room = MAX_FILE_NAME - extension.length - 1;
	base = Array.from(base).slice(0, room).join('').replace(/[\s.]+$/, '') || 'medium';
	return `${base}.${extension}`;
}

/** The file name: the answer's Content-Disposition, else the URL's last path segment, else `fallback`; made safe, ending in `extension`. */
export function fileNameOf(disposition: string | undefined, url: string, extension: string, fallback: string): string {
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
	return safeFileName(name, extension, fallback);
}
