import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import type { RequestOptions } from '../../../../nodes/SocialAggregator/common/checks';
import { bodyModeration } from '../../../../nodes/SocialAggregator/common/moderation';
import { singleContext } from '../../support/nodeContext';

/** The PATCH body Feed › Update sends for these Update Fields: the moderation settings, as bodyModeration adds them. */
function settingsSent(fields: unknown): IDataObject {
	const request: RequestOptions = { method: 'PATCH', url: '/feeds/1', body: {} };
	bodyModeration('updateFields').call(singleContext(fields === undefined ? {} : { updateFields: fields as IDataObject }), request, 0);
	return request.body as IDataObject;
}

/** The refusal of these Update Fields, before any request. */
function refusalOf(fields: IDataObject): NodeOperationError {
	try {
		settingsSent(fields);
	} catch (error) {
		return error as NodeOperationError;
	}
	throw new Error('not refused');
}

describe('the moderation settings sent', () => {
	test('only the settings given, under the service names and types', () => {
		expect(settingsSent({ name: 'x', profanityFilter: 'FALSE', allowedWords: 'a,, b ,a\nc', aiSentimentFilter: 'Positive' })).toEqual({
			allowed: 'a,b,c',
			profanity: false,
			ai_sentiment_filter: ['positive'],
		});
		expect(settingsSent({})).toEqual({});
		expect(settingsSent(undefined)).toEqual({});
	});

	test('numbers are words; null words, rules and sentiments clear them', () => {
		expect(settingsSent({ blockedWords: [404, 'spam'], aiModerationRules: null, aiSentimentFilter: null, allowedWords: null })).toEqual({
			allowed: '',
			disallowed: '404,spam',
			ai_moderation_rules: '',
			ai_sentiment_filter: [],
		});
	});

	test('every wrong field is named: the first as the refusal, the others in also', () => {
		const refused = refusalOf({ queue: 1, preventDuplicates: null, blockedWords: true, deduplicationStrategy: ['prioritize_top_source'] });
		expect(refused).toBeInstanceOf(NodeOperationError);
		expect(refused.message).toBe('Invalid Hold New Posts for Approval (item 0): must be true or false, not 1');
		expect(refused.description).toContain(
			[
				'Also: Invalid Blocked Words (item 0): must be words separated by commas, not true',
				'Invalid Prevent Duplicates (item 0): must be true or false, not null',
				'Invalid Deduplication Strategy (item 0): must be one of "prioritize_top_source", "distribute_across_sources", not ["prioritize_top_source"].',
			].join('; '),
		);
	});
});
