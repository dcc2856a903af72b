import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { recordAnswer, UnusableAnswer } from '../../shared/answerShapes';
import { checkBaseUrl, isLoopback } from '../../shared/baseUrl';
import { checkEmail } from '../../shared/input';
import { type Checked, refusalError, refuse, validOrThrow } from '../../shared/refusal';
import { itemRetryPolicy } from '../../shared/requestOptions';
import { retryTiming } from '../../shared/retry';
import { apiRequestChecked, getBaseUrl } from '../../shared/transport';
import { isObject, plural } from '../../shared/utils';
import type { Operation } from '../common/types';

const requestProperties: INodeProperties[] = [
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		required: true,
		default: '',
		description:
			'The email the key is for. A new or unconfirmed email gets a key at once; an email with a confirmed account gets a link to approve the request.',
	},
	{
		displayName: 'Client Name',
		name: 'clientName',
		type: 'string',
		required: true,
		default: 'n8n',
		description: 'The name shown to the account owner when they approve the request',
	},
];

const requestShow = { show: { resource: ['apiKey'], operation: ['request'] } };

const requestFields = updateDisplayOptions(requestShow, requestProperties);

/** Where key requests go (they take no API key): the typed Base URL, or only the Base URL of a credential. */
async function keyIssuanceBaseUrl(this: IExecuteFunctions, itemIndex: number): Promise<string> {
	const source = this.getNodeParameter('baseUrlSource', itemIndex, 'parameter') as string;
	if (source === 'credential') return await getBaseUrl.call(this, itemIndex);
	return validOrThrow(this.getNode(), checkBaseUrl(this.getNodeParameter('baseUrl', itemIndex, '')), itemIndex);
}

/** The fields of an answer that an item keeps; an issued key appears only in the item, never in a log or an error. */
function pick(body: IDataObject, fields: string[]): IDataObject {
	return Object.fromEntries(fields.filter((field) => body[field] !== undefined).map((field) => [field, body[field]]));
}

const PLAN_FIELDS = ['rate_limit', 'upgrade_hint', 'upgrade_url'];

/** The first words of every issued key's next_step. */
const SAVE_KEY = 'Save api_key in a Social Aggregator API credential (with the same Base URL); it is shown only here';

/** The answer of POST /authorize: Mode A (a key at once) or Mode B (approval needed). */
export function requestItem(statusCode: number, body: unknown, email: string): IDataObject {
	const data = recordAnswer(body, { statusCode });
	const status = String(data.status ?? '');
	if (status === 'issued' || (status === '' && typeof data.api_key === 'string')) {
		const confirm = data.email_confirmation_required === true;
		return {
			status: 'issued',
			mode: 'immediate',
			...pick(data, ['api_key', 'expires_at', 'email_confirmation_required', ...PLAN_FIELDS]),
			next_step: confirm
				? `${SAVE_KEY}. Confirm ${email} from the email the service sent: until then the key lasts 2 hours at 60 requests per hour, and Data API calls may answer email_confirmation_required. Confirmed, the same key lasts 12 hours in all.`
				: `${SAVE_KEY}.`,
		};
	}
	if (status === 'pending_authorization' || typeof data.request_id === 'string') {
		return {
			status: 'pending_authorization',
			mode: 'approval',
			...pick(data, ['request_id', 'authorization_url', 'poll_url', 'poll_interval', 'expires_at', ...PLAN_FIELDS]),
			next_step: `${email} already has a confirmed account: open authorization_url, sign in and approve. Then run API Key → Wait for Approval (or Get Authorization Status) with this request_id to receive a 12-hour key.`,
		};
	}
	throw new UnusableAnswer('it holds neither an `api_key` nor a `request_id`', undefined, statusCode);
}

async function executeRequest(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const email = checkEmail(this.getNodeParameter('email', itemIndex, ''));
	if (!email.ok) throw refusalError(node, email.refusal, itemIndex);
	const clientName = String(this.getNodeParameter('clientName', itemIndex, '')).trim();
	if (!clientName) {
		throw refusalError(node, { field: 'Client Name', reason: 'the client name is empty' }, itemIndex);
	}
	const baseUrl = await keyIssuanceBaseUrl.call(this, itemIndex);

	const body = { email: email.value, client_name: clientName };
	const retry = itemRetryPolicy.call(this, itemIndex);
	const request = { method: 'POST' as const, path: '/authorize', body, baseUrl, authenticated: false, itemIndex, retry };
	return [await apiRequestChecked(this, request, (answer, at) => requestItem(at.statusCode, answer, email.value))];
}

const requestIdField: INodeProperties = {
	displayName: 'Request ID',
	name: 'requestId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. {{ $json.request_id }}',
	description: 'The request_id (or the poll_url) that API Key → Request returned',
};

const getStatusProperties: INodeProperties[] = [requestIdField];

const getStatusShow = { show: { resource: ['apiKey'], operation: ['getStatus'] } };

const getStatusFields = updateDisplayOptions(getStatusShow, getStatusProperties);

