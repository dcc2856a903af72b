import { checkRequestId, pollItem, requestItem, waitForApproval, type PollResult } from '../../../../nodes/SocialAggregatorData/common/keyIssuance';
import { checkEmail } from '../../../../nodes/shared/input';
import { refusal, value } from '../../support/checked';

describe('POST /authorize as an item', () => {
	test('Mode A shows the issued key and what to do with it', () => {
		const item = requestItem(
			201,
			{
				status: 'issued',
				api_key: 'sk_test_123456',
				expires_at: '2026-01-01T02:00:00Z',
				email_confirmation_required: true,
				rate_limit: { requests_per_hour: 60, burst_per_minute: null },
				upgrade_hint: 'hint',
				upgrade_url: 'https://u',
			},
			'new@example.test',
		);
		expect(item).toMatchObject({
			status: 'issued',
			mode: 'immediate',
			api_key: 'sk_test_123456',
			email_confirmation_required: true,
			rate_limit: { requests_per_hour: 60, burst_per_minute: null },
		});
		expect(String(item.next_step)).toMatch(/credential/);
		expect(String(item.next_step)).toMatch(/new@example\.test/);
	});

	test('Mode B shows the authorization URL, request id, poll url, interval and expiry', () => {
		const item = requestItem(
			202,
			{
				status: 'pending_authorization',
				request_id: 'req_1',
				authorization_url: 'https://auth',
				poll_url: 'https://api/v1/authorize/req_1',
				poll_interval: 2,
				expires_at: 'later',
			},
			'old@example.test',
		);
		expect(item).toMatchObject({
			status: 'pending_authorization',
			mode: 'approval',
			request_id: 'req_1',
			authorization_url: 'https://auth',
			poll_url: 'https://api/v1/authorize/req_1',
			poll_interval: 2,
			expires_at: 'later',
		});
		expect(item).not.toHaveProperty('api_key');
	});
});

describe('GET /authorize/{request_id} as an item', () => {
	test('202 pending, 200 issued, 410 gone', () => {
		expect(pollItem(202, { status: 'pending' }, 'r').state).toBe('pending');
		const issued = pollItem(200, { status: 'issued', api_key: 'sk_x_1234', key_preview: 'sk_x…', expires_at: 't' }, 'r');
		expect(issued).toEqual({
			state: 'issued',
			item: expect.objectContaining({ status: 'issued', api_key: 'sk_x_1234', key_preview: 'sk_x…', request_id: 'r' }),
		});
		const gone = pollItem(410, { error: { code: 'authorization_gone', message: 'Denied' } }, 'r');
		expect(gone.state).toBe('gone');
		expect(gone.item).toMatchObject({ status: 'gone', error_code: 'authorization_gone', message: 'Denied' });
		expect(gone.item).not.toHaveProperty('error');
	});
});

describe('waitForApproval', () => {
	const pending: PollResult = { state: 'pending', item: { status: 'pending' } };
	const issued: PollResult = { state: 'issued', item: { status: 'issued' } };

	test('polls at the interval until issued', async () => {
		const answers = [pending, pending, issued];
		const sleeps: number[] = [];
		const result = await waitForApproval({
			poll: async () => answers.shift()!,
			sleep: async (ms) => {
				sleeps.push(ms);
			},
			now: () => 0,
			intervalMs: 2000,
			timeoutMs: 60_000,
		});
		expect(result).toMatchObject({ polls: 3, timedOut: false, result: issued });
		expect(sleeps).toEqual([2000, 2000]);
	});

	test('stops at the timeout, with a last poll at the deadline', async () => {
		const sleeps: number[] = [];
		let polls = 0;
		const result = await waitForApproval({
			poll: async () => {
				polls++;
				return pending;
			},
			sleep: async (ms) => {
				sleeps.push(ms);
			},
			now: () => 0,
			intervalMs: 2000,
			timeoutMs: 5000,
		});
		expect(result.timedOut).toBe(true);
		expect(sleeps).toEqual([2000, 2000, 1000]);
		expect(polls).toBe(4);
	});

	test('a real clock counts too', async () => {
		let clock = 0;
		const result = await waitForApproval({
			poll: async () => {
				clock += 10_000;
				return pending;
			},
			sleep: async () => undefined,
			now: () => clock,
			intervalMs: 2000,
			timeoutMs: 15_000,
		});
		expect(result.timedOut).toBe(true);
		expect(result.polls).toBe(2);
	});
});

