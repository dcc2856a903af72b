import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INodeExecutionData,
	INodePropertyRouting,
} from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../shared/constants';
import { listAnswer, objectAnswer, UnusableAnswer, unusableAnswerError } from '../shared/answers';
import { errorItem, toNodeError } from '../shared/errors';
import { checkLimit } from '../shared/input';
import { collectPages, postKey } from '../shared/pagination';
import { refusalError } from '../shared/refusal';
import { retryPolicyFrom } from '../shared/requestOptions';
import type { RetryPolicy } from '../shared/retry';
import {
	DEFAULT_TIMEOUT_MS,
	getBaseUrl,
	RequestGate,
	sendAuthenticated,
	sendWithRules,
	type SentResponse,
} from '../shared/transport';

/*
 * How the declarative node sends its requests: routing builds the request from
 * the parameters, `sender` checks and sends it by the package's rules, pages
 * lists and makes the items. The whole path is in CONTRIBUTING.md.
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
	/** A read that answers a list without pages (and without Return All). */
	answersList?: boolean;
	/**
	 * For a request that changes something: what to check when it may have
	 * reached the service without its answer reaching us (a list to look in).
	 */
	verify?: string;
}

/** The routing of one operation: its request, and the function that sends it by the package's rules. */
export function route(spec: RouteSpec): INodePropertyRouting {
	return {
		request: { method: spec.method, url: spec.url },
		send: { paginate: true },
		operations: { pagination: sender(spec) },
	};
}

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The request routing built, made ready once: what the service should not get
 * removed (empty bodies and query values, blanks around path segments), and at
 * most a minute's wait for an answer unless the user set a timeout under the
 * node's Request Options.
 */
function finish(this: IExecuteSingleFunctions, request: RequestOptions): void {
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
	request.timeout = Number.isFinite(chosen) && chosen > 0 ? chosen : DEFAULT_TIMEOUT_MS;
	request.headers = { Accept: 'application/json', ...(request.headers ?? {}) };
	request.json = true;
}

/**
 * Requests in flight at once for one run of the node, whatever the number of
 * input items (n8n runs the items of a declarative node concurrently). Once
 * page 1 of a list has told how many pages there are, the rest are asked this
 * many at a time.
 *
 * The service's rate limit (by default 60 requests a minute, SPEC.md) counts
 * requests, not connections: concurrency adds no request, it only sends them
 * sooner. What it risks is the requests in flight when a limit window is used
 * up: each gets a 429, one of them waits out the limit (Retry-After, else the
 * window) and nothing else is sent meanwhile (`RequestGate`), so a window's end
 * costs at most this many 429s. Ten: on a 30 ms round trip the 49 pages after
 * page 1 of a 5,000-post Return All take 5 rounds instead of 49.
 */
export const PAGE_CONCURRENCY = 10;

/** Thrown to a page not yet sent when another page of the same list has failed. */
class ListStopped extends Error {}

/**
 * The gates of the node runs sending right now, by execution and node: the
 * input items of one run share one. An entry lives while a request of that run
 * is under way.
 */
const runGates = new Map<string, { gate: RequestGate; users: number }>();

/** The gate of this node run, and the function to call when done with it. */
function runGate(this: IExecutePaginationFunctions): { gate: RequestGate; done: () => void } {
	const executionId = this.getExecutionId();
	if (!executionId) return { gate: new RequestGate(PAGE_CONCURRENCY), done: () => {} };
	const key = `${executionId}:${this.getNode().name}`;
	let entry = runGates.get(key);
	if (!entry) {
		entry = { gate: new RequestGate(PAGE_CONCURRENCY), users: 0 };
		runGates.set(key, entry);
	}
	const shared = entry;
	shared.users++;
	return {
		gate: shared.gate,
		done: () => {
			shared.users--;
			if (shared.users === 0 && runGates.get(key) === shared) runGates.delete(key);
		},
	};
}

/**
 * What the requests of one input item share: the run's gate, the retry policy
 * and the request as errors name it, and whether a page of its list has failed
 * for good.
 */
interface Sending {
	gate: RequestGate;
	retry: Partial<RetryPolicy>;
	method: IHttpRequestMethods;
	request: string;
	failed: boolean;
}

/**
 * One request with the package's retry and error rules (`sendWithRules`):
 * routing builds the request, the shared rules decide what to do with the
 * answer, through the run's gate. A page of a list is not sent at all when
 * another page of its list has failed for good.
 */
async function sendByRules(
	this: IExecutePaginationFunctions,
	base: RequestData,
	qs: IDataObject,
	itemIndex: number,
	sending: Sending,
	verify?: string,
): Promise<SentResponse> {
	if (sending.failed) throw new ListStopped('Another page of the list failed');
	const request = { ...base.options, qs: { ...(base.options.qs ?? {}), ...qs } } as IHttpRequestOptions;
	if (Object.keys(request.qs ?? {}).length === 0) delete request.qs;
	const send = async () => await sendAuthenticated(this, request);
	const secrets = async () => {
		try {
			return [(await this.getCredentials<{ apiKey?: string }>(CREDENTIAL_NAME, itemIndex)).apiKey];
		} catch {
			// Without the credential there is no key to cut out either.
			return [];
		}
	};
	let answered = false;
	try {
		const answer = await sendWithRules(this.getNode(), send, {
			method: sending.method,
			itemIndex,
			secrets,
			gate: sending.gate,
			verify,
			request: sending.request,
			retry: sending.retry,
		});
		answered = true;
		return answer;
	} finally {
		// A request that failed for good stops the pages of its list not yet sent.
		if (!answered) sending.failed = true;
	}
}

