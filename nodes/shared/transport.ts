import { NodeOperationError } from 'n8n-workflow';
import type {
	IAllExecuteFunctions,
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
	NodeApiError,
} from 'n8n-workflow';

import { UnusableAnswer, unusableAnswerError } from './answerShapes';
import { checkBaseUrl } from './baseUrl';
import { awaitBudget, burstRetry, hourBudgetWait, keyBudget, type BudgetUse, type RunBudget } from './runBudget';
import { CREDENTIAL_NAME } from './constants';
import { apiError, apiErrorFromResponse, mayHaveActedAdvice, networkError, redact, type ApiResponse } from './errors';
import { headerValue, plural } from './utils';
import {
	decideRetry,
	DEFAULT_RETRY_POLICY,
	isIdempotent,
	retryTiming,
	type AttemptOutcome,
	type RetryPolicy,
} from './retry';
import { validOrThrow } from './refusal';
import type { RequestGate } from './requestGate';
import { MAX_RETRY_WAIT_FIELD } from './requestOptions';

interface ApiRequestOptions extends Pick<SendRules, 'method' | 'itemIndex' | 'retry' | 'acceptStatuses'> {
	/** The run's use of the key's budget (a Return All's requests share one); a fresh one without waiting unless given. */
	budget?: RunBudget;
	/** A path below the base URL (`/feeds/1`), or an absolute URL the service gave (`poll_url`). */
	path: string;
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	/** Send the credential's Bearer key. Key issuance endpoints take none. */
	authenticated?: boolean;
	/** The base URL when no credential is used; otherwise the credential's. */
	baseUrl?: string;
}

interface FullResponse extends ApiResponse {
	headers: Record<string, unknown>;
	/** The URL the request went to, which a redirect's Location is read against. */
	url?: string;
}

/** How long a request waits for its answer unless the user sets a timeout (Request Options). */
export const DEFAULT_TIMEOUT_MS = 60_000;

