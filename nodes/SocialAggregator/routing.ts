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
 *      page 1 has told how many pages there are, the rest are asked several at
 *      once, at most `PAGE_CONCURRENCY` in flight for the whole node run, the
 *      output keeping the service's order (`PageLimiter`: a 429 holds back the
 *      requests not yet sent; a page that fails for good stops its list);
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
 * Page requests in flight at once for one run of the node, whatever the number
 * of input items (n8n runs the items of a declarative node concurrently). Once
 * page 1 of a list has told how many pages there are, the rest are asked this
 * many at a time.
 *
 * The service's rate limit (by default 60 requests a minute, SPEC.md) counts
 * requests, not connections: concurrency adds no request, it only sends them
 * sooner. What it risks is the requests in flight when a limit window is used
 * up: each gets a 429 and is retried at its own page after Retry-After, and
 * nothing new is sent meanwhile (`PageLimiter`), so a window's end costs at most
 * this many 429s, never a 429 per remaining page. Ten: on a 30 ms round trip the
 * 49 pages after page 1 of a 5,000-post Return All take 5 rounds instead of 49,
 * and the 60 requests a default key may send in a minute go out in about a third
 * of a second, so the wait for the next window is the window itself and not a
 * second more (Retry-After comes in whole seconds).
 */
export const PAGE_CONCURRENCY = 10;

/** Thrown to a page not yet sent when another page of the same list has failed. */
class ListStopped extends Error {}

/**
 * What the page requests of one node run share: at most `PAGE_CONCURRENCY` in
 * flight, and a gate that a 429 closes. While a request that got a 429 waits
 * for its retry, requests not yet sent wait too, instead of each spending a 429
 * of its own; the waiting request gives its slot back meanwhile. The first such
 * retry that is answered otherwise shows the limit has room again and opens the
 * gate; so does the last one giving up.
 */
export class PageLimiter {
	private free: number;
	private readonly queued: Array<() => void> = [];
	private limited = 0;
	private reopened?: Promise<void>;
	private reopen?: () => void;

	constructor(slots = PAGE_CONCURRENCY) {
		this.free = Math.max(1, slots);
	}

	/** Before a request's first attempt: waits for an open gate and a free slot. */
	async acquire(): Promise<void> {
		for (;;) {
			while (this.reopened) await this.reopened;
			if (this.free > 0) {
				this.free--;
				return;
			}
			await new Promise<void>((resolve) => this.queued.push(resolve));
		}
	}

	/** Before the retry of a request that got a 429: a slot, whatever the gate (this retry is the probe). */
	async acquireSlot(): Promise<void> {
		while (this.free === 0) await new Promise<void>((resolve) => this.queued.push(resolve));
		this.free--;
	}

	releaseSlot(): void {
		this.free++;
		this.queued.shift()?.();
	}

	/** A request got a 429 and will wait for its retry. */
	hold(): void {
		this.limited++;
		if (!this.reopened) this.reopened = new Promise<void>((resolve) => (this.reopen = resolve));
	}

	/** A request that got a 429 was answered otherwise (`succeeded`), or gave up. */
	release(succeeded: boolean): void {
		this.limited = Math.max(0, this.limited - 1);
		if ((succeeded || this.limited === 0) && this.reopen) {
			const reopen = this.reopen;
			this.reopened = undefined;
			this.reopen = undefined;
			reopen();
		}
	}
}

/**
 * The limiters of the node runs paging right now, by execution and node: the
 * input items of one run share one. An entry lives while a list of that run is
 * being paged.
 */
const runLimiters = new Map<string, { limiter: PageLimiter; lists: number }>();

/** The limiter of this node run, and the function to call when this list is done with it. */
function runLimiter(this: IExecutePaginationFunctions): { limiter: PageLimiter; done: () => void } {
	const executionId = this.getExecutionId();
	if (!executionId) return { limiter: new PageLimiter(), done: () => {} };
	const key = `${executionId}:${this.getNode().name}`;
	let entry = runLimiters.get(key);
	if (!entry) {
		entry = { limiter: new PageLimiter(), lists: 0 };
		runLimiters.set(key, entry);
	}
	const shared = entry;
	shared.lists++;
	return {
		limiter: shared.limiter,
		done: () => {
			shared.lists--;
			if (shared.lists === 0 && runLimiters.get(key) === shared) runLimiters.delete(key);
		},
	};
}

/** The pages of one list: the run's limiter, and whether a page of this list has failed for good. */
interface ListPaging {
	limiter: PageLimiter;
	failed: boolean;
}

/**
 * One request with the package's retry and error rules (`sendWithRules`):
 * routing builds the request, the shared rules decide what to do with the answer.
 * A page of a list waits for the run's limiter, holds it back with its 429s, and
 * is not sent at all when another page of its list has failed for good.
 */
async function sendByRules(
	this: IExecutePaginationFunctions,
	base: RequestData,
	qs: IDataObject,
	itemIndex: number,
	paging?: ListPaging,
): Promise<Answer> {
	let holding = false;
	let hasSlot = false;
	const send = async (): Promise<Answer> => {
		if (paging && !hasSlot) {
			await paging.limiter.acquireSlot();
			hasSlot = true;
		}
		const [item] = await this.makeRoutingRequest(attemptRequest(base, qs));
		const answer = item?.json as unknown as Answer;
		if (paging) {
			if (answer?.statusCode === 429) {
				if (!holding) paging.limiter.hold();
				holding = true;
				// Nothing is in flight while waiting for Retry-After.
				paging.limiter.releaseSlot();
				hasSlot = false;
			} else if (holding) {
				paging.limiter.release(true);
				holding = false;
			}
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
	if (paging) {
		await paging.limiter.acquire();
		hasSlot = true;
		if (paging.failed) {
			paging.limiter.releaseSlot();
			throw new ListStopped('Another page of the list failed');
		}
	}
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
		if (paging) {
			if (!answered) paging.failed = true;
			if (holding) paging.limiter.release(false);
			if (hasSlot) paging.limiter.releaseSlot();
		}
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
	const { limiter, done } = runLimiter.call(this);
	const paging: ListPaging = { limiter, failed: false };
	try {
		return await collectPages<IDataObject>({
			returnAll,
			limit,
			key: itemKey,
			concurrency: PAGE_CONCURRENCY,
			fetchPage: async (page, perPage) => {
				const answer = await sendByRules.call(this, requestData, { page, per_page: perPage }, itemIndex, paging);
				const body = isPlainObject(answer.body) ? answer.body : {};
				const data = Array.isArray(body.data) ? (body.data as IDataObject[]) : [];
				return { data, meta: isPlainObject(body.meta) ? (body.meta as Partial<ListMeta>) : undefined };
			},
		});
	} finally {
		// Pages of this list still in flight after a failure finish on their own.
		done();
	}
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
