import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodePropertyRouting,
} from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../shared/constants';
import { apiErrorCode } from '../shared/errors';
import { collectPages } from '../shared/pagination';
import { sendWithRules, type FullResponse } from '../shared/transport';
import type { ListMeta } from '../shared/types';

/*
 * How the declarative node sends its requests.
 *
 * Every operation's routing names one function as its `operations.pagination`
 * (see `route`). n8n calls it once per input item with the request that routing
 * built from the parameters; it then:
 *   1. runs the operation's `prepare` steps: input checks that throw a
 *      NodeOperationError naming the field and the item before any request, and
 *      the few request changes expressions cannot make well (dates, merged lists);
 *   2. sends through `makeRoutingRequest` with HTTP errors turned into answers, so
 *      that the package's rules apply: 429 and transient failures are retried
 *      (Retry-After, else backoff; POST/PATCH only on 429), and SPEC.md's error
 *      envelope becomes the NodeApiError of `apiErrorFromResponse`;
 *   3. pages lists with `collectPages` (Return All at per_page=100 up to
 *      meta.total_pages; a Limit never asks for a page it does not need), each
 *      page retried on its own, so a 429 resumes at the page that failed; once
 *      page 1 has told how many pages there are, up to `PAGE_CONCURRENCY` of
 *      the rest are in flight at once, the output keeping the service's order
 *      (`PageGate`: a 429 holds back the pages not yet sent, a failure stops them);
 *   4. turns the answer into items (`{ data }` unwrapped, one item per element of
 *      a list, `{ deleted: true, id }` for deletes), each paired with its input
 *      item; with "continue on fail" an error becomes an error item, paired too.
 */

export type RequestOptions = DeclarativeRestApiSettings.HttpRequestOptions;
type RequestData = DeclarativeRestApiSettings.ResultOptions;

/**
 * A step run before an operation's request: checks the input (throwing a
 * `NodeOperationError` that names the field and the item) or adjusts the
 * request routing built.
 */
export type Prepare = (
	this: IExecuteSingleFunctions,
	request: RequestOptions,
	itemIndex: number,
) => void | Promise<void>;

export interface RouteSpec {
	method: IHttpRequestMethods;
	/** The path below the base URL; an expression (`=/feeds/{{$parameter.feedId}}`) where it holds IDs. */
	url: string;
	/**
	 * `paged`: a page-numbered list (`returnAll`/`limit` parameters, `page`/`per_page`).
	 * `whole`: a list the service answers at once; `returnAll`/`limit` apply to it.
	 */
	list?: 'paged' | 'whole';
	/** A delete: the answer is `{ deleted: true, id }`, the ID read from this parameter. */
	deletes?: string;
	/** Checks and request changes, in order, before any request. */
	prepare?: Prepare[];
	/** Fields never to output (a secret the user did not ask for). */
	omit?: string[];
}

/** The whole response of one attempt, kept by `keepFullResponse`. */
type Answer = FullResponse;

/**
 * postReceive of every operation: keeps the status, headers and body so that
 * the send function can tell a 429 or an error envelope from a success.
 */
export async function keepFullResponse(
	this: IExecuteSingleFunctions,
	_items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	const answer: Answer = {
		statusCode: response.statusCode,
		headers: response.headers ?? {},
		body: response.body,
	};
	return [{ json: answer as unknown as IDataObject }];
}

/** The routing of one operation: its request, and the function that sends it by the package's rules. */
export function route(spec: RouteSpec): INodePropertyRouting {
	return {
		request: { method: spec.method, url: spec.url },
		send: { paginate: true },
		operations: { pagination: sender(spec) },
		output: { postReceive: [keepFullResponse] },
	};
}

const REQUEST_TIMEOUT_MS = 60_000;

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A fresh copy of the request for one attempt, with extra query parameters. */
function attemptRequest(base: RequestData, qs: IDataObject): RequestData {
	const options: RequestOptions = {
		...base.options,
		qs: { ...(base.options.qs ?? {}), ...qs },
		headers: { Accept: 'application/json', ...(base.options.headers ?? {}) },
		json: true,
		ignoreHttpStatusErrors: true,
	};
	if (isPlainObject(base.options.body)) options.body = { ...base.options.body };
	if (Object.keys(options.qs ?? {}).length === 0) delete options.qs;
	return { ...base, options };
}

/**
 * Removes what routing adds that the service should not get (empty bodies and
 * query values, blanks around path segments), and waits at most a minute for an
 * answer unless the user set a timeout under the node's request options.
 */
