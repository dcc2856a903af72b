import { NodeOperationError } from 'n8n-workflow';
import type {
	IAllExecuteFunctions,
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
} from 'n8n-workflow';

import { CREDENTIAL_NAME } from './constants';
import { apiErrorFromResponse, networkError, redact, type ApiResponse } from './errors';
import {
	decideRetry,
	DEFAULT_RETRY_POLICY,
	retryTiming,
	type AttemptOutcome,
	type RetryPolicy,
} from './retry';

export interface ApiRequestOptions {
	method: IHttpRequestMethods;
	/** A path below the base URL (`/feeds/1`), or an absolute URL the service gave (`poll_url`). */
	path: string;
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	/** Send the credential's Bearer key. Key issuance endpoints take none. */
	authenticated?: boolean;
	/** The base URL when no credential is used; otherwise the credential's. */
	baseUrl?: string;
	/** The input item this request is for, named in errors. */
	itemIndex?: number;
	retry?: Partial<RetryPolicy>;
	/** Statuses above 299 that are answers rather than errors (a 410 while polling, say). */
	acceptStatuses?: number[];
	timeoutMs?: number;
}

export interface FullResponse extends ApiResponse {
	headers: Record<string, unknown>;
}

const DEFAULT_TIMEOUT_MS = 60_000;

export function trimBaseUrl(baseUrl: string): string {
	return baseUrl.trim().replace(/\/+$/, '');
}

export function joinUrl(baseUrl: string, path: string): string {
	if (/^https?:\/\//i.test(path)) return path;
	return `${trimBaseUrl(baseUrl)}/${path.replace(/^\/+/, '')}`;
}

/** The credential's base URL without trailing slashes. */
export async function getBaseUrl(this: IAllExecuteFunctions, itemIndex?: number): Promise<string> {
	const credentials = await this.getCredentials<{ baseUrl?: string }>(CREDENTIAL_NAME, itemIndex);
	return trimBaseUrl(String(credentials.baseUrl ?? ''));
}

/** A response header by name, whatever its case; the first value of a repeated one. */
function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
	const value = key === undefined ? undefined : headers[key];
	if (Array.isArray(value)) return String(value[0]);
	return value === undefined || value === null ? undefined : String(value);
}

/** The system error code of a failed request, wherever n8n or axios put it. */
function networkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/** A success whose body did not parse as JSON. */
function isMalformed(response: ApiResponse): boolean {
	// A JSON API answers objects; a string body on a success means the JSON did not parse.
	return typeof response.body === 'string' && response.body.trim() !== '';
}

/**
 * Whether an error code means the connection failed (reset, refused, timed
 * out, name not resolved): system codes (`ECONNRESET`) and the few Node codes
 * of the same kind. Codes such as `ERR_INVALID_URL` or `ERR_CANCELED` (the run
 * was stopped) would fail again the same way.
 */
function isConnectionFailure(code: string | undefined): boolean {
	if (!code) return false;
	if (!code.startsWith('ERR_')) return true;
	return code === 'ERR_NETWORK' || code.startsWith('ERR_SOCKET_') || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

export interface SendRules {
	method: IHttpRequestMethods;
	itemIndex?: number;
	retry?: Partial<RetryPolicy>;
	/** Statuses above 299 that are answers rather than errors. */
	acceptStatuses?: number[];
	/** The secrets to cut out of the message of a request that could not be sent. */
	secrets?: () => Promise<Array<string | undefined>>;
}

function attempts(n: number): string {
	return `${n} attempt${n === 1 ? '' : 's'}`;
}

/**
 * Sends one request by the package's rules, whatever sends it (n8n's request
 * helper, or declarative routing): retries 429 and transient failures within
 * the policy's bounds, and turns what is left into the right n8n error:
 * SPEC.md's envelope through `apiErrorFromResponse`, a failed connection
 * through `networkError`, a request that could not be sent at all as a
 * `NodeOperationError` with its secrets cut out.
 */
export async function sendWithRules(
	node: INode,
	send: () => Promise<FullResponse>,
	rules: SendRules,
): Promise<FullResponse> {
	const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...rules.retry };
	let waitedMs = 0;
	for (let attempt = 1; ; attempt++) {
		let response: FullResponse | undefined;
		let failure: unknown;
		try {
			response = await send();
		} catch (error) {
			failure = error;
		}

		let outcome: AttemptOutcome;
		if (response) {
			const accepted = response.statusCode < 300 || rules.acceptStatuses?.includes(response.statusCode);
			if (accepted && !isMalformed(response)) return response;
			outcome = accepted
				? { kind: 'malformed' }
				: {
						kind: 'status',
						statusCode: response.statusCode,
						retryAfter: headerValue(response.headers, 'retry-after'),
					};
		} else {
			const code = networkCode(failure);
			if (!isConnectionFailure(code)) {
				const text = failure instanceof Error ? failure.message : String(failure);
				const secrets = rules.secrets ? await rules.secrets() : [];
				throw new NodeOperationError(node, redact(text, secrets), {
					itemIndex: rules.itemIndex,
					description: 'The request to the service could not be sent.',
				});
			}
			outcome = { kind: 'network', code };
		}

		const decision = decideRetry(rules.method, outcome, attempt, waitedMs, policy);
		if (decision.retry) {
			await retryTiming.sleep(decision.delayMs);
			waitedMs += decision.delayMs;
			continue;
		}

		if (outcome.kind === 'network') {
			throw networkError(node, { code: outcome.code }, attempt, rules.itemIndex);
		}
		if (outcome.kind === 'malformed') {
			const body = {
				error: {
					code: 'malformed_response',
					message: `The service answered with a body that is not JSON (after ${attempts(attempt)})`,
				},
			};
			throw apiErrorFromResponse(node, { statusCode: response!.statusCode, body }, rules.itemIndex);
		}
		const error = apiErrorFromResponse(node, response!, rules.itemIndex);
		if (outcome.statusCode === 429 && decision.reason !== 'final') {
			error.message = `The service kept answering 429 (rate limit exceeded) after ${attempts(attempt)} and ${Math.round(waitedMs / 1000)} s of waiting`;
		}
		throw error;
	}
}

/**
 * One request to the service, with the package's rules: Bearer authentication
 * through n8n's credential helper, JSON in and out, and `sendWithRules`.
 * Resolves with the whole response.
 */
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
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
		headers: { Accept: 'application/json' },
	};
	if (options.qs !== undefined) request.qs = options.qs;
	if (options.body !== undefined) request.body = options.body;

	const send = async (): Promise<FullResponse> => {
		const raw = (
			authenticated
				? await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_NAME, request)
				: await this.helpers.httpRequest(request)
		) as { statusCode: number; headers?: Record<string, unknown>; body: unknown };
		return { statusCode: raw.statusCode, headers: raw.headers ?? {}, body: raw.body };
	};
	const secrets = async () => {
		if (!authenticated) return [];
		const credentials = await this.getCredentials<{ apiKey?: string }>(CREDENTIAL_NAME, options.itemIndex);
		return [credentials.apiKey];
	};
	return await sendWithRules(this.getNode(), send, {
		method: options.method,
		itemIndex: options.itemIndex,
		retry: options.retry,
		acceptStatuses: options.acceptStatuses,
		secrets,
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
