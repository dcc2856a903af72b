/**
 * The API key never follows a redirect, in the declarative node's requests (n8n's routing, sent by routing.ts): a Base
 * URL that answers 302 to another port of this machine gets one request; the error names where the redirect leads
 * (without its query) and what the Base URL must be; nothing reaches the other port, so neither does the key.
 */
import { useRedirectPair } from '../redirects';
import { useFakeService } from '../support';
import { feed, runNode } from './helpers';

const fake = useFakeService();
const pair = useRedirectPair();

test.each([
	['Account › Get', { resource: 'account', operation: 'get' }, 'GET', '/v1/account'],
	['Post › Get Many with Return All', { resource: 'post', operation: 'getAll', feedId: feed(1, 'id'), returnAll: true }, 'GET', '/v1/feeds/1/posts'],
	['Feed › Create', { resource: 'feed', operation: 'create', name: 'Redirected' }, 'POST', '/v1/feeds'],
])('%s: one request, not followed, the error naming the Location; nothing reaches its target', async (_name, parameters, method, path) => {
	const run = await runNode(fake, parameters, { baseUrl: pair.baseUrl, onError: 'continueRegularOutput' });

	expect(pair.asked.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([`${method} ${path}`]);
	expect(pair.asked[0].headers.authorization).toBe(`Bearer ${fake.control.keys.owner}`);
	expect(pair.recorded).toEqual([]);
	const error = run.items[0]?.json as { error: string; details: { description: string; httpCode: string } };
	expect(run.items).toHaveLength(1);
	expect(error.error).toContain(`with a redirect (HTTP 302 to ${pair.target}${path})`);
	expect(error.error).toContain('enter the address the API itself answers at, ending in /v1');
	expect(error.details.httpCode).toBe('302');
	expect(JSON.stringify(run.items)).not.toContain('redirect-secret');
	expect(JSON.stringify(run.items)).not.toContain(fake.control.keys.owner);
});

test('without Continue On Fail the run fails with the same error', async () => {
	const run = await runNode(fake, { resource: 'account', operation: 'get' }, { baseUrl: pair.baseUrl });
	expect(run.error?.message).toContain(`(HTTP 302 to ${pair.target}/v1/account)`);
	expect(pair.asked).toHaveLength(1);
	expect(pair.recorded).toEqual([]);
});
