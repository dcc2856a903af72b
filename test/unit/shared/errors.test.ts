import { NodeApiError } from 'n8n-workflow';

import { apiErrorFromResponse, redact } from '../../../nodes/shared/errors';
import { NODE } from '../support/context';
import { serviceCode } from '../support/serviceCode';

const upgradeAction = {
	type: 'upgrade_plan',
	current_plan: 'free',
	current_plan_display_name: 'Free',
	required_plan: 'team',
	required_plan_display_name: 'Team',
	upgrade_url: 'https://app.example.test/upgrade?token=magic-1',
	expires_at: '2026-11-22T12:00:00Z',
};

// Every error of docs/service.md#errors: the coded 422s and the other statuses.
const rows: Array<{ status: number; code: string; action?: object; details?: object; link?: string }> = [
	{ status: 422, code: 'feed_limit_reached', action: upgradeAction, link: upgradeAction.upgrade_url },
	{ status: 422, code: 'source_limit_reached', action: upgradeAction, link: upgradeAction.upgrade_url },
	{ status: 422, code: 'user_limit_reached', action: upgradeAction, link: upgradeAction.upgrade_url },
	{
		status: 422,
		code: 'social_account_required',
		action: {
			type: 'connect_social_account',
			provider: 'instagram',
			connection_url: 'https://app.example.test/connect?token=magic-2',
		},
		link: 'https://app.example.test/connect?token=magic-2',
	},
	{ status: 401, code: 'unauthorized' },
	{ status: 403, code: 'sign_in_tokens_disabled' },
	{ status: 404, code: 'not_found' },
	{ status: 410, code: 'authorization_gone' },
	{ status: 422, code: 'validation_failed', details: { email: ['is invalid', 'is required'], role: ['is not included in the list'] } },
	{ status: 429, code: 'rate_limit_exceeded' },
];

describe('apiErrorFromResponse', () => {
	it.each(rows)('maps $status $code to a NodeApiError with message, details and link', (row) => {
		const message = `Message for ${row.code}`;
		const error = apiErrorFromResponse(
			NODE,
			{
				statusCode: row.status,
				body: { error: { code: row.code, message, details: row.details ?? {}, action: row.action } },
			},
			3,
		);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(message);
		expect(error.httpCode).toBe(String(row.status));
		expect(serviceCode(error)).toBe(row.code);
		expect(error.context.itemIndex).toBe(3);
		expect(error.description).toContain(`Error code: ${row.code}`);
		if (row.link) expect(error.description).toContain(row.link);
		for (const [field, messages] of Object.entries(row.details ?? {})) {
			expect(error.description).toContain(`${field}: ${(messages as string[]).join('; ')}`);
		}
	});

	it.each([
		[401, 'credential'],
		[402, 'credits'],
		[403, 'owner or manager'],
		[404, 'Check the ID'],
		[410, 'Request a new key'],
		[429, 'Run again later'],
		[503, 'again in a moment'],
	])('tells what to do about status %i', (status, advice) => {
		const error = apiErrorFromResponse(NODE, { statusCode: status, body: { error: { code: 'x', message: 'm' } } });
		expect(error.description).toContain(advice);
	});

	it('prefers a checkout link, then an upgrade link, then a connection link, and words the advice after the link it gives', () => {
		const describe = (action: object) =>
			apiErrorFromResponse(NODE, { statusCode: 422, body: { error: { code: 'insufficient_credits', message: 'm', details: null, action } } }).description ?? '';
		const checkout = 'https://app.example.test/checkout?token=c';
		const upgrade = 'https://app.example.test/upgrade?token=u';
		const connect = 'https://app.example.test/connect?token=k';
		const all = describe({ type: 'buy_credits', checkout_url: checkout, upgrade_url: upgrade, connection_url: connect });
		expect(all).toContain(`Open: ${checkout}`);
		expect(all).not.toContain(upgrade);
		expect(all).not.toContain('Connect the social account');
		expect(describe({ type: 'other', upgrade_url: upgrade, connection_url: connect })).toContain(`Open: ${upgrade}`);
		expect(describe({ type: 'other', connection_url: connect })).toContain(`Connect the social account: ${connect}`);
	});

	it('advises on fields only when the service named some', () => {
		const withFields = apiErrorFromResponse(NODE, {
			statusCode: 422,
			body: { error: { code: 'validation_failed', message: 'm', details: { name: ['is required'] } } },
		});
		expect(withFields.description).toContain('Correct the fields listed above');
		const limit = apiErrorFromResponse(NODE, {
			statusCode: 422,
			body: { error: { code: 'feed_limit_reached', message: 'm', details: {}, action: upgradeAction } },
		});
		expect(limit.description).not.toContain('fields');
	});

	it.each([
		['sign_in_tokens_disabled', 403, 'Sign-in tokens are not enabled'],
		['email_confirmation_required', 403, 'confirmation email'],
	])('gives the advice of code %s', (code, status, advice) => {
		const error = apiErrorFromResponse(NODE, { statusCode: status, body: { error: { code, message: 'm' } } });
		expect(error.description).toContain(advice);
		expect(error.description).not.toContain('owner or manager');
	});

	it('names the plan to upgrade to', () => {
		const error = apiErrorFromResponse(NODE, {
			statusCode: 422,
			body: { error: { code: 'feed_limit_reached', message: 'Feed limit reached', action: upgradeAction } },
		});
		expect(error.description).toContain('Upgrade to the Team plan: https://app.example.test/upgrade?token=magic-1');
	});

	it('describes a body that is not the envelope by its status', () => {
		const error = apiErrorFromResponse(NODE, { statusCode: 502, body: '<html>Bad gateway</html>' });
		expect(error.message).toBe('The service answered HTTP 502');
		expect(error.httpCode).toBe('502');
	});
});

describe('redact', () => {
	it('replaces every occurrence of each secret', () => {
		expect(redact('key sag_abcdef and sag_abcdef again', ['sag_abcdef'])).toBe('key [redacted] and [redacted] again');
	});
	it('leaves short or empty secrets alone', () => {
		expect(redact('a b c', ['', undefined, 'b'])).toBe('a b c');
	});
});
