/**
 * Media files on loopback. Posts name their images, videos and avatars on made-up CDN hosts
 * (`https://pbs.twimg.com/media/tw1_0.jpg`), which nothing can fetch. With media serving on
 * (`start({ serveMedia: true })` or `control.media.serve(true)`), every such URL in an answer under
 * /v1 points at this fake instead (`http://127.0.0.1:<port>/media/tw1_0.jpg`, avatars under
 * `/media/avatars/`), and `GET /media/<name>` answers deterministic bytes of the right type: a JPEG
 * for `.jpg`, an MP4 for `.mp4`. A medium can be made to fail (404, a reset connection, a redirect,
 * no Content-Type, a given size, other bytes such as a web page, a byte at a time); every media request is
 * logged, with whether it carried an API key and how much of the file was sent.
 */
import { createHash } from 'crypto';
import type { IncomingMessage, ServerResponse } from 'http';

import type { Reply } from './router';
import type { Service } from './service';
import { ApiError, isPlainObject, type JsonObject } from './util';

/** How one medium is answered instead of its bytes (control.media.set). */
export interface MediaOverride {
	/** Answer this status with a short text body instead of the file (e.g. 404). */
	status?: number;
	/** Destroy the connection without an answer. */
	reset?: boolean;
	/** Answer 302 to this URL. */
	redirectTo?: string;
	/** The file's size in bytes instead of its own (bytes from the same deterministic stream). */
	size?: number;
	/** Another Content-Type; null sends none. */
	contentType?: string | null;
	/** Serve this text (status 200) in place of the file's bytes, such as a web page. */
	body?: string;
	/** Send the file one byte every this many milliseconds (no Content-Length), until it ends or the client goes. */
	trickleMs?: number;
}

export interface MediaRequest {
	/** The path asked for, e.g. /media/tw1_0.jpg. */
	path: string;
	status: number;
	/** The names of the request's headers, lower case. */
	headers: string[];
	/** Whether any header value or the URL held one of the service's API keys. */
	carriedApiKey: boolean;
	/** Bytes of the body sent so far. */
	bytesSent: number;
	/** Whether the answer is still being sent (a trickle the client has not left). */
	open: boolean;
	/** When the request came, and when its connection closed (ms since the epoch; closedAt undefined while open). */
	receivedAt: number;
	closedAt?: number;
}

export interface MediaControl {
	/** Whether answers point media URLs at this fake (false after a reset, unless started with serveMedia). */
	serve(on: boolean): void;
	/** What `GET <origin>/media/<name>` answers for a name (or a whole media URL): the bytes and their type. */
	file(nameOrUrl: string): { bytes: Buffer; contentType: string };
	/** Answer a medium otherwise (`{ status: 404 }`, `{ reset: true }`, `{ trickleMs: 300 }` ...); a name or a whole media URL. */
	set(nameOrUrl: string, override: MediaOverride): void;
	/** The media requests received, oldest first. */
	requests(): MediaRequest[];
	/** Forget overrides and requests (serving stays as it is). */
	clear(): void;
}

const TYPES: Record<string, string> = { jpg: 'image/jpeg', mp4: 'video/mp4' };

/** A made-up CDN media or avatar URL, as content.ts writes them. */
const CDN_MEDIA = /^https:\/\/[a-z0-9.-]+\/(media|avatars)\/([A-Za-z0-9_.-]+\.(?:jpg|mp4))$/;

/** The path under /media/ of a name, a served URL or a made-up CDN URL. */
function mediaPath(nameOrUrl: string): string {
	const cdn = CDN_MEDIA.exec(nameOrUrl);
	if (cdn) return cdn[1] === 'avatars' ? `avatars/${cdn[2]}` : cdn[2];
	const served = /\/media\/(.+)$/.exec(nameOrUrl);
	return served ? served[1] : nameOrUrl.replace(/^\/+/, '');
}

/** `size` bytes that depend on the name only: sha256 of the name and a counter, block after block. */
function stream(name: string, size: number): Buffer {
	const blocks: Buffer[] = [];
	for (let i = 0, length = 0; length < size; i++) {
		const block = createHash('sha256').update(`${name}#${i}`).digest();
		blocks.push(block);
		length += block.length;
	}
	return Buffer.concat(blocks).subarray(0, size);
}

/** The file of a name: a JPEG (SOI, JFIF header, data, EOI) or an MP4 (ftyp and mdat boxes), 2 to 6 KiB. */
function fileBytes(path: string, size?: number): Buffer {
	const length = size ?? 2048 + (createHash('sha256').update(path).digest().readUInt16BE(0) % 4096);
	if (path.endsWith('.mp4')) {
		const ftyp = Buffer.from('00000018667479706973366d0000020069736f6d6d703431', 'hex');
		const mdatHeader = Buffer.alloc(8);
		mdatHeader.writeUInt32BE(Math.max(8, length - ftyp.length));
		mdatHeader.write('mdat', 4, 'latin1');
		const head = Buffer.concat([ftyp, mdatHeader]);
		return Buffer.concat([head, stream(path, Math.max(0, length - head.length))]).subarray(0, length);
	}
	const head = Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex');
	const tail = Buffer.from('ffd9', 'hex');
	return Buffer.concat([head, stream(path, Math.max(0, length - head.length - tail.length)), tail]).subarray(0, length);
}

export class MediaHost {
	serving: boolean;

	private overrides = new Map<string, MediaOverride>();

