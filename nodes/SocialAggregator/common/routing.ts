import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INodeExecutionData,
	INodePropertyRouting,
} from 'n8n-workflow';

import { listAnswer, objectAnswer, UnusableAnswer, unusableAnswerError } from '../../shared/answerShapes';
import { apiErrorFromResponse, toNodeError } from '../../shared/errors';
import { idValue, isEmptyValue, isObject, recordKey } from '../../shared/utils';
import { MAX_PER_PAGE } from '../../shared/constants';
import { checkLimit } from '../../shared/input';
import { duration } from '../../shared/budget';
import { budgetRefusal, type BudgetUse, burstRetry, keyBudget, loggedRunBudget, partialNote } from '../../shared/runBudget';
import { collectPages, findInPages, ListAlreadyFailed } from '../../shared/pages';
import { failedItem } from '../../shared/failedItem';
import { validOrThrow } from '../../shared/refusal';
import { gatePerRun, PAGE_CONCURRENCY } from '../../shared/requestGate';
import { budgetWaitFrom, retryPolicyFrom } from '../../shared/requestOptions';
import { retryTiming, type RetryPolicy } from '../../shared/retry';
import { outputChoice, shapeRecord, type OutputChoice, type RecordShape } from '../../shared/simplify';
import { credentialSecrets, DEFAULT_TIMEOUT_MS, getBaseUrl, sendAuthenticated, sendWithRules, type SendRules, type SentResponse } from '../../shared/transport';
import { parameterText, requireId, type Prepare, type RequestOptions } from './checks';

// The path of a declarative request, in this file's order: route() → operationRunner (what n8n calls for every
// operation, from its pagination slot) → runSettings and the prepare steps → finish → fetchRecords (requestSender,
// pages) → outputItems, or failureOutput. CONTRIBUTING.md walks it.

export interface RouteSpec {
	method: IHttpRequestMethods;
	/** The path below the base URL; an expression (`=/feeds/{{$parameter.feedId}}`) where it holds IDs (numbers). */
	url: string;
	/** A fixed body, merged with what the parameters send. */
	body?: IDataObject;
	/** A list with Return All and Limit: `paged` asks page by page (`page`/`per_page`), `whole` comes at once. */
	list?: 'paged' | 'whole';
	/** A read that answers a list without pages (and without Return All). */
	answersList?: boolean;
	/** Checks and request changes, in order, before any request. */
	prepare?: Prepare[];
	/** Fields never to output (a secret the user did not ask for). */
	omit?: string[];
	/** For a write whose answer may be lost after it acted: what the user should check before running again. */
	verify?: string;
	/** What follows a write's answer: further requests by the same rules, the record to output in the end. */
	after?: After;
	/** Records that Simplify and Output Fields (shared/simplify.ts) shape, once fetched. */
	shape?: RecordShape;
	/**
	 * Records of the feed in the path (`feedId`): shaped (Simplify, Selected Fields), one answered without its `feed_id`
	 * gets that feed's, so that acting on it next (Approve, Reject, Pin), which names the feed too
	 * (docs/service.md#post-actions), takes both from the item. Raw stays as answered.
	 */
	ofFeed?: boolean;
	/** Items made from the record read, instead of the record itself: files in binary fields (Post › Download Media). */
	files?: Files;
	/**
	 * A read the live service may lack (it answers 404 for a record that exists): the record is then looked for by
	 * the path's last ID in this page-numbered list, and only a record missing there too is the 404 error.
	 */
	findIn?: string;
	/**
	 * A successful answer the service may give in another legal shape, made into the shape the path checks; handed
	 * what was sent (after the prepare steps). A body it cannot read it returns as it came, for the check to name.
	 */
	reshape?: (body: unknown, request: IHttpRequestOptions) => unknown;
}

/** A further request of the same operation, sent by the same rules as the first (retries, the run's gate, errors). */
type SendMore = (
	method: IHttpRequestMethods,
	url: string,
	body?: IDataObject,
	verify?: string,
) => Promise<SentResponse>;

/** A step after a write's answer (the record it answered); what it returns is output instead. */
export type After = (
	this: IExecutePaginationFunctions,
	record: IDataObject,
	sendMore: SendMore,
	itemIndex: number,
) => Promise<IDataObject>;

/**
 * Output items made from a read's record (`json` is the record as Simplify shaped it). The operation runner's
 * context (the one n8n gives its pagination slot) has n8n's binary helpers, so a declarative operation can output
 * files this way.
 */