/**
 * A request ID from POST /authorize, or the absolute poll_url that carries it. Its answer carries the issued key, so a
 * poll_url must be on the Base URL's own origin (scheme, host and port): https, or plain http only on this machine, as
 * the Base URL itself. Redirects are not followed (transport.ts).
 */
export function checkRequestId(value: unknown, baseUrl: string): Checked<{ path: string; requestId: string }> {
	const field = 'Request ID';
	const text = String(value ?? '').trim();
	if (text === '') {
		return refuse({
			field,
			reason: 'the request ID is empty',
			hint: 'Use the request_id (or poll_url) of API Key → Request, for example {{ $json.request_id }}.',
		});
	}
	if (!/^https?:\/\//i.test(text)) {
		if (/[/?#\s]/.test(text)) return refuse({ field, reason: `"${text}" is neither a request ID nor a poll URL` });
		return { ok: true, value: { path: `/authorize/${encodeURIComponent(text)}`, requestId: text } };
	}
	const url = URL.canParse(text) ? new URL(text) : undefined;
	if (!url) return refuse({ field, reason: `"${text}" is not a web address` });
	const requestOnly = 'Use the request_id alone (the node asks the Base URL), or the poll_url exactly as API Key → Request returned it.';
	if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
		return refuse({
			field,
			reason: `the poll URL "${text}" uses plain http; the issued API key must travel over https`,
			hint: `${requestOnly} Plain http is accepted only for a service on this machine (localhost, 127.0.0.1).`,
		});
	}
	const base = new URL(baseUrl);
	if (url.origin !== base.origin || url.username || url.password) {
		return refuse({
			field,
			reason: `the poll URL "${text}" is not at the Base URL's address (${base.origin}); the issued API key is taken only from the service itself`,
			hint: `${requestOnly} If the service has moved, correct the Base URL.`,
		});
	}
	const last = url.pathname.replace(/\/+$/, '').split('/').pop() ?? '';
	let requestId: string;
	try {
		requestId = decodeURIComponent(last);
	} catch {
		return refuse({ field, reason: `the poll URL "${text}" holds a malformed percent-encoding (a % not followed by two hex digits of valid UTF-8)`, hint: requestOnly });
	}
	if (requestId.trim() === '') return refuse({ field, reason: `the poll URL "${text}" names no request ID`, hint: requestOnly });
	return { ok: true, value: { path: `${url.origin}${url.pathname}${url.search}`, requestId } };
}

export interface PollResult {
	state: 'pending' | 'issued' | 'gone';
	item: IDataObject;
}

/** One answer of GET /authorize/{request_id}: 202 pending, 200 issued, 410 gone. */
export function pollItem(statusCode: number, body: unknown, requestId: string): PollResult {
	const data: IDataObject = isObject(body) ? body : {};
	if (statusCode === 410) {
		const error: IDataObject = isObject(data.error) ? data.error : {};
		return {
			state: 'gone',
			item: {
				status: 'gone',
				request_id: requestId,
				error_code: typeof error.code === 'string' && error.code ? error.code : 'authorization_gone',
				message:
					typeof error.message === 'string' && error.message.trim()
						? error.message
						: 'The authorization request is gone: it was denied, it expired, or its key was already delivered.',
				next_step: 'Request a new key with API Key → Request.',
			},
		};
	}
	if (statusCode === 200) {
		if (typeof data.api_key !== 'string' || data.api_key === '') {
			throw new UnusableAnswer('an answer of 200 must hold the issued `api_key`', undefined, statusCode);
		}
		return {
			state: 'issued',
			item: {
				status: 'issued',
				request_id: requestId,
				...pick(data, ['api_key', 'key_preview', 'expires_at', ...PLAN_FIELDS]),
				next_step: `${SAVE_KEY} and the service delivers it once.`,
			},
		};
	}
	return {
		state: 'pending',
		item: {
			status: 'pending',
			request_id: requestId,
			...pick(data, ['expires_at', 'poll_interval']),
			next_step: 'The request waits for approval at its authorization_url. Poll again after poll_interval seconds.',
		},
	};
}

/** Reads the Request ID parameter and returns a function asking GET /authorize/{request_id} once. */
async function preparePoll(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<{ requestId: string; poll: () => Promise<PollResult> }> {
	const given = this.getNodeParameter('requestId', itemIndex, '');
	// A poll_url too: it is checked against the Base URL.
	const baseUrl = await keyIssuanceBaseUrl.call(this, itemIndex);
	const { path, requestId } = validOrThrow(this.getNode(), checkRequestId(given, baseUrl), itemIndex);
	const retry = itemRetryPolicy.call(this, itemIndex);
	const request = `GET /authorize/${requestId}`;
	const options = { method: 'GET' as const, path, baseUrl, authenticated: false, acceptStatuses: [202, 410], itemIndex, retry, request };
	const poll = async (): Promise<PollResult> =>
		await apiRequestChecked(this, options, (body, at) => pollItem(at.statusCode, body, requestId));
	return { requestId, poll };
}

async function executeGetStatus(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const { poll } = await preparePoll.call(this, itemIndex);
	const { item } = await poll();
	return [item];
}

const waitForApprovalProperties: INodeProperties[] = [
	requestIdField,
	{
		displayName: 'Poll Interval (Seconds)',
		name: 'pollInterval',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 2,
		description: 'Seconds between polls: the poll_interval that API Key → Request returned',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 600,
		description:
			'How long to wait for the approval before giving up with an error. A request expires after about 10 minutes.',
	},
];

const waitForApprovalShow = { show: { resource: ['apiKey'], operation: ['waitForApproval'] } };

const waitForApprovalFields = updateDisplayOptions(waitForApprovalShow, waitForApprovalProperties);

const MIN_POLL_INTERVAL_MS = 250;

/** Polls until issued, gone or timed out. Time counts on the clock and as time slept, so a replaced sleep ends too. */
export async function waitForApproval(options: {
	poll: () => Promise<PollResult>;
	sleep: (ms: number) => Promise<void>;
	now: () => number;
	intervalMs: number;
	timeoutMs: number;
}): Promise<{ result: PollResult; polls: number; waitedMs: number; timedOut: boolean }> {
	const started = options.now();
	// A pause too short would turn polling into a busy loop.
	const intervalMs = Math.max(MIN_POLL_INTERVAL_MS, options.intervalMs);
	let slept = 0;
	let polls = 0;
	for (;;) {
		const result = await options.poll();
		polls++;
		const waitedMs = Math.max(slept, options.now() - started);
		if (result.state !== 'pending') return { result, polls, waitedMs, timedOut: false };
		const remaining = options.timeoutMs - waitedMs;
		if (remaining <= 0) return { result, polls, waitedMs, timedOut: true };
		const pause = Math.max(0, Math.min(intervalMs, remaining));
		await options.sleep(pause);
		slept += pause;
	}
}

async function executeWaitForApproval(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const { requestId, poll } = await preparePoll.call(this, itemIndex);
	const intervalSeconds = Number(this.getNodeParameter('pollInterval', itemIndex, 2));
	const timeoutSeconds = Number(this.getNodeParameter('timeout', itemIndex, 600));
	const intervalMs = Number.isFinite(intervalSeconds) && intervalSeconds > 0 ? intervalSeconds * 1000 : 2000;
	const timeoutMs = Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? timeoutSeconds * 1000 : 600_000;

	const { result, polls, waitedMs, timedOut } = await waitForApproval({
		poll,
		sleep: async (ms) => await retryTiming.sleep(ms),
		now: () => retryTiming.now(),
		intervalMs,
		timeoutMs,
	});

	if (timedOut) {
		throw new NodeOperationError(
			node,
			`No approval for request ${requestId} within ${Math.round(timeoutMs / 1000)} s`,
			{
				itemIndex,
				description: `Polled ${plural(polls, 'time')} over ${Math.round(waitedMs / 1000)} s; the request was still pending. The account owner must open its authorization_url and approve it; a longer Timeout waits longer, and Get Authorization Status asks once.`,
			},
		);
	}
	if (result.state === 'gone') {
		throw new NodeOperationError(node, `The authorization request ${requestId} is gone`, {
			itemIndex,
			description: `${String(result.item.message)} Request a new key with API Key → Request.`,
		});
	}
	return [result.item];
}

const show = { resource: ['apiKey'] };

export const apiKeyDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Get Authorization Status',
				value: 'getStatus',
				description: 'Ask once whether an authorization request is pending, issued (with the key) or gone',
				action: 'Get authorization status',
			},
			{
				name: 'Request',
				value: 'request',
				description:
					'Request a temporary key for an email: a new email gets it at once, a confirmed account must approve it',
				action: 'Request an API key',
			},
			{
				name: 'Wait for Approval',
				value: 'waitForApproval',
				description: 'Poll an authorization request until the key is issued, the request is gone, or a timeout',
				action: 'Wait for API key approval',
			},
		],
		default: 'request',
	},
	{
		displayName:
			'Key requests need no API key. The node only needs the address of the API: type it below, or take the Base URL of an existing Social Aggregator API credential (its key is not sent). Save an issued key in that credential; it is shown only in this node’s output.',
		name: 'keyIssuanceNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	{
		displayName: 'Base URL Source',
		name: 'baseUrlSource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Enter Base URL',
				value: 'parameter',
				description: 'For when there is no key, and so no credential, yet',
			},
			{
				name: 'From Credential',
				value: 'credential',
				description: 'The Base URL of a Social Aggregator API credential; its key is not sent',
			},
		],
		default: 'parameter',
		displayOptions: { show },
	},
	{
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://api.example.com/v1',
		description: 'The address of the API, including the version prefix /v1',
		displayOptions: { show: { ...show, baseUrlSource: ['parameter'] } },
	},
	...requestFields,
	...getStatusFields,
	...waitForApprovalFields,
];

/** The operations of this resource by their values: the router runs the chosen one once per input item. */
export const apiKeyOperations: Record<string, Operation> = {
	request: executeRequest,
	getStatus: executeGetStatus,
	waitForApproval: executeWaitForApproval,
};