function joinUrl(baseUrl: string, path: string): string {
	if (/^https?:\/\//i.test(path)) return path;
	return `${baseUrl.trim().replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The credential's base URL without trailing slashes, checked before any request. */
export async function getBaseUrl(this: IAllExecuteFunctions, itemIndex?: number): Promise<string> {
	const credentials = await this.getCredentials<{ baseUrl?: string }>(CREDENTIAL_NAME, itemIndex);
	const checked = checkBaseUrl(credentials.baseUrl, 'Base URL (of the Social Aggregator API credential)');
	return validOrThrow(this.getNode(), checked, itemIndex);
}

/** What an answer means: itself to hand back, or the outcome of an attempt for the retry policy to judge. */
function answerOutcome(response: FullResponse, rules: SendRules, mayHaveActed: boolean): SentResponse | AttemptOutcome {
	const { statusCode } = response;
	const accepted = statusCode < 300 || rules.acceptStatuses?.includes(statusCode);
	// A JSON API answers objects: a success whose body is a string did not parse as JSON.
	const malformed = typeof response.body === 'string' && response.body.trim() !== '';
	if (accepted && !malformed) return response;
	if (statusCode === 404 && rules.method === 'DELETE' && mayHaveActed) return { ...response, alreadyGone: true };
	if (accepted) return { kind: 'malformed', reason: 'its body is not a JSON object', statusCode };
	const { headers } = response;
	return {
		kind: 'status',
		statusCode,
		retryAfter: headerValue(headers, 'retry-after'),
		limitRemaining: headerValue(headers, 'x-ratelimit-remaining'),
		limitReset: headerValue(headers, 'x-ratelimit-reset'),
	};
}

function isRedirect(response: FullResponse, rules: SendRules): boolean {
	return response.statusCode >= 300 && response.statusCode < 400 && !rules.acceptStatuses?.includes(response.statusCode);
}

/**
 * Where a redirect leads, as an error may name it: its Location read against the request's URL, without user,
 * password, query or fragment (whoever answers writes the Location, and a query may carry a token). Undefined when
 * there is none or it is not an address.
 */
function redirectTarget(location: string | undefined, requestUrl: string | undefined): string | undefined {
	if (!location?.trim()) return undefined;
	try {
		const url = requestUrl ? new URL(location.trim(), requestUrl) : new URL(location.trim());
		url.username = '';
		url.password = '';
		url.search = '';
		url.hash = '';
		return url.href;
	} catch {
		return undefined;
	}
}

/** A 3xx: never followed (the key would go with it), named with where it leads and what the Base URL must be. */
async function redirectError(node: INode, response: FullResponse, rules: SendRules) {
	const target = redirectTarget(headerValue(response.headers, 'location'), response.url);
	const secrets = rules.secrets ? await rules.secrets() : [];
	const to = target ? ` to ${redact(target, secrets)}` : ' without a valid Location';
	const message = `The service's address answered ${rules.request ?? 'the request'} with a redirect (HTTP ${response.statusCode}${to}): enter the address the API itself answers at, ending in /v1`;
	const description =
		"Requests to the service never follow a redirect, so that the API key (and a key being issued) goes nowhere else; this one was not followed. Check the Base URL of the Social Aggregator API credential (or the node's Base URL for key requests): https where the service moved to https, the API's own host rather than a page that forwards to it.";
	const code = 'redirect_not_followed';
	return apiError(node, { error: { code, message } }, code, { message, description, httpCode: String(response.statusCode), itemIndex: rules.itemIndex });
}

/**
 * What a failed attempt means, from n8n's error down its `cause` chain: an answer that came but could not be read (cut
 * off half-way, or not compressed as its headers said), a failed connection, or (undefined) a request never sent.
 */
function failureOutcome(error: unknown): AttemptOutcome | undefined {
	let code: string | undefined;
	let reason: string | undefined;
	let statusCode: number | undefined;
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
		const failed = current as { code?: unknown; message?: unknown; response?: { status?: unknown }; cause?: unknown };
		if (typeof failed.code === 'string' && /^E[A-Z_]+$/.test(failed.code)) code ??= failed.code;
		if (typeof failed.response?.status === 'number') statusCode ??= failed.response.status;
		const said = `${String(failed.code ?? '')} ${String(failed.message ?? '')}`;
		if (/ERR_BAD_RESPONSE|stream has been aborted|unexpected end of file|premature close/i.test(said)) {
			reason ??= 'its body ended before it was complete';
		} else if (/\bZ_[A-Z_]+|incorrect header check|decompression failed|invalid (stored )?block/i.test(said)) {
			reason ??= 'it was not encoded the way its headers said (Content-Encoding)';
		}
		current = failed.cause;
	}
	if (reason) return { kind: 'malformed', reason, statusCode };
	// A failed connection (`ECONNRESET`…); `ERR_INVALID_URL` or `ERR_CANCELED` would fail again the same way.
	const connection = code && (!code.startsWith('ERR_') || /^ERR_(NETWORK|SOCKET_.*|STREAM_PREMATURE_CLOSE)$/.test(code));
	return connection ? { kind: 'network', code } : undefined;
}

/** Connection failures before the request reached the service: whatever the method, it cannot have acted. */
const NOT_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL'];

/** Whether the service may have acted on an attempt that ended so: a 5xx, or an answer lost or cut off on its way. */
function mayHaveActedOn(outcome: AttemptOutcome): boolean {
	if (outcome.kind === 'status') return outcome.statusCode >= 500;
	return outcome.kind === 'malformed' || !NOT_SENT_CODES.includes(outcome.code ?? '');
}

/** A request that could not be sent at all (a bad URL, say): n8n's message without the secrets. */
async function unsentError(node: INode, failure: unknown, rules: SendRules): Promise<NodeOperationError> {
	const text = failure instanceof Error ? failure.message : String(failure);
	const secrets = rules.secrets ? await rules.secrets() : [];
	return new NodeOperationError(node, redact(text, secrets), {
		itemIndex: rules.itemIndex,
		description: 'The request to the service could not be sent.',
	});
}

