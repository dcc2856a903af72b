/**
 * The API key never follows a redirect, in the programmatic node's requests (transport.ts's `apiRequestFull`): a Base
 * URL that answers 302 to another port of this machine gets one request; the error names where the redirect leads
 * (without its query) and what the Base URL must be; nothing reaches the other port. Key requests, which send no key
 * but receive one, follow no redirect either.
 */
import { useRedirectPair } from '../redirects';
import { useFakeService } from '../support';
import { runNode } from './helpers';

const fake = useFakeService();
const pair = useRedirectPair();

test('Post › Search: one request, not followed, the error naming the Location; nothing reaches its target', async () => {
	const run = await runNode(fake, { resource: 'post', operation: 'search', term: 'nasa', platforms: ['Bluesky'], limit: 10 }, { baseUrl: pair.baseUrl });

	expect(pair.asked.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual(['GET /v1/data/posts']);
	expect(pair.asked[0].headers.authorization).toBe(`Bearer ${fake.control.keys.owner}`);
	expect(pair.recorded).toEqual([]);
	expect(run.error?.message).toContain(`with a redirect (HTTP 302 to ${pair.target}/v1/data/posts)`);
	expect(run.error?.message).toContain('enter the address the API itself answers at, ending in /v1');
	expect(JSON.stringify(run.error)).not.toContain('redirect-secret');
	expect(JSON.stringify(run.error)).not.toContain(fake.control.keys.owner);
});

test('Profile › Look Up with Continue On Fail: an error item, one request', async () => {
	const run = await runNode(fake, { resource: 'profile', operation: 'lookUp', term: 'nasa', platforms: ['Bluesky'] }, { baseUrl: pair.baseUrl, onError: 'continueRegularOutput' });
	expect(JSON.stringify(run.items)).toContain(`(HTTP 302 to ${pair.target}/v1/data/profiles)`);
	expect(pair.asked.map((r) => r.url.split('?')[0])).toEqual(['/v1/data/profiles']);
	expect(pair.recorded).toEqual([]);
});

test('API Key › Request and Get Authorization Status at a redirecting Base URL: not followed', async () => {
	const request = await runNode(
		fake,
		{ resource: 'apiKey', operation: 'request', baseUrlSource: 'parameter', baseUrl: pair.baseUrl, email: 'a@example.test', clientName: 'n8n' },
		{ apiKey: null },
	);
	expect(request.error?.message).toContain(`(HTTP 302 to ${pair.target}/v1/authorize)`);
	const poll = await runNode(
		fake,
		{ resource: 'apiKey', operation: 'getStatus', baseUrlSource: 'parameter', baseUrl: pair.baseUrl, requestId: `${pair.baseUrl}/authorize/req_1` },
		{ apiKey: null },
	);
	expect(poll.error?.message).toContain(`(HTTP 302 to ${pair.target}/v1/authorize/req_1)`);
	expect(pair.asked.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/authorize', 'GET /v1/authorize/req_1']);
	expect(pair.recorded).toEqual([]);
});
