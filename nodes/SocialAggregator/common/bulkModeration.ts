import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { isEmptyValue, isObject } from '../../shared/utils';

// Post › Moderate Many. The service names "a bulk action on several posts" and neither its path nor its body nor
// its answer (docs/service.md#bulk-moderation): the request below is the most likely shape, and this file is the one
// place that knows it.

/** The request: the feed's posts, a POST with `{ action, ids }`. */
export const BULK_MODERATION_URL = '=/feeds/{{$parameter.feedId}}/posts/bulk';

export const BULK_ACTIONS = ['approve', 'reject', 'delete'] as const;

/** Counts an answer may give of the posts acted on, under the names such answers use. */
const COUNT_FIELDS = ['count', 'updated_count', 'affected', 'processed'];

/** A result of one post that says it failed. */
function failed(result: unknown): boolean {
	if (!isObject(result)) return false;
	return result.success === false || (!isEmptyValue(result.error) && result.error !== false);
}

/**
 * The answer as one record `{ action, ids, count, failedIds?, results? }`, whatever the service's legal shape: no body
 * (every post acted on), a count (a number, or an object with one), or a list of results (each post's, an object
 * whose `success: false` or `error` says it failed), in `data` or not. `count` is the posts acted on. A body none of
 * these describes comes back as it was, for the answer check to name.
 */
export function moderationSummary(body: unknown, request: IHttpRequestOptions): unknown {
	const sent = isObject(request.body) ? request.body : {};
	const ids = Array.isArray(sent.ids) ? sent.ids : [];
	const summary: IDataObject = { action: sent.action, ids };
	const answer = isObject(body) && 'data' in body ? body.data : body;
	if (isEmptyValue(answer)) return { data: { ...summary, count: ids.length } };
	if (typeof answer === 'number') return { data: { ...summary, count: answer } };
	const results = Array.isArray(answer) ? answer : isObject(answer) && Array.isArray(answer.results) ? answer.results : undefined;
	if (results) {
		const failedIds = results.filter(failed).map((result) => (result as IDataObject).id ?? (result as IDataObject).post_id);
		return { data: { ...summary, count: results.length - failedIds.length, failedIds, results } };
	}
	if (!isObject(answer)) return body;
	const count = COUNT_FIELDS.map((field) => answer[field]).find((value) => typeof value === 'number');
	return { data: { ...answer, ...summary, count: count ?? ids.length } };
}