export interface SendRules {
	method: IHttpRequestMethods;
	/** The input item this request is for, named in errors. */
	itemIndex?: number;
	retry?: Partial<RetryPolicy>;
	/** Statuses above 299 that are answers rather than errors (a 410 while polling, say). */
	acceptStatuses?: number[];
	/** The secrets to cut out of the message of a request that could not be sent. */
	secrets?: () => Promise<Array<string | undefined>>;
	/** The node run's gate, for requests sent several at once. */
	gate?: RequestGate;
	/** What the user should check when a request that changes something may have been acted on. */
	verify?: string;
	/** The request as errors name it ("GET /feeds/12"). */
	request?: string;
	/** The key's budget: every answer is counted in it, and a 429 it explains as the hour spent is waited for or stops. */
	budget?: BudgetUse;
}

export interface SentResponse extends FullResponse {
	/** A DELETE answered 404 on a retry after an attempt that may have reached the service: the first one deleted it. */
	alreadyGone?: boolean;
}

/** One request's attempts so far, as the retry rules read them. */
interface Attempts {
	/** The attempt being judged, counted from 1. */
	count: number;
	/** Time waited between attempts. */
	waitedMs: number;
	/** An earlier attempt may have reached the service and acted (its answer was lost or a 5xx). */
	mayHaveActed: boolean;
}

/**
 * Sends one request by the package's rules: retries 429 and transient failures within the policy (see retry.ts), and
 * turns what is left into the right n8n error. A write that may have reached the service is never reported as if it
 * had not; a DELETE whose earlier attempt may have deleted counts a 404 as done.
 */
export async function sendWithRules(
	node: INode,
	send: () => Promise<FullResponse>,
	rules: SendRules,
): Promise<SentResponse> {
	const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...rules.retry };
	const request = {};
	const attempts: Attempts = { count: 0, waitedMs: 0, mayHaveActed: false };
	try {
		for (;;) {
			attempts.count++;
			const { response, failure, probeEnd } = await attemptOnce(node, send, rules, request);
			if (response && isRedirect(response, rules)) throw await redirectError(node, response, rules);
			const outcome = response ? answerOutcome(response, rules, attempts.mayHaveActed) : failureOutcome(failure);
			if (!outcome) throw await unsentError(node, failure, rules);
			if (!('kind' in outcome)) return outcome;
			attempts.mayHaveActed ||= mayHaveActedOn(outcome);
			await waitBeforeRetry(node, { outcome, response, probeEnd }, rules, policy, attempts);
		}
	} finally {
		// A success, or a probe giving up: the requests waiting with it go (and give up too).
		rules.gate?.done(request, false);
	}
}

/** An attempt's end: its answer or why it failed, and for a 429 the end of the run's probe it waits with, if any. */
interface Attempted {
	response?: FullResponse;
	failure?: unknown;
	/** Another request of the run is waiting out the limit: whether it got through, when it does. */
	probeEnd?: Promise<boolean>;
}

/** One attempt: its place in the key's budget, then in the run's gate, then sent; the answer or why it failed. */
async function attemptOnce(node: INode, send: () => Promise<FullResponse>, rules: SendRules, request: object): Promise<Attempted> {
	const { gate } = rules;
	let response: FullResponse | undefined;
	let failure: unknown;
	// The budget's slot is taken before the gate, so requests released together never take the same one.
	if (rules.budget) await awaitBudget(node, rules.budget, rules.itemIndex);
	if (gate) await gate.enter(request);
	try {
		response = await send();
	} catch (error) {
		failure = error;
	} finally {
		gate?.leave();
		rules.budget?.ledger.settle(retryTiming.now(), response);
	}
	// Anything but a 429 shows the limit has room again. A 429 closes the gate here, before this function returns:
	// the slot just left wakes a waiting request, which must find the gate closed rather than send a request of its own.
	if (response?.statusCode !== 429) {
		gate?.done(request, true);
		return { response, failure };
	}
	const probeEnd = rules.acceptStatuses?.includes(429) ? undefined : gate?.limited(request);
	return { response, failure, probeEnd };
}

/** An attempt that did not succeed: its outcome, its answer if one came, and the probe it waits with after a 429. */
interface Failed {
	outcome: AttemptOutcome;
	response: FullResponse | undefined;
	probeEnd: Promise<boolean> | undefined;
}

/**
 * After an attempt that did not succeed: the wait before the next one (with the run's 429 probe, for the key's hour,
 * or the retry policy's delay), or the error the request ends in.
 */
