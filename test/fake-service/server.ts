/** HTTP front: the request pipeline (latency, faults, body, auth, rate limit, routing, log) and start(). */
import { createServer, type IncomingMessage, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';
import { registerAccount } from './account';
import { buildControl, registerControlRoutes, type Control } from './control';
import { registerDataApi } from './dataApi';
import { registerFeeds } from './feeds';
import { authenticate, enforceRateLimit, rateLimitHeaders, registerKeys } from './keys';
import { registerMediaControl } from './media';
import { registerPosts } from './posts';
import type { Auth, Ctx, Reply, Router } from './router';
import { Service, type StartOptions } from './service';
import { liveErrorReply } from './shapes';
import { registerSocial } from './social';
import { registerUsers } from './users';
import { ApiError, type Query } from './util';
import { registerWebhooks } from './webhooks';

export interface FakeService {
	/** The base URL, ending in /v1 (e.g. http://127.0.0.1:43123/v1). */
	url: string;
	/** http://127.0.0.1:<port> */
	origin: string;
	port: number;
	/** A ready API key: the seeded owner key of account "Acme Media" (Team plan). */
	apiKey: string;
	control: Control;
	close(): Promise<void>;
}

const MALFORMED_BODY = '{"data":[{"id":1,"message":"trunc';

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

function parseQuery(params: URLSearchParams): Query {
	const query: Query = {};
	for (const [k, v] of params) {
		const prev = query[k];
		if (prev === undefined) query[k] = v;
		else query[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
	}
	return query;
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

/** How a reply leaves: as it is, cut off half-way (the body ends early), or labelled gzip without being so. */
type Transmission = 'whole' | 'truncated' | 'badEncoding';

function send(res: ServerResponse, reply: Reply, transmission: Transmission = 'whole'): void {
	if (res.headersSent || res.destroyed) return;
	const headers: Record<string, string> = { ...(reply.headers ?? {}) };
	if (reply.status === 204) {
		res.writeHead(204, headers);
		res.end();
		return;
	}
	let payload: string;
	if (reply.text !== undefined) {
		payload = reply.text;
		headers['Content-Type'] ??= 'text/html; charset=utf-8';
	} else {
		payload = JSON.stringify(reply.body ?? {});
		headers['Content-Type'] = 'application/json; charset=utf-8';
	}
	headers['Content-Length'] = String(Buffer.byteLength(payload));
	if (transmission === 'badEncoding') headers['Content-Encoding'] = 'gzip';
	res.writeHead(reply.status, headers);
	if (transmission === 'truncated') {
		const bytes = Buffer.from(payload);
		res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
		return;
	}
	res.end(payload);
}

/** A method and path the service has no route for (in this shape: see `onlyIn` in router.ts). */
class NoRoute extends ApiError {}

function errorReply(err: unknown, svc?: Service): Reply {
	// The live service routes by method and path and answers one it lacks with its web framework's 404,
	// without SPEC.md's envelope.
	if (err instanceof NoRoute && svc?.shapes === 'live') return { status: 404, body: { status: 404, error: 'Not Found' } };
	if (err instanceof ApiError) return { status: err.status, body: err.body(), headers: err.headers };
	const message = err instanceof Error ? err.message : String(err);
	return { status: 500, body: { error: { code: 'internal_error', message: `fake service error: ${message}`, details: {} } } };
}

function parseJson(raw: string): unknown {
	if (raw.trim() === '') return undefined;
	try {
		return JSON.parse(raw);
	} catch {
		throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON');
	}
}

async function dispatch(svc: Service, router: Router, ctx: Ctx, withAuth: boolean): Promise<Reply> {
	const found = router.match(ctx.method, ctx.path, svc.shapes);
	if (!found.route) {
		if (found.pathExists) throw new NoRoute(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`);
		throw new NoRoute(404, 'not_found', `No route for ${ctx.method} ${ctx.path}`);
	}
	ctx.params = found.params;
	if (withAuth && found.route.auth) {
		ctx.auth = authenticate(svc, ctx.req.headers.authorization);
		enforceRateLimit(svc, ctx.auth);
	}
	ctx.body = parseJson(ctx.rawBody);
	const reply = await found.route.handler(ctx);
	if (!ctx.auth) return reply;
	const limits = rateLimitHeaders(svc, ctx.auth);
	return Object.keys(limits).length > 0 ? { ...reply, headers: { ...reply.headers, ...limits } } : reply;
}

async function handleApi(svc: Service, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const started = performance.now();
	const method = (req.method ?? 'GET').toUpperCase();
	const path = url.pathname.slice(3) || '/';
	const query = parseQuery(url.searchParams);
	const time = svc.clock.iso();
	if (svc.latencyMs > 0) await sleep(svc.latencyMs);
	const rawBody = await readBody(req);
	const ctx: Ctx = { svc, state: svc.state, method, path, params: {}, query, body: undefined, rawBody, auth: null, req };
	const fault = svc.faults.take(method, path, query);
	let reply: Reply | null = null;
	const faultName: string | null = fault ? `${fault.id}:${fault.kind}` : null;
	const when = fault?.spec.when ?? 'before';
	let drop = false;
	let answerName: string | null = null;
	if (fault && fault.kind === 'delay' && when === 'before') await sleep(fault.spec.delayMs ?? 1000);
	const faultReply = (): Reply | null => {
		if (!fault) return null;
		if (fault.kind === 'drop') {
			drop = true;
			return { status: 0 };
		}
		if (fault.kind === 'malformed') return { status: 200, text: MALFORMED_BODY, headers: { 'Content-Type': 'application/json; charset=utf-8' } };
		if (fault.kind === 'error') {
			const status = fault.spec.status ?? 500;
			const headers: Record<string, string> = { ...fault.spec.headers };
			if (status === 429 && fault.spec.retryAfter !== null) headers['Retry-After'] = String(fault.spec.retryAfter ?? 1);
			const code = fault.spec.code ?? (status === 429 ? 'rate_limit_exceeded' : status === 503 ? 'service_unavailable' : 'internal_error');
			return { status, headers, body: { error: { code, message: fault.spec.message ?? `Injected ${status}`, details: {} } } };
		}
		return null;
	};
	if (fault && fault.kind !== 'delay' && when === 'before') reply = faultReply();
	if (!reply) {
		try {
			reply = await dispatch(svc, svc.api, ctx, true);
		} catch (err) {
			reply = errorReply(err, svc);
		}
		svc.postChanges.answered(method, path, query, svc.state.posts);
		const answered = svc.answers.apply(method, path, query, reply);
		reply = svc.media.rewrite(answered.reply);
		answerName = answered.id && `${answered.id}:answer`;
		if (fault && fault.kind !== 'delay' && when === 'after') reply = faultReply() ?? reply;
	}
	if (fault && fault.kind === 'delay' && when === 'after') await sleep(fault.spec.delayMs ?? 1000);
	const auth: Auth | null = ctx.auth;
	svc.addLog({
		time,
		method,
		path,
		query,
		body: ctx.body === undefined ? safeParse(rawBody) : ctx.body,
		status: drop ? 0 : reply.status,
		keyId: auth?.key.id ?? null,
		role: auth?.user.role ?? null,
		accountId: auth?.account.id ?? null,
		fault: faultName ?? answerName,
		durationMs: Math.round((performance.now() - started) * 100) / 100,
		credits: ctx.credits ?? 0,
	});
	if (drop) {
		req.socket.destroy();
		return;
	}
	if (svc.shapes === 'live') reply = liveErrorReply(reply);
	const transmission: Transmission = fault?.kind === 'truncated' || fault?.kind === 'badEncoding' ? fault.kind : 'whole';
	send(res, reply, transmission);
}

function safeParse(raw: string): unknown {
	if (!raw) return undefined;
	try {
		return JSON.parse(raw);
	} catch {
		return raw;
	}
}

async function handleOther(svc: Service, router: Router, prefix: string, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const method = (req.method ?? 'GET').toUpperCase();
	const rawBody = await readBody(req);
	const ctx: Ctx = {
		svc,
		state: svc.state,
		method,
		path: url.pathname.slice(prefix.length) || '/',
		params: {},
		query: parseQuery(url.searchParams),
		body: undefined,
		rawBody,
		auth: null,
		req,
	};
	let reply: Reply;
	try {
		reply = await dispatch(svc, router, ctx, false);
	} catch (err) {
		reply = errorReply(err);
	}
	send(res, reply);
}

export function createService(options: StartOptions = {}): Service {
	const svc = new Service(options);
	registerAccount(svc);
	registerKeys(svc);
	registerFeeds(svc);
	registerPosts(svc);
	registerUsers(svc);
	registerSocial(svc);
	registerWebhooks(svc);
	registerDataApi(svc);
	registerControlRoutes(svc);
	registerMediaControl(svc);
	return svc;
}

/** Start a fake service on 127.0.0.1. */
export async function start(options: StartOptions = {}): Promise<FakeService> {
	const svc = createService(options);
	const server = createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		let work: Promise<void>;
		if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) {
			svc.inFlight++;
			work = handleApi(svc, req, res, url).finally(() => svc.inFlight--);
		}
		else if (url.pathname.startsWith('/_control/')) work = handleOther(svc, svc.control, '/_control', req, res, url);
		else if (url.pathname.startsWith('/web/')) work = handleOther(svc, svc.web, '/web', req, res, url);
		else if (url.pathname.startsWith('/media/')) work = Promise.resolve(svc.media.handle(req, res, url));
		else work = Promise.resolve(send(res, { status: 404, body: { error: { code: 'not_found', message: 'The base URL ends in /v1', details: {} } } }));
		work.catch((err) => send(res, errorReply(err)));
	});
	server.keepAliveTimeout = 5000;
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
	});
	const port = (server.address() as AddressInfo).port;
	svc.origin = `http://127.0.0.1:${port}`;
	svc.clock.onChange(() => svc.tick());
	const ticker = setInterval(() => svc.tick(), 1000);
	ticker.unref();
	const control = buildControl(svc);
	return {
		url: svc.baseUrl,
		origin: svc.origin,
		port,
		apiKey: control.keys.owner,
		control,
		async close() {
			clearInterval(ticker);
			svc.webhooks.stop();
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
}
