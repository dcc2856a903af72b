/**
 * The credential test n8n runs when a Social Aggregator API credential is saved: the one
 * Base URL check, then GET /account; the service's own words when it refuses, never the key.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ICredentialTestFunctions } from 'n8n-workflow';

import { socialAggregatorApiTest } from '../../../nodes/shared/credentialTest';
import { useFakeService } from '../support';

const fake = useFakeService();
const context = {} as ICredentialTestFunctions;

async function test_(data: { apiKey?: string; baseUrl?: string }) {
	return await socialAggregatorApiTest.call(context, { id: '1', name: 'c', type: 'socialAggregatorApi', data });
}

test('a right key and Base URL (a trailing slash is fine) pass', async () => {
	expect(await test_({ apiKey: fake.control.keys.owner, baseUrl: `${fake.url}/` })).toEqual({
		status: 'OK',
		message: 'Connection successful!',
	});
	expect(fake.control.requests.list().map((r) => [r.method, r.path, r.status])).toContainEqual(['GET', '/account', 200]);
});

test("a refused key shows the service's own message and the status, never the key", async () => {
	const wrong = 'sag_live_not_a_key_at_all';
	const result = await test_({ apiKey: wrong, baseUrl: fake.url });
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(/^Invalid API key \(HTTP 401 from GET \/account\)$|^.+ \(HTTP 401 from GET \/account\)$/);
	expect(result.message).not.toMatch(/^Unauthorized$/);
	expect(result.message).not.toContain(wrong);
	const service = await fetch(`${fake.url}/account`, { headers: { Authorization: `Bearer ${wrong}` } });
	const said = ((await service.json()) as { error: { message: string } }).error.message;
	expect(result.message).toBe(`${said} (HTTP 401 from GET /account)`);
});

test('a Base URL the nodes would refuse fails the test with the same reason, before any request', async () => {
	fake.control.requests.clear();
	const result = await test_({ apiKey: fake.control.keys.owner, baseUrl: `${fake.url}/feeds` });
	expect(result).toEqual({
		status: 'Error',
		message: expect.stringMatching(/^Invalid Base URL: ".*\/v1\/feeds" goes on after the version prefix \(\/feeds\)/),
	});
	expect(fake.control.requests.list()).toEqual([]);
});

test('a service that cannot be reached says so, naming the address', async () => {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	const result = await test_({ apiKey: fake.control.keys.owner, baseUrl: `http://127.0.0.1:${port}/v1` });
	expect(result).toEqual({
		status: 'Error',
		message: `The service could not be reached at http://127.0.0.1:${port}/v1 (ECONNREFUSED). Check the Base URL.`,
	});
});