export type Files = (
	this: IExecutePaginationFunctions,
	record: IDataObject,
	json: IDataObject,
	itemIndex: number,
) => Promise<INodeExecutionData[]>;

/** The routing of one operation: the request, and the function that runs it by the package's rules. */
export function route(spec: RouteSpec): INodePropertyRouting {
	const request: RequestOptions = { method: spec.method, url: spec.url };
	if (spec.body) request.body = spec.body;
	// Every operation, a single GET or a DELETE as much as a list, runs in n8n's pagination slot: with `send.paginate`
	// set and a function in `operations.pagination`, n8n sends nothing itself, but calls that function once per item
	// with the request it built from the parameters and outputs what it returns. preSend only changes that request
	// and postReceive reads the answer of n8n's own send, which has none of this package's retries, request gate, key
	// budget or errors; the runner sends through the package's one transport instead.
	return { request, send: { paginate: true }, operations: { pagination: operationRunner(spec) } };
}

/** What n8n calls to run one operation for one item (from its pagination slot, see route()). */
export type OperationRunner = (
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
) => Promise<INodeExecutionData[]>;

/** The runner of one operation: checks, the request by the package's rules, pages, output items. */
function operationRunner(spec: RouteSpec): OperationRunner {
	const operation = planOperation(spec);
	return async function runOperation(this, requestData) {
		const itemIndex = this.getItemIndex();
		const options = requestData.options;
		const method = String(options.method ?? 'GET').toUpperCase() as IHttpRequestMethods;
		// The request as errors name it, once routing's URL is finished.
		const request = () => `${method} ${String(options.url ?? '')}`;
		// Simplify and Output Fields are read only once there are records to shape.
		const output = (records: IDataObject[]) =>
			outputItems(
				records,
				spec,
				itemIndex,
				spec.shape ? outputChoice((name, fallback) => this.getNodeParameter(name, fallback)) : undefined,
				spec.ofFeed ? idValue(parameterText.call(this, 'feedId')) : undefined,
			);
		try {
			const settings = await runSettings.call(this, spec, itemIndex);
			for (const step of operation.prepare) await step.call(this, options, itemIndex);
			finish(options, settings.timeout);
			const budget = await keyBudget(this, itemIndex, loggedRunBudget(this, settings.budgetWait));
			const rules = { method, itemIndex, retry: { ...burstRetry(budget), ...settings.retry }, request: request(), budget };
			const records = await fetchRecords.call(this, operation, options, rules, settings.limit);
			if (spec.files) return await spec.files.call(this, records[0], output(records)[0].json, itemIndex);
			return output(records);
		} catch (caught) {
			return failureOutput.call(this, caught, { request: request(), itemIndex, output });
		}
	};
}

/** One operation made ready once: its spec, and the checks and outputs its path's IDs add. */
interface Operation {
	spec: RouteSpec;
	/** Each ID in the path checked as a number, then the spec's own steps, in order. */
	prepare: Prepare[];
	/** The path's last ID: what `findIn` looks for, and what a delete outputs. */
	lastId?: string;
}

/** The operation of a spec: every parameter in its path is an ID, checked as a number before any request. */
function planOperation(spec: RouteSpec): Operation {
	const ids = [...spec.url.matchAll(/\{\{\$parameter\.(\w+)\}\}/g)].map((match) => match[1]);
	return { spec, prepare: [...ids.map((id) => requireId(id)), ...(spec.prepare ?? [])], lastId: ids.at(-1) };
}

/** What the user chose for this item's run, checked before any request: retries, the budget's wait, the Limit, the timeout. */
interface RunSettings {
	retry: Partial<RetryPolicy>;
	budgetWait: number;
	/** None for Return All, and for an operation without a list. */
	limit?: number;
	timeout: number;
}

/** The item's Request Options and Limit, each checked (the error names the field and the item). */
async function runSettings(this: IExecutePaginationFunctions, spec: RouteSpec, itemIndex: number): Promise<RunSettings> {
	await getBaseUrl.call(this, itemIndex);
	const requestOptions = this.getNodeParameter('requestOptions', {}) as IDataObject;
	const retry = validOrThrow(this.getNode(), retryPolicyFrom(requestOptions), itemIndex);
	const budgetWait = validOrThrow(this.getNode(), budgetWaitFrom(requestOptions), itemIndex);
	const returnAll = !spec.list || (this.getNodeParameter('returnAll', false) as boolean);
	const limit = returnAll ? undefined : validOrThrow(this.getNode(), checkLimit(this.getNodeParameter('limit', 50)), itemIndex);
	return { retry, budgetWait, limit, timeout: Number(requestOptions.timeout ?? 0) };
}

