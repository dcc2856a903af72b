/**
 * The credential test in a real n8n goes through n8n's own HTTP client: with n8n's proxy settings
 * (HTTP_PROXY / HTTPS_PROXY, read by @n8n/backend-network) pointing at a local recording proxy, the
 * test's GET /account passes that proxy. A Base URL that redirects gets the redirect message and the
 * key reaches no other host; one past /v1 is told to end in /v1; the credential's refusals (plain
 * http to another machine, a key with a line break) reach the user's message; a credential saved
 * with the former Rate Limit Hour passes.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { e2eSuite, LOOPBACK, type E2eSuiteOptions } from './lib';

interface Recorded {
	method: string;
	/** the absolute URL of a forwarded request, `host:port` of a tunnel (CONNECT) */
	target: string;
	authorization?: string;
}

/** An HTTP proxy on loopback that records what passes it and forwards it (plain requests and CONNECT tunnels). */
class RecordingProxy {
	readonly seen: Recorded[] = [];

	private readonly server: Server;

	constructor() {
		this.server = createServer((incoming, outgoing) => {
			this.seen.push({ method: incoming.method ?? '', target: incoming.url ?? '', authorization: incoming.headers.authorization });
			let target: URL;
			try {
				target = new URL(incoming.url ?? '');
			} catch {
				outgoing.writeHead(400).end('a proxy takes absolute URLs');
				return;
			}
			const forwarded = httpRequest(
				{ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: incoming.method, headers: incoming.headers },
				(answer) => {
					outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(outgoing);
				},
			);
			forwarded.on('error', () => outgoing.writeHead(502).end());
			incoming.pipe(forwarded);
		});
		this.server.on('connect', (incoming, socket, head) => {
			this.seen.push({ method: 'CONNECT', target: incoming.url ?? '', authorization: incoming.headers.authorization });
			const [host, port] = (incoming.url ?? '').split(':');
			const upstream = connect(Number(port), host, () => {
				socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
				upstream.write(head);
				upstream.pipe(socket);
				socket.pipe(upstream);
			});
			upstream.on('error', () => socket.end());
			socket.on('error', () => upstream.destroy());
		});
	}

	get url(): string {
		return `http://${LOOPBACK}:${(this.server.address() as AddressInfo).port}`;
	}

	async start(): Promise<void> {
		await new Promise<void>((resolve) => this.server.listen(0, LOOPBACK, resolve));
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise((resolve) => this.server.close(resolve));
	}

	/** What passed for one host:port, as `METHOD target`. */
	to(origin: string): Recorded[] {
		const host = new URL(origin).host;
		return this.seen.filter((r) => r.target === host || (r.method !== 'CONNECT' && new URL(r.target).host === host));
	}
}

/** A server that records every request it gets and answers each with `status` and `headers`. */
async function recordingServer(status: number, headers: Record<string, string> = {}) {
	const seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders }> = [];
	const server = createServer((incoming, outgoing) => {
		seen.push({ method: incoming.method, url: incoming.url, headers: incoming.headers });
		outgoing.writeHead(status, headers).end();
	});
	await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
	return { server, seen, origin: `http://${LOOPBACK}:${(server.address() as AddressInfo).port}` };
}

