import { budgetWaitFrom, retryPolicyFrom } from '../../../nodes/shared/requestOptions';

describe('Request Options', () => {
	test('Wait for Rate Limit Budget: off unless set, in seconds, refused when not 0 or more', () => {
		expect(budgetWaitFrom(undefined)).toEqual({ ok: true, value: 0 });
		expect(budgetWaitFrom({ budgetWait: '' })).toEqual({ ok: true, value: 0 });
		expect(budgetWaitFrom({ budgetWait: 90 })).toEqual({ ok: true, value: 90_000 });
		const refused = budgetWaitFrom({ budgetWait: -1 });
		expect(refused.ok).toBe(false);
		expect(refused.ok ? undefined : refused.refusal.field).toBe('Wait for Rate Limit Budget (Seconds)');
		expect(budgetWaitFrom({ budgetWait: 'soon' }).ok).toBe(false);
	});

	test('Max Retry Wait: the retry policy in milliseconds', () => {
		expect(retryPolicyFrom({ maxRetryWait: 30 })).toEqual({ ok: true, value: { maxTotalWaitMs: 30_000 } });
		expect(retryPolicyFrom({ maxRetryWait: -5 }).ok).toBe(false);
	});

	test('Max Retry Wait: the default policy when left empty; a refusal that names the field and the value', () => {
		for (const empty of [undefined, {}, { maxRetryWait: '' }, { maxRetryWait: null }]) {
			expect(retryPolicyFrom(empty)).toEqual({ ok: true, value: {} });
		}
		expect(retryPolicyFrom({ maxRetryWait: 0.25 })).toEqual({ ok: true, value: { maxTotalWaitMs: 250 } });
		const refused = retryPolicyFrom({ maxRetryWait: 'later' });
		expect(refused.ok ? undefined : { field: refused.refusal.field, reason: refused.refusal.reason }).toEqual({
			field: 'Max Retry Wait (Seconds)',
			reason: 'later is not a number of seconds of 0 or more',
		});
	});
});
