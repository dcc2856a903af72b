/**
 * The credential: what a user sets (no test-only field), where the key may go (`authenticate`, applied by n8n to
 * every request with the credential, the credential test included) and what n8n's credential test says for each
 * answer of GET /account (`test`).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

import type { IHttpRequestOptions, IAuthenticateRuleResponseCode } from 'n8n-workflow';

import { SocialAggregatorApi } from '../../../credentials/SocialAggregatorApi.credentials';

const KEY = 'sag_live_unit_0123456789abcdef';
const credential = new SocialAggregatorApi();

async function authenticate(baseUrl: string, request: Partial<IHttpRequestOptions> = {}, apiKey: string = KEY) {
	const options: IHttpRequestOptions = { url: '/feeds', baseURL: baseUrl.replace(/\/+$/, ''), method: 'GET', ...request };
	return await credential.authenticate({ apiKey, baseUrl }, options);
}

async function refusal(baseUrl: string, request: Partial<IHttpRequestOptions> = {}, apiKey: string = KEY): Promise<string> {
	const outcome = await authenticate(baseUrl, request, apiKey).then(
		() => 'accepted',
		(error: Error) => error.message,
	);
	expect(outcome).not.toBe('accepted');
	expect(outcome).not.toContain(apiKey || '\u0000');
	return outcome;
}

describe('the fields', () => {
	it('are what a user sets: no "Rate Limit Hour" (a stand-in service for tests counted a shorter hour)', () => {
		expect(credential.properties.map((p) => p.name)).toEqual(['apiKey', 'baseUrl', 'requestsPerHour', 'burstPerMinute']);
		expect(JSON.stringify(credential.properties)).not.toMatch(/stand-in|tests?\b/i);
	});

	it('the file imports n8n-workflow alone (n8n loads it on its own)', () => {
		const source = readFileSync(path.join(__dirname, '../../../credentials/SocialAggregatorApi.credentials.ts'), 'utf8');
		const imports = [...source.matchAll(/(?:from|require\()\s*'([^']+)'/g)].map((m) => m[1]);
		expect(imports).toEqual(['n8n-workflow']);
	});
});

describe('authenticate()', () => {
	it('adds the key as a Bearer token, keeps the other headers, follows no redirect and drops the key on one', async () => {
		const request: IHttpRequestOptions = { url: '/feeds', baseURL: 'https://api.example.com/v1', headers: { Accept: 'application/json' } };
		const sent = await credential.authenticate({ apiKey: KEY, baseUrl: 'https://api.example.com/v1/' }, request);
		expect(sent).toEqual({
			...request,
			headers: { Accept: 'application/json', Authorization: `Bearer ${KEY}` },
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			followRedirect: false,
			followAllRedirects: false,
		});
		// The caller's request is left as it was (n8n retries with it).
		expect(request.headers).toEqual({ Accept: 'application/json' });
	});

	it('reads the older request form the HTTP Request node sends (`uri`), and turns its redirects off too', async () => {
		const legacy = { uri: 'https://api.example.com/v1/account', method: 'GET' } as unknown as IHttpRequestOptions;
		const sent = (await credential.authenticate({ apiKey: KEY, baseUrl: 'https://api.example.com/v1' }, legacy)) as IHttpRequestOptions & { followRedirect?: boolean };
		expect(sent.headers?.Authorization).toBe(`Bearer ${KEY}`);
		expect(sent.followRedirect).toBe(false);
		const elsewhere = { uri: 'https://other.example/v1/account' } as unknown as IHttpRequestOptions;
		await expect(credential.authenticate({ apiKey: KEY, baseUrl: 'https://api.example.com/v1' }, elsewhere)).rejects.toThrow(
			"The API key is sent only to the Base URL's address (https://api.example.com), not to https://other.example.",
		);
	});

	it('lets an absolute URL on the Base URL host through (the programmatic nodes send those)', async () => {
		const sent = await authenticate('https://api.example.com/v1', { url: 'https://api.example.com/v1/data/posts', baseURL: undefined });
		expect(sent.headers?.Authorization).toBe(`Bearer ${KEY}`);
	});

	it.each(['http://127.0.0.1:8080/v1', 'http://localhost:3000/v1', 'http://[::1]:3000/v1', 'http://api.localhost/v1', 'http://127.1.2.3/v1'])(
		'lets plain http through to this machine: %s',
		async (baseUrl) => {
			expect((await authenticate(baseUrl)).headers?.Authorization).toBe(`Bearer ${KEY}`);
		},
	);

	it.each(['http://api.example.com/v1', 'http://10.0.0.5/v1', 'http://128.0.0.1/v1', 'ftp://api.example.com/v1', 'ws://127.0.0.1/v1'])(
		'refuses a Base URL that is not https, before the key is added: %s',
		async (baseUrl) => {
			expect(await refusal(baseUrl)).toMatch(/^The Base URL \S+ does not use https, and the API key travels only over https \(plain http only to a service on this machine\): enter the address the API itself answers at, ending in \/v1/);
		},
	);

	it.each([
		['another host', 'https://evil.example.net/v1/feeds'],
		['another port', 'https://api.example.com:8443/v1/feeds'],
		['plain http to the same host', 'http://api.example.com/v1/feeds'],
		['a protocol-relative URL', '//evil.example.net/feeds'],
	])('refuses a request that leaves the Base URL host (%s)', async (_label, url) => {
		expect(await refusal('https://api.example.com/v1', { url })).toMatch(/^The API key is sent only to the Base URL's address \(https:\/\/api\.example\.com\), not to /);
	});

	it('refuses a Base URL that is no web address without quoting it (a key pasted there would be)', async () => {
		const message = await refusal(`Bearer ${KEY}`);
		expect(message).toBe('The Base URL is not a web address: enter the address the API itself answers at, ending in /v1 (for example https://api.example.com/v1).');
	});

	it('refuses an empty key, and a key with a line break or a character a header cannot carry', async () => {
		expect(await refusal('https://api.example.com/v1', {}, '')).toMatch(/^The API Key is empty/);
		for (const apiKey of [`${KEY}\n`, `${KEY}\r\n`, `sag_\u0000live`, `sag_live_\u2028x`, 'sag_live_ключ']) {
			expect(await refusal('https://api.example.com/v1', {}, apiKey)).toMatch(/^The API Key holds a line break or a character a request header cannot carry/);
		}
	});
});

describe('the credential test (n8n sends its request and shows a rule’s message for the status)', () => {
	const rules = (credential.test.rules ?? []) as IAuthenticateRuleResponseCode[];
	const messageFor = (status: number) => rules.find((rule) => rule.properties.value === status)?.properties.message;

	it('is one GET /account under the Base URL, as the nodes trim it', () => {
		expect(credential.test.request).toMatchObject({
			method: 'GET',
			url: '/account',
			baseURL: '={{String($credentials.baseUrl || "").trim().replace(/\\/+$/, "")}}',
		});
	});

	it('has one message per status worth one: the key refused, a redirect, no /account, the rate limit, the service failing', () => {
		expect(rules.every((rule) => rule.type === 'responseCode')).toBe(true);
		expect(rules.map((rule) => rule.properties.value).sort()).toEqual([301, 302, 303, 307, 308, 401, 403, 404, 429, 500, 502, 503, 504]);
		expect(messageFor(401)).toMatch(/^The service refused the API key \(HTTP 401 from GET \/account\)/);
		expect(messageFor(403)).toMatch(/^The service refused the API key \(HTTP 403 from GET \/account\)/);
		for (const status of [301, 302, 303, 307, 308]) {
			expect(messageFor(status)).toBe(
				`The Base URL answers GET /account with a redirect (HTTP ${status}), which the API key does not follow: enter the address the API itself answers at, ending in /v1 (for example https://api.example.com/v1).`,
			);
		}
		expect(messageFor(404)).toMatch(/^The Base URL has no GET \/account \(HTTP 404\): enter the address the API itself answers at, ending in \/v1/);
		expect(messageFor(429)).toMatch(/HTTP 429/);
		for (const status of [500, 502, 503, 504]) expect(messageFor(status)).toMatch(new RegExp(`failed \\(HTTP ${status}\\)`));
	});
});
