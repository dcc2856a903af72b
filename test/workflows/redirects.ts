/**
 * A Base URL that answers every request with a redirect to another port of this machine, and the server there, which
 * records what reaches it (above all an Authorization header): what the key-never-follows-a-redirect tests of both
 * action nodes run against.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
}

export interface RedirectPair {
	/** The redirecting Base URL (ends in /v1). */
	baseUrl: string;
	/** What the redirecting address was asked, in order. */
	asked: Recorded[];
	/** Where it sends every request: the recording server's origin. */
	target: string;
	/** What reached the recording server. */
	recorded: Recorded[];
	/** The Location the redirect answers for a path below /v1 (its query is a token the error must not repeat). */
	locationFor(path: string): string;
	clear(): void;
	close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Starts both servers; `status` is the redirect's (302 unless given). */
export async function startRedirectPair(status = 302): Promise<RedirectPair> {
	const asked: Recorded[] = [];
	const recorded: Recorded[] = [];
	const recorder = createServer((req, res) => {
		recorded.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ data: [], meta: { page: 1, per_page: 100, total: 0, total_pages: 1 } }));
	});
	const target = await listen(recorder);
	const locationFor = (path: string) => `${target}${path}${path.includes('?') ? '&' : '?'}token=redirect-secret`;
	const redirector = createServer((req, res) => {
		asked.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
		req.resume();
		res.writeHead(status, { Location: locationFor((req.url ?? '/').split('?')[0]) });
		res.end();
	});
	const origin = await listen(redirector);
	return {
		baseUrl: `${origin}/v1`,
		asked,
		target,
		recorded,
		locationFor,
		clear: () => {
			asked.length = 0;
			recorded.length = 0;
		},
		close: async () => {
			await Promise.all(
				[recorder, redirector].map(async (server) => {
					server.closeAllConnections();
					await new Promise((resolve) => server.close(resolve));
				}),
			);
		},
	};
}

/** One pair for a test file: started before its tests, emptied before each, closed after them (fill-in object). */
export function useRedirectPair(): RedirectPair {
	const pair = {} as RedirectPair;
	beforeAll(async () => {
		Object.assign(pair, await startRedirectPair());
	});
	afterAll(async () => {
		await pair.close();
	});
	beforeEach(() => pair.clear());
	return pair;
}
