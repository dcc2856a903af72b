import type { IHttpRequestOptions } from 'n8n-workflow';

import { moderationSummary } from '../../../../nodes/SocialAggregator/common/bulkModeration';

const sent = { url: '/feeds/1/posts/bulk', method: 'POST', body: { action: 'reject', ids: [1, 2, 3] } } as IHttpRequestOptions;
const asked = { action: 'reject', ids: [1, 2, 3] };

describe('moderationSummary', () => {
	it.each([
		['no body (204)', '', { count: 3 }],
		['null data', { data: null }, { count: 3 }],
		['a number', 2, { count: 2 }],
		['a count in data', { data: { action: 'reject', count: 2 } }, { count: 2 }],
		['another name for the count, other fields kept', { data: { updated_count: 1, job: 'j1' } }, { updated_count: 1, job: 'j1', count: 1 }],
		['an object without a count (every post)', { data: { status: 'done' } }, { status: 'done', count: 3 }],
	])('reads %s', (_name, body, expected) => {
		expect(moderationSummary(body, sent)).toEqual({ data: { ...asked, ...expected } });
	});

	it('reads a list of results, bare, in data or under results: the failed ones by success false or an error, by id or post_id', () => {
		const results = [{ id: 1, success: true }, { post_id: 2, error: { code: 'not_found' } }, { id: 3, success: false }, { id: 4, error: null }, 'odd'];
		const expected = { data: { ...asked, count: 3, failedIds: [2, 3], results } };
		expect(moderationSummary(results, sent)).toEqual(expected);
		expect(moderationSummary({ data: results }, sent)).toEqual(expected);
		expect(moderationSummary({ data: { results } }, sent)).toEqual(expected);
	});

	it('the action and IDs are always what was sent, whatever the answer says', () => {
		expect(moderationSummary({ data: { action: 'approve', ids: [9], count: 1 } }, sent)).toEqual({ data: { ...asked, count: 1 } });
	});

	it('hands on an answer none of these forms describes, for the answer check to name', () => {
		for (const body of [true, 'text']) expect(moderationSummary(body, sent)).toBe(body);
	});
});
