import { checkRequestId, pollItem, requestItem, waitForApproval, type PollResult } from '../../../../nodes/SocialAggregatorData/resources/apiKey';
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
	it('follows an absolute poll_url only over https, or plain http on this machine', () => {
		const checked = checkRequestId('http://api.example.com/v1/authorize/req_1');
		expect(checked.ok).toBe(false);
		if (!checked.ok) {
			expect(checked.refusal.field).toBe('Request ID');
			expect(checked.refusal.reason).toContain('plain http');
		}
		expect(checkRequestId('https://api.example.com/v1/authorize/req_1')).toMatchObject({ ok: true, value: { requestId: 'req_1', absolute: true } });
		expect(checkRequestId('http://127.0.0.1:8080/v1/authorize/req_2')).toMatchObject({ ok: true, value: { requestId: 'req_2' } });
		expect(checkRequestId('http://localhost/v1/authorize/req_3')).toMatchObject({ ok: true, value: { requestId: 'req_3' } });
		expect(checkRequestId('HTTP://api.example.com/v1/authorize/req_4').ok).toBe(false);
	});
});

describe('key issuance inputs', () => {
	test('email', () => {
		expect(value(checkEmail(' a@b.example '))).toBe('a@b.example');
		expect(refusal(checkEmail('nope')).field).toBe('Email');
	});

	test('request ID or poll URL', () => {
		expect(value(checkRequestId('req_1'))).toEqual({ path: '/authorize/req_1', requestId: 'req_1', absolute: false });
		expect(value(checkRequestId('https://api.example.test/v1/authorize/req_2'))).toEqual({
			path: 'https://api.example.test/v1/authorize/req_2',
			requestId: 'req_2',
			absolute: true,
		});
		expect(refusal(checkRequestId('')).field).toBe('Request ID');
		expect(refusal(checkRequestId('a/b')).field).toBe('Request ID');
	});
});
