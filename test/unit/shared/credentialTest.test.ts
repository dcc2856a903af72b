/**
 * The credential test every node names in `testedBy`: the Base URL check first (nothing sent to an address the
 * nodes would refuse), then one `GET /account` with the key; a refusal shows the service's own words, and the key is
 * never in a message, whatever the service or the HTTP client said.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'http';
import type { AddressInfo } from 'net';
import type { ICredentialsDecrypted, ICredentialTestFunctions } from 'n8n-workflow';

import { socialAggregatorApiTest } from '../../../nodes/shared/credentialTest';

const KEY = 'sag_live_credtest_0123456789';

/** The services a test started, closed after it. */
const servers: Server[] = [];

interface Seen {
	method?: string;
	url?: string;
	headers: IncomingHttpHeaders;
}

/** A service on this machine answering every request with one status and body, recording what it was sent. */
async function service(status: number, body: string, type = 'application/json') {
	const seen: Seen[] = [];
	const server: Server = createServer((request, response) => {
		seen.push({ method: request.method, url: request.url, headers: request.headers });
		response.writeHead(status, { 'content-type': type });
		response.end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	servers.push(server);
	return { seen, baseUrl: `http://127.0.0.1:${port}/v1` };
}

afterEach(async () => {
	jest.restoreAllMocks();
	await Promise.all(servers.splice(0).map(async (server) => await new Promise((resolve) => server.close(resolve))));
});

const credential = (data: ICredentialsDecrypted['data']): ICredentialsDecrypted => ({
	id: 'cred-1',
	name: 'Social Aggregator account',
	type: 'socialAggregatorApi',
	data,
});

async function testCredential(data: ICredentialsDecrypted['data']) {
	return await socialAggregatorApiTest.call({} as ICredentialTestFunctions, credential(data));
}

const envelope = (code: string, message: string) => JSON.stringify({ error: { code, message, details: {} } });

describe('socialAggregatorApiTest', () => {
	test('a key the service accepts: one GET /account with the key as a Bearer token', async () => {
		const { seen, baseUrl } = await service(200, JSON.stringify({ data: { id: 1, name: 'Acme' } }));
		expect(await testCredential({ apiKey: KEY, baseUrl })).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(seen).toHaveLength(1);
		expect(seen[0]).toMatchObject({ method: 'GET', url: '/v1/account' });
		expect(seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
		expect(seen[0].headers.accept).toBe('application/json');
	});

	test('a Base URL with trailing slashes or spaces is asked as the nodes ask it', async () => {
		const { seen, baseUrl } = await service(200, '{}');
		expect((await testCredential({ apiKey: KEY, baseUrl: ` ${baseUrl}// ` })).status).toBe('OK');
		expect(seen[0].url).toBe('/v1/account');
	});

	test.each([
		['that is empty', '', /^Invalid Base URL: the Base URL is empty\. Enter the address of the API/],
		['that is missing', undefined, /^Invalid Base URL: the Base URL is empty\./],
		['in plain http to another machine', 'http://api.example.com/v1', /^Invalid Base URL: "http:\/\/api\.example\.com\/v1" uses plain http; the API key must travel over https\. Use https:\/\//],
		['without the version prefix', 'https://api.example.com', /does not end in the version prefix \/v1/],
		['that is not a web address', 'api.example.com/v1', /is not a web address/],
	])('a Base URL %s is refused with the check’s reason and hint, before any request', async (_case, baseUrl, said) => {
		const fetch = jest.spyOn(globalThis, 'fetch');
		const result = await testCredential(baseUrl === undefined ? { apiKey: KEY } : { apiKey: KEY, baseUrl });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(said);
		expect(fetch).not.toHaveBeenCalled();
	});

	test.each([
		['as a user name', `https://${KEY}@api.example.com`],
		['in the query', `https://api.example.com/v1?key=${KEY}`],
		['over plain http', `http://api.example.com/${KEY}/v1`],
	])('a key pasted into the Base URL %s is cut out of the refusal', async (_case, baseUrl) => {
		const result = await testCredential({ apiKey: KEY, baseUrl });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^Invalid Base URL: /);
		expect(result.message).not.toContain(KEY);
	});

	test('a credential without data is refused for its Base URL', async () => {
		const fetch = jest.spyOn(globalThis, 'fetch');
		const result = await socialAggregatorApiTest.call({} as ICredentialTestFunctions, { id: 'c', name: 'n', type: 'socialAggregatorApi' });
		expect(result).toMatchObject({ status: 'Error', message: expect.stringMatching(/^Invalid Base URL: the Base URL is empty/) });
		expect(fetch).not.toHaveBeenCalled();
	});

	test('a refused key shows the service’s own message, the status and the request', async () => {
		const { baseUrl } = await service(401, envelope('unauthorized', 'The API key has expired'));
		expect(await testCredential({ apiKey: KEY, baseUrl })).toEqual({ status: 'Error', message: 'The API key has expired (HTTP 401 from GET /account)' });
	});

	test.each([
		['that is not JSON', 502, '<html>Bad Gateway</html>', 'text/html'],
		['in JSON without the error envelope', 403, JSON.stringify({ message: 'Forbidden' }), 'application/json'],
		['in an envelope with a blank message', 500, envelope('internal', '  '), 'application/json'],
		['that is empty', 503, '', 'text/plain'],
	])('an answer %s still says the status', async (_case, status, body, type) => {
		const { baseUrl } = await service(status, body, type);
		expect(await testCredential({ apiKey: KEY, baseUrl })).toEqual({
			status: 'Error',
			message: `The service refused the request (HTTP ${status} from GET /account)`,
		});
	});

	test('a service that repeats the key in its message: the key is cut out', async () => {
		const { baseUrl } = await service(401, envelope('unauthorized', `Unknown key ${KEY} for this account`));
		const result = await testCredential({ apiKey: KEY, baseUrl });
		expect(result.message).toBe('Unknown key [redacted] for this account (HTTP 401 from GET /account)');
		expect(result.message).not.toContain(KEY);
	});

	test('a service that cannot be reached: the address asked and the system’s reason', async () => {
		const { baseUrl } = await service(200, '{}');
		await Promise.all(servers.splice(0).map(async (server) => await new Promise((resolve) => server.close(resolve))));
		const result = await testCredential({ apiKey: KEY, baseUrl });
		expect(result).toEqual({ status: 'Error', message: `The service could not be reached at ${baseUrl} (ECONNREFUSED). Check the Base URL.` });
	});

	test.each([
		['a line break pasted into it', 'sag_live_first_half\nsecond_half_0123'],
		['a carriage return at its end', 'sag_live_first_half_second_half_0123\r'],
		['a character past Latin-1', 'sag_live_first_half\u2028second_half_0123'],
	])('a key a request header cannot carry (%s) is refused before any request, and not repeated', async (_case, pasted) => {
		const { seen, baseUrl } = await service(200, '{}');
		const result = await testCredential({ apiKey: pasted, baseUrl });
		expect(result).toEqual({
			status: 'Error',
			message: 'The API Key holds a line break or a character a request header cannot carry: paste the key again, on one line.',
		});
		expect(seen).toEqual([]);
	});

	test('a Base URL that redirects is named as such, with where it leads, and not followed', async () => {
		const seen: string[] = [];
		const server: Server = createServer((request, response) => {
			seen.push(String(request.url));
			if (request.url === '/v1/account') response.writeHead(302, { location: `/login?next=%2Fv1%2Faccount&key=${KEY}` }).end();
			else response.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in</html>');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		servers.push(server);
		const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
		const result = await testCredential({ apiKey: KEY, baseUrl });
		expect(result).toEqual({
			status: 'Error',
			message:
				'The Base URL answers GET /account with a redirect (HTTP 302 to /login?next=%2Fv1%2Faccount&key=[redacted]): enter the address the API itself answers at, ending in /v1.',
		});
		expect(seen).toEqual(['/v1/account']);
	});

	test('a failure without a system code reads the cause’s message, then the error’s, and cuts the key from both', async () => {
		const { baseUrl } = await service(200, '{}');
		jest.spyOn(globalThis, 'fetch').mockRejectedValueOnce(new TypeError('fetch failed', { cause: new Error(`socket hang up after Bearer ${KEY}`) }));
		expect((await testCredential({ apiKey: KEY, baseUrl })).message).toBe(
			`The service could not be reached at ${baseUrl} (socket hang up after Bearer [redacted]). Check the Base URL.`,
		);
		jest.spyOn(globalThis, 'fetch').mockRejectedValueOnce(new Error(`aborted ${KEY}`));
		expect((await testCredential({ apiKey: KEY, baseUrl })).message).toBe(`The service could not be reached at ${baseUrl} (aborted [redacted]). Check the Base URL.`);
	});
});