	private log: MediaRequest[] = [];

	constructor(private readonly svc: Service, private readonly servingAtStart: boolean) {
		this.serving = servingAtStart;
	}

	reset(): void {
		this.serving = this.servingAtStart;
		this.overrides.clear();
		this.log = [];
	}

	/** A /v1 answer with its made-up media URLs pointing here, while serving is on. */
	rewrite(reply: Reply): Reply {
		if (!this.serving || reply.body === undefined || reply.text !== undefined) return reply;
		const origin = this.svc.origin;
		const walk = (value: unknown): unknown => {
			if (typeof value === 'string') {
				return CDN_MEDIA.test(value) ? `${origin}/media/${mediaPath(value)}` : value;
			}
			if (Array.isArray(value)) return value.map(walk);
			if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
			return value;
		};
		return { ...reply, body: walk(reply.body) };
	}

	/** GET /media/<name>: the file, or its override; logged. */
	handle(req: IncomingMessage, res: ServerResponse, url: URL): void {
		const path = decodeURIComponent(url.pathname.slice('/media/'.length));
		const keys = [...this.svc.state.keys.values()].map((key) => key.key);
		const said = [req.url ?? '', ...Object.values(req.headers).flat()].map(String);
		const entry: MediaRequest = {
			path: url.pathname,
			status: 0,
			headers: Object.keys(req.headers),
			carriedApiKey: said.some((text) => keys.some((key) => text.includes(key))),
			bytesSent: 0,
			open: false,
			receivedAt: Date.now(),
		};
		res.on('close', () => (entry.closedAt = Date.now()));
		this.log.push(entry);
		const override = this.overrides.get(path) ?? {};
		const type = TYPES[path.split('.').pop() ?? ''];
		const answer = (status: number, headers: Record<string, string>, body: Buffer | string) => {
			entry.status = status;
			entry.bytesSent = Buffer.byteLength(body);
			res.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
			res.end(body);
		};
		if (override.reset) {
			req.socket.destroy();
			return;
		}
		if (override.redirectTo) return answer(302, { Location: override.redirectTo }, '');
		if (override.status !== undefined) return answer(override.status, { 'Content-Type': 'text/plain' }, `status ${override.status}`);
		if ((req.method ?? 'GET') !== 'GET' || !type) return answer(404, { 'Content-Type': 'text/plain' }, 'no such medium');
		const contentType = override.contentType === undefined ? type : override.contentType;
		const headers: Record<string, string> = contentType === null ? {} : { 'Content-Type': contentType };
		const bytes = override.body === undefined ? fileBytes(path, override.size) : Buffer.from(override.body);
		if (override.trickleMs !== undefined) return this.trickle(res, entry, headers, bytes, override.trickleMs);
		answer(200, headers, bytes);
	}

	/** Sends `bytes` one at a time, every `everyMs`, until they end or the client closes the connection. */
	private trickle(res: ServerResponse, entry: MediaRequest, headers: Record<string, string>, bytes: Buffer, everyMs: number): void {
		entry.status = 200;
		entry.open = true;
		res.writeHead(200, headers);
		res.flushHeaders();
		const timer = setInterval(() => {
			if (entry.bytesSent >= bytes.length) {
				clearInterval(timer);
				res.end();
				return;
			}
			res.write(bytes.subarray(entry.bytesSent, entry.bytesSent + 1));
			entry.bytesSent++;
		}, everyMs);
		res.on('close', () => {
			clearInterval(timer);
			entry.open = false;
		});
	}

	control(): MediaControl {
		return {
			serve: (on) => {
				this.serving = on;
			},
			file: (nameOrUrl) => {
				const path = mediaPath(nameOrUrl);
				const override = this.overrides.get(path) ?? {};
				const type = TYPES[path.split('.').pop() ?? ''];
				if (!type) throw new Error(`"${nameOrUrl}" is not a .jpg or .mp4 medium`);
				const bytes = override.body === undefined ? fileBytes(path, override.size) : Buffer.from(override.body);
				return { bytes, contentType: override.contentType ?? type };
			},
			set: (nameOrUrl, override) => {
				this.overrides.set(mediaPath(nameOrUrl), override);
			},
			requests: () => this.log.map((entry) => ({ ...entry, headers: [...entry.headers] })),
			clear: () => {
				this.overrides.clear();
				this.log = [];
			},
		};
	}
}

/** The control routes: POST /media/serve {on}, POST /media/set {name, ...override}, GET /media/requests, DELETE /media. */
export function registerMediaControl(svc: Service): void {
	const ok = (result: unknown): Reply => ({ status: 200, body: { result: result ?? null } });
	const control = svc.media.control();
	const body = (value: unknown): JsonObject => (isPlainObject(value) ? value : {});
	svc.control.post('/media/serve', (ctx) => {
		const { on } = body(ctx.body);
		if (typeof on !== 'boolean') throw new ApiError(400, 'bad_control_request', 'on must be true or false');
		return ok(control.serve(on));
	});
	svc.control.post('/media/set', (ctx) => {
		const { name, ...override } = body(ctx.body);
		if (typeof name !== 'string' || name === '') throw new ApiError(400, 'bad_control_request', 'name must be a medium name or URL');
		return ok(control.set(name, override as MediaOverride));
	});
	svc.control.get('/media/requests', () => ok(control.requests()));
	svc.control.delete('/media', () => ok(control.clear()));
}
