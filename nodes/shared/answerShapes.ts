import type { IDataObject, INode, NodeApiError } from 'n8n-workflow';

import { apiError } from './errors';
import { isEmptyValue, isObject, nonBlankText } from './utils';
import type { ListMeta, PlatformStatus } from './types';

/** Checks of answers against their shapes before any item is made (docs/service.md#answers): a wrong answer taken as right loses items silently. */

/** Why an answer cannot be used, in the user's words; `page` when it was a page of a list. */
export class UnusableAnswer extends Error {
	constructor(
		message: string,
		public page?: number,
		public statusCode?: number,
	) {
		super(message);
	}
}

/** What a value is, for a message: "a number", "null", "a list". */
function kind(value: unknown): string {
	if (value === undefined) return 'missing';
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	return `a ${typeof value}`;
}

/** Where an answer came from: the page of a list, and the HTTP status. */
interface AnswerAt {
	page?: number;
	statusCode?: number;
}

function unusable(message: string, at: AnswerAt = {}): UnusableAnswer {
	return new UnusableAnswer(message, at.page, at.statusCode);
}

/** The `data` of an answer, which must be there. */
function dataOf(body: unknown, at?: AnswerAt): unknown {
	if (body === undefined || body === null || (typeof body === 'string' && body.trim() === '')) {
		throw unusable('the answer is empty', at);
	}
	if (!isObject(body)) throw unusable(`the answer is ${kind(body)}, not an object`, at);
	if (!('data' in body)) throw unusable('`data` is missing', at);
	return body.data;
}

/** A list of records: every element an object. */
function records(list: unknown, where: string, at?: AnswerAt): IDataObject[] {
	if (!Array.isArray(list)) throw unusable(`${where} is ${kind(list)}, not a list`, at);
	const wrong = list.findIndex((element) => !isObject(element));
	if (wrong >= 0) throw unusable(`element ${wrong + 1} of ${where} is ${kind(list[wrong])}`, at);
	return list as IDataObject[];
}

/** A list answer: `data` a list of objects; `meta` figures, where given, whole numbers of 0 or more. */
export function listAnswer(body: unknown, at?: AnswerAt): { data: IDataObject[]; meta?: Partial<ListMeta> } {
	const data = records(dataOf(body, at), '`data`', at);
	const meta = (body as IDataObject).meta;
	if (meta === undefined || meta === null) return { data };
	if (!isObject(meta)) throw unusable(`\`meta\` is ${kind(meta)}`, at);
	for (const field of ['page', 'per_page', 'total_count', 'total_pages']) {
		const value = meta[field];
		if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) {
			throw unusable(`\`meta.${field}\` is ${JSON.stringify(value) ?? kind(value)}, not a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`, at);
		}
	}
	const { total_pages: pages, total_count: count } = meta as Partial<ListMeta>;
	// A list would end here as if complete, with posts missing.
	if (pages === 0 && data.length > 0 && count !== undefined && count > data.length) {
		throw unusable(`\`meta.total_pages\` is 0 while the page holds ${data.length} and \`meta.total_count\` says ${count}`, at);
	}
	return { data, meta: meta as Partial<ListMeta> };
}

/** A single record: `data` an object. */
export function objectAnswer(body: unknown, at?: AnswerAt): IDataObject {
	const data = dataOf(body, at);
	if (!isObject(data)) throw unusable(`\`data\` is ${kind(data)}, not an object`, at);
	return data;
}

/** An answer that is itself the record (key issuance): an object. */
export function recordAnswer(body: unknown, at?: AnswerAt): IDataObject {
	if (!isObject(body)) {
		throw unusable(body === undefined || body === '' ? 'the answer is empty' : `the answer is ${kind(body)}, not an object`, at);
	}
	return body;
}

/** A Data API answer: `data` a list of objects, `meta.platforms` reports that each name their platform. */
export function dataApiAnswer(
	body: unknown,
	at?: AnswerAt,
	/** Profile look-ups may come without platform reports (docs/service.md#profiles). */
	reportsOptional = false,
): { data: IDataObject[]; statuses: PlatformStatus[] } {
	const data = records(dataOf(body, at), '`data`', at);
	const meta = (body as IDataObject).meta;
	if (reportsOptional && (meta === undefined || meta === null || (isObject(meta) && meta.platforms === undefined))) {
		return { data, statuses: [] };
	}
	if (!isObject(meta)) throw unusable(meta === undefined ? '`meta` is missing' : `\`meta\` is ${kind(meta)}`, at);
	const statuses = records(meta.platforms, '`meta.platforms`', at).map((entry, index) => {
		const platform = nonBlankText(entry.platform);
		if (!platform) throw unusable(`element ${index + 1} of \`meta.platforms\` names no platform`, at);
		if (typeof entry.success !== 'boolean') {
			throw unusable(`\`success\` of ${platform} in \`meta.platforms\` is ${kind(entry.success)}, not true or false`, at);
		}
		const cursor = entry.next_cursor;
		if (cursor !== undefined && cursor !== null && typeof cursor !== 'string') {
			throw unusable(`\`next_cursor\` of ${platform} is ${kind(cursor)}`, at);
		}
		// A platform would end here as if complete, with pages missing.
		if (entry.success && entry.has_more === true && isEmptyValue(cursor)) {
			throw unusable(`\`has_more\` of ${platform} is true but it has no \`next_cursor\` to continue from`, at);
		}
		const status: PlatformStatus = { ...(entry as unknown as PlatformStatus), platform, next_cursor: cursor ?? null };
		if (!entry.success) {
			status.error_code = nonBlankText(entry.error_code) ?? 'platform_error';
			status.message = nonBlankText(entry.message) ?? 'no readable reason was given';
		}
		return status;
	});
	return { data, statuses };
}

/** The error for an answer that cannot be used, naming the request, page, HTTP status and fault: no partial result. */
export function unusableAnswerError(
	node: INode,
	problem: UnusableAnswer,
	where: { request: string; statusCode?: number; itemIndex?: number },
): NodeApiError {
	const statusCode = problem.statusCode ?? where.statusCode ?? 200;
	const page = problem.page === undefined ? '' : `, page ${problem.page}`;
	const message = `The service's answer to ${where.request}${page} (HTTP ${statusCode}) cannot be used: ${problem.message}`;
	return apiError(node, { error: { code: 'unusable_answer', message } }, 'unusable_answer', {
		message,
		description:
			'Nothing was output for this item rather than a result with items missing. The answer may come from a proxy or a faulty deploy of the service: run the node again later, and tell the service if it lasts.',
		httpCode: String(statusCode),
		itemIndex: where.itemIndex,
	});
}
