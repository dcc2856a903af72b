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
});