describe('the credential test in a real n8n, through its proxy settings', () => {
	const proxy = new RecordingProxy();
	// n8n reads the environment when it starts, after the proxy has its port.
	const env: Record<string, string> = {};
	before(async () => {
		await proxy.start();
		// Nothing bypasses the proxy: the service stand-in is on loopback too.
		Object.assign(env, { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, http_proxy: proxy.url, https_proxy: proxy.url, NO_PROXY: '', no_proxy: '' });
	});
	const options: E2eSuiteOptions = { start: true, env };
	const ctx = e2eSuite(options);
	after(async () => await proxy.close());

	it('goes through the proxy n8n is set to use, with the key, and passes', async () => {
		proxy.seen.length = 0;
		ctx.backend.fake?.control.requests.clear();
		assert.deepEqual(await ctx.n8n.testCredential(ctx.credential), { status: 'OK', message: 'Connection successful!' });
		const account = `${ctx.backend.url}/account`;
		const passed = proxy.to(ctx.backend.url);
		assert.deepEqual(
			passed.map((r) => [r.method, r.target, r.authorization]),
			[['GET', account, `Bearer ${ctx.backend.apiKey}`]],
			`requests through the proxy: ${JSON.stringify(proxy.seen.map((r) => `${r.method} ${r.target}`))}`,
		);
		// The request the proxy forwarded is the one the service answered.
		const answered = ctx.backend.fake?.control.requests.list().map((r) => [r.method, r.path, r.status]);
		if (answered) assert.deepEqual(answered, [['GET', '/account', 200]]);
	});

	it('a Base URL that redirects: the redirect message, and the key reaches no other host', async () => {
		const elsewhere = await recordingServer(200);
		const redirecting = await recordingServer(302, { Location: `${elsewhere.origin}/v1/account` });
		try {
			const credential = await ctx.n8n.importCredential({
				name: 'redirecting Base URL',
				data: { apiKey: ctx.backend.apiKey, baseUrl: `${redirecting.origin}/v1` },
			});
			proxy.seen.length = 0;
			const result = await ctx.n8n.testCredential(credential);
			assert.equal(result.status, 'Error');
			assert.match(
				result.message,
				/^The Base URL answers GET \/account with a redirect \(HTTP 302\), which the API key does not follow: enter the address the API itself answers at, ending in \/v1/,
			);
			assert.deepEqual(redirecting.seen.map((r) => [r.method, r.url]), [['GET', '/v1/account']]);
			assert.deepEqual(elsewhere.seen, [], 'the host the redirect points to got a request');
			assert.deepEqual(proxy.to(elsewhere.origin), [], 'a request to the host the redirect points to passed the proxy');
			assert.deepEqual(proxy.to(redirecting.origin).map((r) => r.method), ['GET']);
		} finally {
			redirecting.server.close();
			elsewhere.server.close();
		}
	});

	it('a Base URL that goes on after /v1 is told to end in /v1 (the service answers 404)', async () => {
		const extraPath = await ctx.n8n.importCredential({
			name: 'extra path',
			data: { apiKey: ctx.backend.apiKey, baseUrl: `${ctx.backend.url}/feeds` },
		});
		assert.deepEqual(await ctx.n8n.testCredential(extraPath), {
			status: 'Error',
			message:
				'The Base URL has no GET /account (HTTP 404): enter the address the API itself answers at, ending in /v1 (for example https://api.example.com/v1).',
		});
	});

	it("the credential's refusals reach the user's message, before any request", async () => {
		const plainHttp = await ctx.n8n.importCredential({
			name: 'plain http elsewhere',
			data: { apiKey: ctx.backend.apiKey, baseUrl: 'http://api.example.invalid/v1' },
		});
		const lineBreak = await ctx.n8n.importCredential({
			name: 'key with a line break',
			data: { apiKey: `${ctx.backend.apiKey}\n`, baseUrl: ctx.backend.url },
		});
		proxy.seen.length = 0;
		const http = await ctx.n8n.testCredential(plainHttp);
		assert.equal(http.status, 'Error');
		assert.match(http.message, /^The Base URL http:\/\/api\.example\.invalid does not use https, and the API key travels only over https/);
		const key = await ctx.n8n.testCredential(lineBreak);
		assert.equal(key.status, 'Error');
		assert.match(key.message, /^The API Key holds a line break or a character a request header cannot carry/);
		assert.deepEqual(proxy.seen.filter((r) => !r.target.includes(`${LOOPBACK}:${ctx.n8n.port}`)), []);
	});

	it('a credential saved with the former Rate Limit Hour (Seconds) still passes', async () => {
		const saved = await ctx.n8n.importCredential({
			name: 'saved with Rate Limit Hour',
			data: { apiKey: ctx.backend.apiKey, baseUrl: ctx.backend.url, requestsPerHour: 300, burstPerMinute: 60, rateLimitHour: 3600 },
		});
		assert.deepEqual(await ctx.n8n.testCredential(saved), { status: 'OK', message: 'Connection successful!' });
	});
});