function tidy(this: IExecuteSingleFunctions, request: RequestOptions): void {
	if (isPlainObject(request.body) && Object.keys(request.body).length === 0) delete request.body;
	for (const [key, value] of Object.entries(request.qs ?? {})) {
		if (value === undefined || value === null || value === '') delete request.qs![key];
	}
	if (typeof request.url === 'string') {
		request.url = request.url
			.split('/')
			.map((segment) => segment.trim())
			.join('/');
	}
	const chosen = Number(this.getNodeParameter('requestOptions.timeout', 0));
	request.timeout = Number.isFinite(chosen) && chosen > 0 ? chosen : REQUEST_TIMEOUT_MS;
}

/**
 * Pages of one list fetched at once after page 1. The service's rate limit
 * (by default 60 requests a minute, SPEC.md) counts requests, not connections:
 * concurrency cannot add requests, only send them sooner, so what it risks is
 * the requests in flight when the limit is reached. Each of them gets a 429 and
 * is retried at its own page after Retry-After; the `PageGate` sends nothing
 * new meanwhile, so a window's end costs at most this many 429s. Six: on a
 * 30 ms round trip page 1 plus 49 pages take 9 rounds instead of 50, and it is
 * what a browser opens to one host.
 */
export const PAGE_CONCURRENCY = 6;

/** Thrown to a page not yet sent when another page of the same list has failed. */
class ListStopped extends Error {}

/**
 * What the pages of one list share while several are in flight. A 429 closes
 * the gate: pages not yet sent wait until every request that got a 429 has been
 * answered otherwise (its retry after Retry-After is the probe), instead of each
 * spending a 429 of its own. A page that fails for good stops the pages not yet
 * sent: the list fails with that page's error and asks nothing more.
 */
export class PageGate {
	private limited = 0;
	private reopened?: Promise<void>;
	private reopen?: () => void;
	private failed = false;

	/** Before the first attempt of a page. */
	async enter(): Promise<void> {
		while (this.reopened) await this.reopened;
		if (this.failed) throw new ListStopped('Another page of the list failed');
	}

	/** A request got a 429 and will wait for its retry. */
	hold(): void {
		this.limited++;
		if (!this.reopened) this.reopened = new Promise<void>((resolve) => (this.reopen = resolve));
	}

	/** A request that got a 429 was answered otherwise, or gave up. */
	release(): void {
		this.limited = Math.max(0, this.limited - 1);
		if (this.limited === 0 && this.reopen) {
			const reopen = this.reopen;
			this.reopened = undefined;
			this.reopen = undefined;
			reopen();
		}
	}

	fail(): void {
		this.failed = true;
	}
}

/**
 * One request with the package's retry and error rules (`sendWithRules`):
 * routing builds the request, the shared rules decide what to do with the answer.
 * With a `gate`, the first attempt waits while the list is held back by a 429,
 * and this request's own 429s hold it back.
 */
async function sendByRules(
	this: IExecutePaginationFunctions,
	base: RequestData,
	qs: IDataObject,
	itemIndex: number,
	gate?: PageGate,
): Promise<Answer> {
	let holding = false;
	const send = async (): Promise<Answer> => {
		const [item] = await this.makeRoutingRequest(attemptRequest(base, qs));
		const answer = item?.json as unknown as Answer;
		if (gate) {
			const limited = answer?.statusCode === 429;
			if (limited && !holding) gate.hold();
			if (!limited && holding) gate.release();
			holding = limited;
		}
		return answer;
	};
	const secrets = async () => {
		try {
			return [(await this.getCredentials<{ apiKey?: string }>(CREDENTIAL_NAME, itemIndex)).apiKey];
		} catch {
			// Without the credential there is no key to cut out either.
			return [];
		}
	};
	await gate?.enter();
	let answered = false;
	try {
		const answer = await sendWithRules(this.getNode(), send, {
			method: String(base.options.method ?? 'GET').toUpperCase() as IHttpRequestMethods,
			itemIndex,
			secrets,
		});
		answered = true;
		return answer;
	} finally {
		if (!answered) gate?.fail();
		if (holding) gate?.release();
	}
}

/** `{ data }` as output items: one per element of a list, one for an object; an empty answer as a success. */
export function unwrap(body: unknown): IDataObject[] {
	if (body === undefined || body === null || (typeof body === 'string' && body.trim() === '')) {
		return [{ success: true }];
	}
	const content = isPlainObject(body) && 'data' in body ? body.data : body;
	if (Array.isArray(content)) return content.map((element) => (isPlainObject(element) ? element : { value: element }));
	if (content === null || content === undefined) return [];
	return [isPlainObject(content) ? content : { value: content as IDataObject[string] }];
}