describe('the Request ID as a poll_url', () => {
	const BASE = 'https://api.example.com/v1';

	it('follows an absolute poll_url only over https, or plain http on this machine', () => {
		const checked = checkRequestId('http://api.example.com/v1/authorize/req_1', BASE);
		expect(checked.ok).toBe(false);
		if (!checked.ok) {
			expect(checked.refusal.field).toBe('Request ID');
			expect(checked.refusal.reason).toContain('plain http');
		}
		expect(value(checkRequestId('https://api.example.com/v1/authorize/req_1', BASE))).toEqual({ path: 'https://api.example.com/v1/authorize/req_1', requestId: 'req_1' });
		expect(value(checkRequestId('http://127.0.0.1:8080/v1/authorize/req_2', 'http://127.0.0.1:8080/v1'))).toMatchObject({ requestId: 'req_2' });
		expect(value(checkRequestId('http://localhost/v1/authorize/req_3', 'http://localhost:80/v1'))).toMatchObject({ requestId: 'req_3' });
		expect(checkRequestId('HTTP://api.example.com/v1/authorize/req_4', BASE).ok).toBe(false);
	});

	it("only on the Base URL's origin: same scheme, host and port; no user name", () => {
		for (const poll of [
			'https://evil.example/v1/authorize/req_1',
			'https://api.example.com.evil.example/v1/authorize/req_1',
			'https://api.example.com:8443/v1/authorize/req_1',
			'http://127.0.0.1/v1/authorize/req_1',
			'https://user:pw@api.example.com/v1/authorize/req_1',
		]) {
			const refused = refusal(checkRequestId(poll, BASE));
			expect(refused.field).toBe('Request ID');
			expect(refused.reason).toMatch(/not at the Base URL's address \(https:\/\/api\.example\.com\)|plain http/);
		}
		// Loopback aside: another port of this machine is another service.
		expect(refusal(checkRequestId('http://127.0.0.1:9999/v1/authorize/req_1', 'http://127.0.0.1:8080/v1')).reason).toMatch(/not at the Base URL's address/);
		// The origin as URLs compare it: case and the default port do not matter.
		expect(value(checkRequestId('HTTPS://API.Example.com:443/v1/authorize/req_5?x=1#f', BASE))).toEqual({
			path: 'https://api.example.com/v1/authorize/req_5?x=1',
			requestId: 'req_5',
		});
	});

	it('a malformed percent-encoding or a missing ID is a refusal, not a thrown URIError', () => {
		for (const poll of ['https://api.example.com/v1/authorize/%E0%A4%A', 'https://api.example.com/v1/authorize/%ZZ', 'https://api.example.com/v1/authorize/%C0%80']) {
			expect(() => checkRequestId(poll, BASE)).not.toThrow();
			expect(refusal(checkRequestId(poll, BASE)).reason).toMatch(/malformed percent-encoding/);
		}
		expect(refusal(checkRequestId('https://api.example.com/', BASE)).reason).toMatch(/names no request ID/);
		expect(value(checkRequestId('https://api.example.com/v1/authorize/req%20%C3%A9', BASE)).requestId).toBe('req é');
	});
});

describe('key issuance inputs', () => {
	test('email', () => {
		expect(value(checkEmail(' a@b.example '))).toBe('a@b.example');
		expect(refusal(checkEmail('nope')).field).toBe('Email');
	});

	test('request ID or poll URL', () => {
		const base = 'https://api.example.test/v1';
		expect(value(checkRequestId('req_1', base))).toEqual({ path: '/authorize/req_1', requestId: 'req_1' });
		expect(value(checkRequestId('https://api.example.test/v1/authorize/req_2', base))).toEqual({
			path: 'https://api.example.test/v1/authorize/req_2',
			requestId: 'req_2',
		});
		expect(refusal(checkRequestId('', base)).field).toBe('Request ID');
		expect(refusal(checkRequestId('a/b', base)).field).toBe('Request ID');
	});
});