type ItemRules = SendRules & { itemIndex: number };

/** The records an operation answers: a page-numbered list, a read looked for in a list, or one request and what follows it. */
async function fetchRecords(
	this: IExecutePaginationFunctions,
	operation: Operation,
	options: RequestOptions,
	rules: ItemRules,
	limit: number | undefined,
): Promise<IDataObject[]> {
	const { spec } = operation;
	if (spec.list === 'paged') return await pagedList(requestSender.call(this, options, rules), limit, rules.budget);
	if (spec.findIn) {
		const read = await requestSender.call(this, options, { ...rules, acceptStatuses: [404] })({});
		if (read.statusCode !== 404) return answerItems(spec, rules.method, read);
		return [await findListed.call(this, options, spec.findIn, operation.lastId!, read, rules)];
	}
	const sent = await requestSender.call(this, options, rules)({}, spec.verify);
	const answer = spec.reshape ? { ...sent, body: spec.reshape(sent.body, options as IHttpRequestOptions) } : sent;
	const deletes = spec.method === 'DELETE' ? operation.lastId : undefined;
	let records = deletes ? [deleted.call(this, deletes, answer)] : answerItems(spec, rules.method, answer);
	if (spec.after) records = [await spec.after.call(this, records[0], moreSender.call(this, options, rules), rules.itemIndex)];
	return limit === undefined ? records : records.slice(0, limit);
}

/** Further requests of a write's `after` step, by the same rules as its first (budget, gate, retries, errors). */
function moreSender(this: IExecutePaginationFunctions, options: RequestOptions, rules: ItemRules): SendMore {
	return async (method, url, body, verify) => {
		const more = { ...options, method, url, body, qs: undefined };
		return await requestSender.call(this, more, { ...rules, method, request: `${method} ${url}` })({}, verify);
	};
}

/** The record of the path's last ID in the list `path`, after its own read answered 404; else that 404's error. */
async function findListed(
	this: IExecutePaginationFunctions,
	read: RequestOptions,
	path: string,
	lastId: string,
	notFound: SentResponse,
	rules: ItemRules,
): Promise<IDataObject> {
	const list = requestSender.call(this, { ...read, url: path, method: 'GET', qs: undefined }, { ...rules, method: 'GET', request: `GET ${path}` });
	const found = await findInPages(pageReader(list), parameterText.call(this, lastId));
	if (found) return found;
	throw apiErrorFromResponse(this.getNode(), notFound, rules.itemIndex, undefined, rules.request);
}

/** A record with its feed's ID: the one it was answered with, else the feed asked for (a copy, the answer left as it came). */
function withFeedId(record: IDataObject, feedId: number | string | undefined): IDataObject {
	if (feedId === undefined || (record.feed_id !== undefined && record.feed_id !== null)) return record;
	return { ...record, feed_id: feedId };
}

/**
 * The records as items: secrets the user did not ask for left out, Simplify and Output Fields (`choice`) applied,
 * a shaped record of the feed `feedId` with that feed (`ofFeed`).
 */
export function outputItems(
	records: IDataObject[],
	spec: Pick<RouteSpec, 'omit' | 'shape'>,
	itemIndex: number,
	choice?: OutputChoice,
	feedId?: number | string,
): INodeExecutionData[] {
	return records.map((record) => {
		// A copy only where a field is taken out: a Return All of 50,000 posts needs no second set.
		let json = spec.omit ? { ...record } : record;
		for (const field of spec.omit ?? []) delete json[field];
		if (spec.shape && choice && choice.mode !== 'raw') json = shapeRecord(withFeedId(json, feedId), spec.shape, choice);
		return { json, pairedItem: { item: itemIndex } };
	});
}

/**
 * A failed run as n8n shows it: the error, or with Continue On Fail an error item. A list stopped part way outputs
 * what it fetched before the error item (with Continue On Fail), and its error counts what was kept.
 */
function failureOutput(
	this: IExecutePaginationFunctions,
	caught: unknown,
	run: { request: string; itemIndex: number; output: (records: IDataObject[]) => INodeExecutionData[] },
): INodeExecutionData[] {
	const node = this.getNode();
	const keep = this.continueOnFail();
	return failedItem(node, caught, {
		itemIndex: run.itemIndex,
		continueOnFail: keep,
		output: run.output,
		explain: (reason, stopped) => {
			const cause =
				reason instanceof UnusableAnswer
					? unusableAnswerError(node, reason, { request: run.request, itemIndex: run.itemIndex })
					: reason;
			const error = toNodeError(node, cause, run.itemIndex);
			if (stopped) partialNote(error, { items: stopped.items.length, pages: stopped.pages, totalPages: stopped.totalPages, kept: keep });
			return error;
		},
	});
}