async function waitBeforeRetry(node: INode, failed: Failed, rules: SendRules, policy: RetryPolicy, attempts: Attempts): Promise<void> {
	const { outcome, response } = failed;
	if (outcome.kind === 'status' && outcome.statusCode === 429 && (await waitOutRateLimit(node, failed, rules, policy, attempts))) return;
	// A burst 429's wait is the key's minute as the ledger knows it now (the service may have told its window since).
	const decision = decideRetry(rules.method, outcome, attempts.count, attempts.waitedMs, { ...policy, ...burstRetry(rules.budget) });
	if (decision.retry) {
		await retryTiming.sleep(decision.delayMs);
		attempts.waitedMs += decision.delayMs;
		return;
	}
	const unsure = !isIdempotent(rules.method) && attempts.mayHaveActed ? mayHaveActedAdvice(rules.verify) : undefined;
	throw givenUpError(node, outcome, response, { attempt: attempts.count, waitedMs: attempts.waitedMs, rules, unsure, overBudget: decision.reason === 'budget' });
}

/**
 * A 429 waited out where it is not the retry policy's to judge: with the run's probe, when another request of the run
 * is already waiting out the limit (no 429 of our own spent), or for the key's hour when the ledger explains the 429 as
 * the hour's budget spent and the service told no Retry-After. True when the request goes again; false: the policy
 * decides.
 */
async function waitOutRateLimit(node: INode, failed: Failed, rules: SendRules, policy: RetryPolicy, attempts: Attempts): Promise<boolean> {
	const { probeEnd } = failed;
	if (probeEnd) {
		const started = retryTiming.now();
		const through = await probeEnd;
		attempts.waitedMs += retryTiming.now() - started;
		if (through && attempts.count < policy.maxAttempts) return true;
		throw rateLimitError(node, failed.response!, attempts.count, attempts.waitedMs, rules.itemIndex);
	}
	const told = failed.outcome.kind === 'status' && failed.outcome.retryAfter !== undefined;
	if (told) return false;
	const hour = hourBudgetWait(node, rules.budget, { waitedMs: attempts.waitedMs, maxTotalWaitMs: policy.maxTotalWaitMs, itemIndex: rules.itemIndex });
	if (hour === 'not spent') return false;
	if (hour === 'in run') {
		// The next attempt waits for the budget in `awaitBudget`: not an attempt of its own.
		attempts.count--;
		return true;
	}
	await retryTiming.sleep(hour);
	attempts.waitedMs += hour;
	return true;
}

/** The error of a request given up on, from its last attempt's outcome (`response` is that attempt's answer, if any). */
function givenUpError(
	node: INode,
	outcome: AttemptOutcome,
	response: FullResponse | undefined,
	last: { attempt: number; waitedMs: number; rules: SendRules; unsure?: string; overBudget: boolean },
): NodeApiError | NodeOperationError {
	const { attempt, rules, unsure } = last;
	if (outcome.kind === 'network') return networkError(node, outcome.code, attempt, rules.itemIndex, unsure);
	if (outcome.kind === 'malformed') {
		const to = rules.request ? ` to ${rules.request}` : '';
		const status = outcome.statusCode === undefined ? '' : ` (HTTP ${outcome.statusCode})`;
		const body = {
			error: {
				code: 'malformed_response',
				message: `The service's answer${to}${status} could not be read: ${outcome.reason} (after ${plural(attempt, 'attempt')})`,
			},
		};
		const answer = { statusCode: outcome.statusCode ?? 200, body };
		return apiErrorFromResponse(node, answer, rules.itemIndex, unsure, rules.request);
	}
	if (outcome.kind === 'status' && outcome.statusCode === 429) {
		return rateLimitError(node, response!, attempt, last.waitedMs, rules.itemIndex, last.overBudget);
	}
	return apiErrorFromResponse(node, response!, rules.itemIndex, unsure, rules.request);
}