/**
 * The items of an answer that is not a paged list, checked against SPEC.md's
 * shape: a read must bring its record or list; a write may answer without a
 * body (SPEC.md shows none for most), and then its item says it succeeded.
 */
function answerItems(spec: RouteSpec, method: string, answer: SentResponse): IDataObject[] {
	const empty = answer.body === undefined || answer.body === null || answer.body === '';
	if (method !== 'GET' && empty) return [{ success: true }];
	const at = { statusCode: answer.statusCode };
	if (spec.list || spec.answersList) return listAnswer(answer.body, at).data;
	return [objectAnswer(answer.body, at)];
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

async function pagedList(
	this: IExecutePaginationFunctions,
	requestData: RequestData,
	itemIndex: number,
	sending: Sending,
	limit: number | undefined,
) {
	return await collectPages<IDataObject>({
		returnAll: limit === undefined,
		limit,
		key: postKey,
		concurrency: PAGE_CONCURRENCY,
		fetchPage: async (page, perPage) => {
			const answer = await sendByRules.call(this, requestData, { page, per_page: perPage }, itemIndex, sending);
			const at = { page, statusCode: answer.statusCode };
			return { ...listAnswer(answer.body, at), statusCode: answer.statusCode };
		},
	});
}

/** Return All, or the Limit checked before any request: undefined for all. */
function listLimit(this: IExecutePaginationFunctions, itemIndex: number): number | undefined {
	if (this.getNodeParameter('returnAll', false) as boolean) return undefined;
	const checked = checkLimit(this.getNodeParameter('limit', 50));
	if (!checked.ok) throw refusalError(this.getNode(), checked.refusal, itemIndex);
	return checked.value;
}

/** The retry policy chosen under Request Options, checked before any request. */
function retryPolicyOf(this: IExecutePaginationFunctions): Partial<RetryPolicy> {
	const checked = retryPolicyFrom(this.getNodeParameter('requestOptions', {}) as IDataObject);
	if (!checked.ok) throw refusalError(this.getNode(), checked.refusal, this.getItemIndex());
	return checked.value;
}

/** What a delete outputs; a note when a retry found the record already gone. */
function deleted(this: IExecutePaginationFunctions, spec: RouteSpec, answer: SentResponse): IDataObject {
	const result: IDataObject = { deleted: true, id: numberIfNumeric(parameterText.call(this, spec.deletes!)) };
	if (answer.alreadyGone) {
		result.note =
			'It was already gone: the connection of the first attempt failed after the service had deleted it, and the repeat found nothing at this ID.';
	}
	return result;
}

function sender(spec: RouteSpec) {
	return async function send(
		this: IExecutePaginationFunctions,
		requestData: RequestData,
	): Promise<INodeExecutionData[]> {
		const itemIndex = this.getItemIndex();
		const method = String(requestData.options.method ?? 'GET').toUpperCase() as IHttpRequestMethods;
		// The request as errors name it, once routing's URL is finished.
		const request = () => `${method} ${String(requestData.options.url ?? '')}`;
		const { gate, done } = runGate.call(this);
		try {
			await getBaseUrl.call(this, itemIndex);
			const retry = retryPolicyOf.call(this);
			const limit = spec.list ? listLimit.call(this, itemIndex) : undefined;
			for (const step of spec.prepare ?? []) await step.call(this, requestData.options, itemIndex);
			finish.call(this, requestData.options);

			const sending: Sending = { gate, retry, method, request: request(), failed: false };
			let results: IDataObject[];
			if (spec.list === 'paged') {
				results = await pagedList.call(this, requestData, itemIndex, sending, limit);
			} else {
				const answer = await sendByRules.call(this, requestData, {}, itemIndex, sending, spec.verify);
				results = spec.deletes ? [deleted.call(this, spec, answer)] : answerItems(spec, method, answer);
				if (limit !== undefined) results = results.slice(0, limit);
			}

			return results.map((result) => {
				const json = { ...result };
				for (const field of spec.omit ?? []) delete json[field];
				return { json, pairedItem: { item: itemIndex } };
			});
		} catch (caught) {
			const error =
				caught instanceof UnusableAnswer
					? unusableAnswerError(this.getNode(), caught, { request: request(), itemIndex })
					: caught;
			if (this.continueOnFail()) return [errorItem(this.getNode(), error, itemIndex)];
			throw toNodeError(this.getNode(), error, itemIndex);
		} finally {
			// Pages of a list still in flight after a failure finish on their own.
			done();
		}
	};
}