const pageGate = gatePerRun(PAGE_CONCURRENCY);

/** The request made ready: no empty body or query values, no blanks in the path, the timeout from Request Options. */
function finish(request: RequestOptions, chosenTimeout: number): void {
	if (isObject(request.body) && Object.keys(request.body).length === 0) delete request.body;
	for (const [key, value] of Object.entries(request.qs ?? {})) {
		if (isEmptyValue(value)) delete request.qs![key];
	}
	if (typeof request.url === 'string') request.url = request.url.replace(/\s*\/\s*/g, '/').trim();
	request.timeout = Number.isFinite(chosenTimeout) && chosenTimeout > 0 ? chosenTimeout : DEFAULT_TIMEOUT_MS;
}

/** Sends the operation's request with a page's query added; `verify` says what to check after a lost answer. */
type RequestSender = (qs?: IDataObject, verify?: string) => Promise<SentResponse>;

/** A sender of the request (with a page's query) by the package's rules through the run's gate; none after a failure. */
function requestSender(
	this: IExecutePaginationFunctions,
	options: RequestOptions,
	rules: ItemRules,
): RequestSender {
	let failed = false;
	const secrets = credentialSecrets(this, rules.itemIndex);
	const gate = pageGate(this);
	return async (qs = {}, verify) => {
		// A page not yet sent when another of the list has failed: the list fails with that page's error.
		if (failed) throw new ListAlreadyFailed();
		const request = { ...options, qs: { ...(options.qs ?? {}), ...qs } } as IHttpRequestOptions;
		if (Object.keys(request.qs ?? {}).length === 0) delete request.qs;
		const send = async () => await sendAuthenticated(this, request);
		const answer = sendWithRules(this.getNode(), send, { ...rules, gate, secrets, verify });
		answer.catch(() => (failed = true));
		return await answer;
	};
}

/**
 * A page-numbered list: Return All, or pages up to the Limit, several at a time. Once page 1 gives the page count, a
 * list the key's budget cannot carry (within the wait the user allows) is refused before another request.
 */
async function pagedList(send: RequestSender, limit: number | undefined, budget: BudgetUse | undefined): Promise<IDataObject[]> {
	return await collectPages<IDataObject>({
		returnAll: limit === undefined,
		limit,
		key: recordKey,
		concurrency: PAGE_CONCURRENCY,
		keepPartial: true,
		beforeRest: (needed, totalPages) => {
			if (!budget) return;
			const now = retryTiming.now();
			const plan = budget.ledger.plan(needed, now);
			if (plan.waitMs === 0) return;
			if (budget.run.capMs >= plan.waitMs) {
				budget.run.log?.(`${needed} more pages need about ${duration(plan.waitMs)} of waiting for the key's rate limit; waiting as allowed`);
				return;
			}
			throw budgetRefusal(plan, now, { totalPages, capMs: budget.run.capMs, perPage: MAX_PER_PAGE, limit });
		},
		fetchPage: pageReader(send),
	});
}

/** Reads one page of a page-numbered list, its answer checked against the list shape (docs/service.md#paging). */
function pageReader(send: RequestSender) {
	return async (page: number, perPage: number) => {
		const answer = await send({ page, per_page: perPage });
		return { ...listAnswer(answer.body, { page, statusCode: answer.statusCode }), statusCode: answer.statusCode };
	};
}

/** The items of an answer checked against its shape (docs/service.md#answers); a write may answer without a body (then: success). */
function answerItems(spec: RouteSpec, method: string, answer: SentResponse): IDataObject[] {
	const empty = isEmptyValue(answer.body);
	if (method !== 'GET' && empty) return [{ success: true }];
	const at = { statusCode: answer.statusCode };
	if (spec.list || spec.answersList) return listAnswer(answer.body, at).data;
	return [objectAnswer(answer.body, at)];
}

/** What a delete outputs; a note when a retry found the record already gone. */
function deleted(this: IExecutePaginationFunctions, parameter: string, answer: SentResponse): IDataObject {
	// Digits, as requireId checked; an ID too long for a number stays text.
	const result: IDataObject = { deleted: true, id: idValue(parameterText.call(this, parameter)) };
	if (answer.alreadyGone) {
		result.note =
			'It was already gone: the connection of the first attempt failed after the service had deleted it, and the repeat found nothing at this ID.';
	}
	return result;
}