/** A 429 the retries did not outlast: how long was waited, and how to wait longer. */
function rateLimitError(
	node: INode,
	response: FullResponse,
	attempt: number,
	waitedMs: number,
	itemIndex: number | undefined,
	overBudget = false,
) {
	const error = apiErrorFromResponse(node, response, itemIndex);
	error.message = `The service kept answering 429 (rate limit exceeded) after ${plural(attempt, 'attempt')} and ${Math.round(waitedMs / 1000)} s of waiting`;
	if (overBudget) {
		error.description = `${error.description ?? ''}\nThe next wait would pass the longest wait allowed: raise "${MAX_RETRY_WAIT_FIELD}" under the node's Request Options, or use a key with a higher limit.`.trim();
	}
	return error;
}

/** The credential's key, to cut out of an error; none without a credential. */
export function credentialSecrets(ctx: IAllExecuteFunctions, itemIndex?: number): SendRules['secrets'] {
	return async () => {
		try {
			return [(await ctx.getCredentials<{ apiKey?: string }>(CREDENTIAL_NAME, itemIndex)).apiKey];
		} catch {
			return [];
		}
	};
}

/**
 * One attempt through n8n's helper (with the credential's Bearer key), every status answered so `sendWithRules`
 * decides. Never a redirect: n8n's helper would follow it with the key, to another host too, so a 3xx comes back as
 * the answer, whatever the request (a declarative node's routing included) asked.
 */
export async function sendAuthenticated(
	ctx: IAllExecuteFunctions,
	request: IHttpRequestOptions,
	authenticated = true,
): Promise<FullResponse> {
	const options: IHttpRequestOptions = {
		...request,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		maxRedirects: 0,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	const raw = (
		authenticated
			? await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_NAME, options)
			: await ctx.helpers.httpRequest(options)
	) as { statusCode: number; headers?: Record<string, unknown>; body: unknown };
	return { statusCode: raw.statusCode, headers: raw.headers ?? {}, body: raw.body, url: requestUrl(request) };
}

/** The absolute URL of a request: its `url`, or its `url` below its `baseURL` (a declarative node's routing). */
function requestUrl(request: IHttpRequestOptions): string {
	return request.baseURL ? joinUrl(request.baseURL, request.url) : request.url;
}

/** One JSON request to the service by the package's rules (`sendWithRules`), resolving with the whole response. */
export async function apiRequestFull(
	this: IAllExecuteFunctions,
	options: ApiRequestOptions,
): Promise<FullResponse> {
	const authenticated = options.authenticated !== false;
	const baseUrl = options.baseUrl ?? (await getBaseUrl.call(this, options.itemIndex));
	const request: IHttpRequestOptions = {
		method: options.method,
		url: joinUrl(baseUrl, options.path),
		json: true,
		timeout: DEFAULT_TIMEOUT_MS,
		headers: { Accept: 'application/json' },
	};
	if (options.qs !== undefined) request.qs = options.qs;
	if (options.body !== undefined) request.body = options.body;

	const send = async () => await sendAuthenticated(this, request, authenticated);
	const budget = authenticated ? await keyBudget(this, options.itemIndex, options.budget) : undefined;
	return await sendWithRules(this.getNode(), send, {
		...options,
		retry: { ...burstRetry(budget), ...options.retry },
		request: `${options.method} ${options.path}`,
		secrets: authenticated ? credentialSecrets(this, options.itemIndex) : undefined,
		budget,
	});
}

/** Like `apiRequestFull`, resolving with the parsed body only. */
export async function apiRequest<T = IDataObject>(
	this: IAllExecuteFunctions,
	options: ApiRequestOptions,
): Promise<T> {
	const response = await apiRequestFull.call(this, options);
	return response.body as T;
}

/** One request whose answer `check` reads (`shared/answerShapes.ts`); what it refuses names the request and its status. */
export async function apiRequestChecked<T>(
	ctx: IAllExecuteFunctions,
	options: ApiRequestOptions & { request?: string },
	check: (body: unknown, at: { statusCode: number }) => T,
): Promise<T> {
	const response = await apiRequestFull.call(ctx, options);
	const request = options.request ?? `${options.method} ${options.path}`;
	const where = { request, statusCode: response.statusCode, itemIndex: options.itemIndex };
	try {
		return check(response.body, where);
	} catch (error) {
		if (error instanceof UnusableAnswer) throw unusableAnswerError(ctx.getNode(), error, where);
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: options.itemIndex });
	}
}