function numberIfNumeric(value: string): string | number {
	return /^\d+$/.test(value) && value.length < 16 ? Number(value) : value;
}

/** The plain value of a parameter, whether a resource locator or not. */
export function parameterText(this: IExecuteSingleFunctions, name: string): string {
	const value = this.getNodeParameter(name, '', { extractValue: true }) as unknown;
	if (value === undefined || value === null) return '';
	if (typeof value === 'object' && 'value' in (value as IDataObject)) {
		return String((value as IDataObject).value ?? '').trim();
	}
	return String(value).trim();
}

function itemKey(item: IDataObject): string | undefined {
	if (typeof item.id !== 'number' && typeof item.id !== 'string') return undefined;
	// Posts found across feeds carry their feed: an ID is unique within it.
	return item.feed_id === undefined ? String(item.id) : `${String(item.feed_id)}:${String(item.id)}`;
}

async function pagedList(this: IExecutePaginationFunctions, requestData: RequestData, itemIndex: number) {
	const returnAll = this.getNodeParameter('returnAll', false) as boolean;
	const limit = returnAll ? undefined : Number(this.getNodeParameter('limit', 50));
	const gate = new PageGate();
	return await collectPages<IDataObject>({
		returnAll,
		limit,
		key: itemKey,
		concurrency: PAGE_CONCURRENCY,
		fetchPage: async (page, perPage) => {
			const answer = await sendByRules.call(this, requestData, { page, per_page: perPage }, itemIndex, gate);
			const body = isPlainObject(answer.body) ? answer.body : {};
			const data = Array.isArray(body.data) ? (body.data as IDataObject[]) : [];
			return { data, meta: isPlainObject(body.meta) ? (body.meta as Partial<ListMeta>) : undefined };
		},
	});
}

function toNodeError(this: IExecuteSingleFunctions, error: unknown, itemIndex: number) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(this.getNode(), error as Error, { itemIndex });
}

/**
 * The item "continue on fail" outputs for a failed input item: `error` holds the
 * message and `details` the rest (the service's code, the HTTP status, the
 * description with its upgrade or connection link). No `error` property on the
 * item itself: n8n would cut the JSON down to the message.
 */
function errorItem(this: IExecuteSingleFunctions, error: unknown, itemIndex: number): INodeExecutionData {
	const nodeError = toNodeError.call(this, error, itemIndex);
	const details: IDataObject = {};
	const code = apiErrorCode(nodeError);
	if (code) details.code = code;
	if (nodeError instanceof NodeApiError && nodeError.httpCode && nodeError.httpCode !== 'none') {
		details.httpCode = nodeError.httpCode;
	}
	if (nodeError.description) details.description = nodeError.description;
	const link = nodeError.context.actionUrl;
	if (typeof link === 'string') details.link = link;
	const json: IDataObject = { error: nodeError.message };
	if (Object.keys(details).length > 0) json.details = details;
	return { json, pairedItem: { item: itemIndex } };
}

function sender(spec: RouteSpec) {
	return async function send(
		this: IExecutePaginationFunctions,
		requestData: RequestData,
	): Promise<INodeExecutionData[]> {
		const itemIndex = this.getItemIndex();
		try {
			for (const step of spec.prepare ?? []) await step.call(this, requestData.options, itemIndex);
			tidy.call(this, requestData.options);

			let results: IDataObject[];
			if (spec.list === 'paged') {
				results = await pagedList.call(this, requestData, itemIndex);
			} else {
				const answer = await sendByRules.call(this, requestData, {}, itemIndex);
				if (spec.deletes) {
					results = [{ deleted: true, id: numberIfNumeric(parameterText.call(this, spec.deletes)) }];
				} else {
					results = unwrap(answer.body);
				}
				if (spec.list === 'whole' && !(this.getNodeParameter('returnAll', false) as boolean)) {
					results = results.slice(0, Math.max(1, Math.floor(Number(this.getNodeParameter('limit', 50)))));
				}
			}

			return results.map((result) => {
				const json = { ...result };
				for (const field of spec.omit ?? []) delete json[field];
				return { json, pairedItem: { item: itemIndex } };
			});
		} catch (error) {
			if (this.continueOnFail()) return [errorItem.call(this, error, itemIndex)];
			throw toNodeError.call(this, error, itemIndex);
		}
	};
}
