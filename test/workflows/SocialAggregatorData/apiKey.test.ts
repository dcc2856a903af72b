import { KEY_PREFIX, SEEDED } from '../../fake-service';
import { fastSleep, useFakeService } from '../support';
import { NODE, runNode } from './helpers';

const fake = useFakeService();

const CONFIRMED = SEEDED.emails.acmeOwner;

/** API Key parameters with the base URL typed in: the user has no key, so no credential. */
const apiKey = (operation: string, parameters: Record<string, unknown> = {}) => ({
	resource: 'apiKey',
	operation,
	baseUrlSource: 'parameter',
	baseUrl: fake.url,
	...parameters,
});

/** A Mode B request made through the fake's API, as a user's earlier run would have. */
async function pendingRequest(): Promise<{ request_id: string; poll_url: string }> {
	const run = await runNode(fake, apiKey('request', { email: CONFIRMED, clientName: 'n8n tests' }), { apiKey: null });
	return run.items[0].json as { request_id: string; poll_url: string };
}

describe('Request', () => {
	test('Mode A: a new email gets its key at once, shown in the output only', async () => {
		const run = await runNode(fake, apiKey('request', { email: 'newcomer@example.test', clientName: 'n8n' }), {
			apiKey: null,
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		const item = run.items[0];
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.json).toMatchObject({
			status: 'issued',
			mode: 'immediate',
			email_confirmation_required: true,
			rate_limit: { requests_per_hour: 60, burst_per_minute: null },
		});
		const key = String(item.json.api_key);
		expect(key.startsWith(KEY_PREFIX)).toBe(true);
		expect(typeof item.json.expires_at).toBe('string');
		expect(String(item.json.next_step)).toMatch(/credential/);

		// No API key was sent and no credential asked for.
		expect(run.requests).toEqual([
			expect.objectContaining({ method: 'POST', path: '/authorize', status: 201, keyId: null }),
		]);
		expect(run.requests[0].body).toEqual({ email: 'newcomer@example.test', client_name: 'n8n' });
		expect(run.result.credentialsRequested).toEqual([]);
		// The key is in the item that asked for it, never in a log line.
		expect(JSON.stringify(run.result.logs)).not.toContain(key);
	});

	test('Mode A with the Base URL of an existing credential: its key is not sent', async () => {
		const run = await runNode(fake, {
			resource: 'apiKey',
			operation: 'request',
			baseUrlSource: 'credential',
			email: 'second@example.test',
			clientName: 'n8n',
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.status).toBe('issued');
		expect(run.result.credentialsRequested).toContain('socialAggregatorApi');
		expect(run.requests).toEqual([expect.objectContaining({ path: '/authorize', keyId: null })]);
	});

	test('Mode B: a confirmed account gets the authorization URL, request id, poll url, interval and expiry', async () => {
		const run = await runNode(fake, apiKey('request', { email: CONFIRMED, clientName: 'n8n' }), { apiKey: null });
		expect(run.error).toBeUndefined();
		const json = run.items[0].json;
		expect(json).toMatchObject({
			status: 'pending_authorization',
			mode: 'approval',
			request_id: expect.any(String),
			authorization_url: expect.stringContaining('/web/authorize/'),
			poll_url: `${fake.url}/authorize/${String(json.request_id)}`,
			poll_interval: 2,
			expires_at: expect.any(String),
		});
		expect(json).not.toHaveProperty('api_key');
		expect(run.requests[0].status).toBe(202);
	});

	test('a malformed email is refused before any request', async () => {
		const run = await runNode(fake, apiKey('request', { email: 'not-an-email', clientName: 'n8n' }), { apiKey: null });
		expect(run.error?.message).toMatch(/Invalid Email \(item 0\)/);
		expect(run.requests).toHaveLength(0);
	});

	test('a base URL that is not an http(s) address is refused, naming the field', async () => {
		const run = await runNode(fake, apiKey('request', { email: 'a@example.test', clientName: 'n8n', baseUrl: '={{ "api.example.test" }}' }), {
			apiKey: null,
		});
		expect(run.error?.message).toMatch(/Invalid Base URL \(item 0\)/);
		expect(run.requests).toHaveLength(0);
	});
});

describe('Get Authorization Status', () => {
	test('pending (202), issued (200) once, then gone (410)', async () => {
		const { request_id } = await pendingRequest();
		const status = () => runNode(fake, apiKey('getStatus', { requestId: request_id }), { apiKey: null });

		const pending = await status();
		expect(pending.items).toEqual([{ json: expect.objectContaining({ status: 'pending', request_id }), pairedItem: { item: 0 } }]);
		expect(pending.requests).toEqual([expect.objectContaining({ method: 'GET', status: 202, keyId: null })]);

		fake.control.approveDevice(request_id);
		const issued = await status();
		expect(issued.items[0].json).toMatchObject({ status: 'issued', request_id, key_preview: expect.any(String) });
		expect(String(issued.items[0].json.api_key).startsWith(KEY_PREFIX)).toBe(true);

		const gone = await status();
		expect(gone.error).toBeUndefined();
		expect(gone.items[0].json).toMatchObject({ status: 'gone', error_code: 'authorization_gone' });
		expect(gone.items[0].json).not.toHaveProperty('api_key');
	});

	test("the poll_url works as the request id on the Base URL's address", async () => {
		const { poll_url, request_id } = await pendingRequest();
		const run = await runNode(fake, apiKey('getStatus', { requestId: poll_url }), { apiKey: null });
		expect(run.items[0].json).toMatchObject({ status: 'pending', request_id });
		expect(run.requests).toEqual([expect.objectContaining({ method: 'GET', path: `/authorize/${request_id}`, keyId: null })]);
	});

	test.each([
		['another port of this machine', (id: string) => fake.url.replace(/:(\d+)\//, (_m, port: string) => `:${Number(port) + 1}/`) + `/authorize/${id}`, /not at the Base URL's address/],
		['another host', (id: string) => `https://api.example.com/v1/authorize/${id}`, /not at the Base URL's address/],
		['plain http to another host', (id: string) => `http://api.example.com/v1/authorize/${id}`, /plain http/],
		['a malformed percent-encoding', (id: string) => `${fake.url}/authorize/${id}%E0%A4%A`, /malformed percent-encoding/],
	])('a poll_url on %s is refused before any request, naming Request ID and the item', async (_case, pollUrl, reason) => {
		const { request_id } = await pendingRequest();
		fake.control.requests.clear();
		const run = await runNode(fake, apiKey('getStatus', { requestId: pollUrl(request_id) }), { apiKey: null });
		expect(run.error?.message).toContain('Invalid Request ID (item 0)');
		expect(run.error?.message).toMatch(reason);
		expect(run.error?.description).toMatch(/Nothing was sent to the service/);
		expect(fake.control.requests.list()).toEqual([]);
	});

	test('Wait for Approval refuses such a poll_url the same way, with Continue On Fail as an error item', async () => {
		const run = await runNode(fake, apiKey('waitForApproval', { requestId: 'https://evil.example/v1/authorize/req_1', timeout: 5 }), {
			apiKey: null,
			onError: 'continueRegularOutput',
		});
		expect(run.items).toEqual([{ json: expect.objectContaining({ error: expect.stringMatching(/^Invalid Request ID \(item 0\): the poll URL/) }), pairedItem: { item: 0 } }]);
		expect(run.requests).toEqual([]);
	});
});

describe('Wait for Approval', () => {
	test('Mode B approved: Request → Wait for Approval polls at poll_interval until the key is issued', async () => {
		let polled = 0;
		const sleep = fastSleep(() => {
			polled++;
			// The owner approves while the node waits (after the second poll).
			if (polled === 2) fake.control.approveDevice(fake.control.deviceRequests()[0].id);
		});
		try {
			const run = await runNode(fake, apiKey('request', { email: CONFIRMED, clientName: 'n8n' }), {
				apiKey: null,
				then: {
					name: 'Wait',
					parameters: apiKey('waitForApproval', {
						requestId: '={{ $json.request_id }}',
						pollInterval: '={{ $json.poll_interval }}',
						timeout: 60,
					}),
				},
			});
			expect(run.result.error('Wait')).toBeUndefined();
			const [item] = run.result.items('Wait');
			expect(item.pairedItem).toEqual({ item: 0 });
			expect(item.json).toMatchObject({ status: 'issued', request_id: expect.any(String) });
			const key = String(item.json.api_key);
			expect(key.startsWith(KEY_PREFIX)).toBe(true);
			// POST, then polls: pending, pending, issued.
			expect(run.requests.map((r) => `${r.method} ${r.status}`)).toEqual([
				'POST 202',
				'GET 202',
				'GET 202',
				'GET 200',
			]);
			expect(sleep.waits).toEqual([2000, 2000]);
			expect(JSON.stringify(run.result.logs)).not.toContain(key);
			expect(run.result.items(NODE)[0].json).not.toHaveProperty('api_key');

			// The issued key works for the Data API (a 12-hour key of the approved account).
			const data = await runNode(fake, { resource: 'post', operation: 'search', term: 'nasa', platforms: ['Bluesky'], limit: 1 }, { apiKey: key });
			expect(data.error).toBeUndefined();
			expect(data.requests[0].keyId).toMatch(/^key_tmp_/);
		} finally {
			sleep.restore();
		}
	});

	test('Mode B denied: the request is gone (410) and the node says so', async () => {
		const { request_id } = await pendingRequest();
		fake.control.denyDevice(request_id);
		const sleep = fastSleep();
		try {
			const run = await runNode(fake, apiKey('waitForApproval', { requestId: request_id, timeout: 60 }), { apiKey: null });
			expect(run.error?.message).toBe(`The authorization request ${request_id} is gone`);
			expect(run.error?.description).toMatch(/denied/);
			expect(run.requests.map((r) => r.status)).toEqual([410]);
			expect(sleep.waits).toEqual([]);

			const continued = await runNode(fake, apiKey('waitForApproval', { requestId: request_id, timeout: 60 }), {
				apiKey: null,
				onError: 'continueRegularOutput',
			});
			expect(continued.items).toEqual([
				{ json: expect.objectContaining({ error: expect.stringMatching(/is gone/) }), pairedItem: { item: 0 } },
			]);
		} finally {
			sleep.restore();
		}
	});

	test('Mode B timing out: polls until the user’s timeout, then an error', async () => {
		const { request_id } = await pendingRequest();
		// Each wait moves the fake's clock instead of the test's.
		const sleep = fastSleep((ms) => {
			fake.control.clock.advance(ms);
		});
		const started = Date.now();
		try {
			const run = await runNode(fake, apiKey('waitForApproval', { requestId: request_id, pollInterval: 3, timeout: 10 }), {
				apiKey: null,
			});
			expect(run.error?.message).toBe(`No approval for request ${request_id} within 10 s`);
			// Polls at 0, 3, 6 and 9 s, and a last one at the deadline (10 s).
			expect(sleep.waits).toEqual([3000, 3000, 3000, 1000]);
			expect(run.requests.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
			expect(Date.now() - started).toBeLessThan(5000);
			expect(fake.control.deviceRequests()[0].state).toBe('pending');
		} finally {
			sleep.restore();
		}
	});

	test('a request that expires while waiting ends as gone, before the timeout', async () => {
		const { request_id } = await pendingRequest();
		const sleep = fastSleep((ms) => {
			fake.control.clock.advance(ms * 100); // 10 minutes pass within a few polls
		});
		try {
			const run = await runNode(fake, apiKey('waitForApproval', { requestId: request_id, pollInterval: 2, timeout: 600 }), {
				apiKey: null,
			});
			expect(run.error?.message).toMatch(/is gone/);
			expect(run.error?.description).toMatch(/expired/);
			expect(run.requests.length).toBeLessThan(10);
		} finally {
			sleep.restore();
		}
	});
});
