import { checkModeration } from '../../../../nodes/SocialAggregator/common/moderation';

describe('checkModeration', () => {
	test('only the settings given, under the service names and types', () => {
		expect(checkModeration({ name: 'x', profanityFilter: 'FALSE', allowedWords: 'a,, b ,a\nc', aiSentimentFilter: 'Positive' })).toEqual({
			ok: true,
			value: { allowed: 'a,b,c', profanity: false, ai_sentiment_filter: ['positive'] },
		});
		expect(checkModeration({})).toEqual({ ok: true, value: {} });
		expect(checkModeration(undefined)).toEqual({ ok: true, value: {} });
	});

	test('numbers are words; null words, rules and sentiments clear them', () => {
		expect(checkModeration({ blockedWords: [404, 'spam'], aiModerationRules: null, aiSentimentFilter: null, allowedWords: null })).toEqual({
			ok: true,
			value: { allowed: '', disallowed: '404,spam', ai_moderation_rules: '', ai_sentiment_filter: [] },
		});
	});

	test('every wrong field is named: the first as the refusal, the others in also', () => {
		const checked = checkModeration({ queue: 1, preventDuplicates: null, blockedWords: true, deduplicationStrategy: ['prioritize_top_source'] });
		expect(checked.ok).toBe(false);
		if (checked.ok) return;
		expect(checked.refusal).toEqual({ field: 'Hold New Posts for Approval', reason: 'must be true or false, not 1' });
		expect(checked.also?.map((r) => [r.field, r.reason])).toEqual([
			['Blocked Words', 'must be words separated by commas, not true'],
			['Prevent Duplicates', 'must be true or false, not null'],
			['Deduplication Strategy', 'must be one of "prioritize_top_source", "distribute_across_sources", not ["prioritize_top_source"]'],
		]);
	});
});
