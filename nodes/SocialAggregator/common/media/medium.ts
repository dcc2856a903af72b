import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { classifyAddress, kindText } from './ipAddress';
import { detectFileType, fileNameOf, HEAD_BYTES } from './fileType';
import { mediaRequest, mediaUrlProblem, planHop, remoteAddress, type Hop, type ResolveHost } from './mediaUrl';
import { headerValue, isEmptyValue, isObject, nonBlankText } from '../../../shared/utils';

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

const REDIRECTS = [301, 302, 303, 307, 308];

/** A size as the Max File Size (MB) field says it; bytes below 1 MB. */
function sizeText(bytes: number): string {
	const mb = 1024 * 1024;
	return bytes >= mb ? `${Math.round((bytes / mb) * 100) / 100} MB` : `${bytes} bytes`;
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

/** One medium's download: how errors name it, its time limit and cancel signal, and the steps of each hop. */
class MediumDownload {
	private readonly what: string;
	private readonly allow: boolean;
	private readonly deadline: AbortSignal;
	private readonly signal: AbortSignal;

	constructor(
		private readonly network: MediaNetwork,
		private readonly medium: ChosenMedium,
		private readonly options: DownloadOptions,
	) {
		this.what = `${mediumLabel(medium)} of post ${options.postId}`;
		this.allow = options.allowPrivateNetwork === true;
		this.deadline = AbortSignal.timeout(options.timeLimitMs);
		this.signal = options.cancelSignal ? AbortSignal.any([this.deadline, options.cancelSignal]) : this.deadline;
	}

	fail(url: string, reason: string, description: string): MediaError {
		return new MediaError(`Could not download ${this.what} from ${url}: ${reason}`, description);
	}

	/** Why a request or a read ended, when the time limit or the execution's stop ended it. */
	private stopped(url: string): MediaError | undefined {
		if (this.options.cancelSignal?.aborted) return this.fail(url, 'the execution was stopped', 'Nothing more was read.');
		if (this.deadline.aborted) {
			return this.fail(url, `it took longer than ${secondsText(this.options.timeLimitMs)}, the Time Limit per File`, TIME_HELP);
		}
		return undefined;
	}

	/** The hop to `next`, or a MediaError from `from` saying why not; `redirect` words a redirect's refusal. */
	async plan(from: string, next: string, redirect = false): Promise<Hop> {
		const refuse = (reason: string) =>
			this.fail(from, redirect ? `it redirects to ${next}, and ${reason.replace(/^its /, 'that ')}` : reason, ADDRESS_HELP);
		const problem = mediaUrlProblem(next, this.allow);
		if (problem) throw refuse(problem);
		let planned: Hop | { refused: string };
		try {
			planned = await untilAborted(planHop(next, this.network.resolve, this.allow), this.signal);
		} catch (error) {
			throw this.stopped(from) ?? this.fail(from, error instanceof Error ? error.message : String(error), ADDRESS_HELP);
		}
		if ('refused' in planned) throw refuse(planned.refused);
		return planned;
	}

	/** The answer of the host `hop` goes to, its address checked where the hop asks for it. */
	async answer(url: string, hop: Hop): Promise<MediaAnswer> {
		let answer: MediaAnswer;
		const sent = this.network.fetch(mediaRequest(hop, this.options.timeoutMs, this.signal));
		try {
			answer = await untilAborted(sent, this.signal);
		} catch (error) {
			// A request left behind by the time limit may still answer: its body is not read.
			void sent.then((late) => discard(late.body), () => undefined);
			const reason = error instanceof Error ? error.message : String(error);
			throw this.stopped(url) ?? this.fail(url, reason, 'The media host could not be reached or broke off. Check the URL, or try again later.');
		}
		if (hop.checkRemote) {
			const from = remoteAddress(answer.body);
			const found = from === undefined ? undefined : classifyAddress(from);
			if (!found || found.kind !== 'public') {
				discard(answer.body);
				const reason = found
					? `its host answered from ${found.address}, ${kindText(found)}`
					: 'the address its host answered from could not be checked (this n8n version offers nodes no lookup of host names)';
				throw this.fail(url, reason, ADDRESS_HELP);
			}
		}
		return answer;
	}

	/** A 2xx answer's body as a file, when it is within the size cap and its bytes are an image or a video. */
	async file(url: string, answer: MediaAnswer): Promise<MediaFile> {
		const { maxBytes, postId } = this.options;
		const tooBig = () => this.fail(url, `the file is larger than ${sizeText(maxBytes)}`, 'Raise "Max File Size (MB)" under Options to download larger files.');
		const declared = Number(headerValue(answer.headers, 'content-length'));
		if (Number.isFinite(declared) && declared > maxBytes) {
			discard(answer.body);
			throw tooBig();
		}
		let read: BodyRead;
		try {
			read = await readBody(answer.body, maxBytes, this.signal);
		} catch (error) {
			discard(answer.body);
			const reason = error instanceof Error ? error.message : String(error);
			throw this.stopped(url) ?? this.fail(url, `the download broke off (${reason})`, 'Try again later.');
		}
		if ('tooBig' in read) throw tooBig();
		const bytes = 'head' in read ? read.head : read.bytes;
		if (bytes.length === 0) throw this.fail(url, 'the file is empty', TYPE_HELP);
		const type = detectFileType(bytes);
		if ('notMedia' in type) {
			const looks = type.notMedia === 'unknown' ? 'its first bytes are of no image or video format' : `its bytes look like ${type.notMedia}`;
			throw this.fail(url, `the file is not an image or a video: ${looks}`, TYPE_HELP);
		}
		const fallback = `post-${postId}-${this.medium.index ?? 'avatar'}`;
		const fileName = fileNameOf(headerValue(answer.headers, 'content-disposition'), url, type.extension, fallback);
		return { bytes, fileName, mimeType: type.mimeType, url };
	}
}

/**
 * Downloads one medium within `timeLimitMs`: its URL checked and every redirect's, each hop's address checked
 * (`planHop`), fetched with `network.fetch`, a 2xx read up to `maxBytes` and kept only when its bytes are an image
 * or a video. Anything else is a MediaError naming the post, the medium and the URL.
 */
export async function downloadMedium(network: MediaNetwork, medium: ChosenMedium, options: DownloadOptions): Promise<MediaFile> {
	const download = new MediumDownload(network, medium, options);
	const shown = typeof medium.url === 'string' && medium.url.trim() !== '' ? medium.url.trim() : '(none)';
	let url = shown;
	let hop = await download.plan(url, shown === '(none)' ? '' : shown);
	for (let redirects = 0; ; redirects++) {
		const answer = await download.answer(url, hop);
		const location = headerValue(answer.headers, 'location');
		if (REDIRECTS.includes(answer.statusCode) && location !== undefined) {
			discard(answer.body);
			const next = URL.canParse(location, url) ? new URL(location, url).href : location;
			if (redirects >= MAX_REDIRECTS) throw download.fail(url, `more than ${MAX_REDIRECTS} redirects`, 'The media host redirects in a loop.');
			hop = await download.plan(url, next, true);
			url = next;
			continue;
		}
		if (answer.statusCode < 200 || answer.statusCode > 299) {
			discard(answer.body);
			throw download.fail(url, `the media host answered ${answer.statusCode}`, 'The file may have been removed from the platform, or its link may have expired: get the post again for fresh URLs.');
		}
		return await download.file(url, answer);
	}
}
