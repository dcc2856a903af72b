import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { UnusableAnswer } from '../../../../shared/answers';
import { isLoopback } from '../../../../shared/baseUrl';
import { refuse, valid, type Checked } from '../../../../shared/refusal';
import { itemRetryPolicy } from '../../../../shared/requestOptions';
import { apiRequestChecked } from '../../../../shared/transport';
import { keyIssuanceBaseUrl, pick, PLAN_FIELDS, SAVE_KEY } from './request.operation';

export const requestIdField: INodeProperties = {
	displayName: 'Request ID',
	name: 'requestId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. {{ $json.request_id }}',
	description: 'The request_id (or the poll_url) that API Key → Request returned',
};

const properties: INodeProperties[] = [requestIdField];

const displayOptions = { show: { resource: ['apiKey'], operation: ['getStatus'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** A request ID from POST /authorize, or the absolute poll_url that carries it. */
export function checkRequestId(value: unknown): Checked<{ path: string; requestId: string; absolute: boolean }> {
	const text = String(value ?? '').trim();
	if (text === '') {
		return refuse({
			field: 'Request ID',
			reason: 'the request ID is empty',
			hint: 'Use the request_id (or poll_url) of API Key → Request, for example {{ $json.request_id }}.',
		});
	}
	if (/^https?:\/\//i.test(text)) {
		// Its answer carries the issued key: the same rule as the Base URL.
		const url = URL.canParse(text) ? new URL(text) : undefined;
		if (!url) return refuse({ field: 'Request ID', reason: `"${text}" is not a web address` });
		if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
			return refuse({
				field: 'Request ID',
				reason: `the poll URL "${text}" uses plain http; the issued API key must travel over https`,
				hint: 'Use the https:// poll_url, or the request_id alone. Plain http is accepted only for a service on this machine (localhost, 127.0.0.1).',
			});
		}
		const requestId = decodeURIComponent(text.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() ?? '');
		return { ok: true, value: { path: text, requestId, absolute: true } };
	}
	if (/[/?#\s]/.test(text)) {
		return refuse({ field: 'Request ID', reason: `"${text}" is neither a request ID nor a poll URL` });
	}
	return { ok: true, value: { path: `/authorize/${encodeURIComponent(text)}`, requestId: text, absolute: false } };
}

export interface PollResult {
	state: 'pending' | 'issued' | 'gone';
	item: IDataObject;
}

/** One answer of GET /authorize/{request_id}: 202 pending, 200 issued, 410 gone. */
export function pollItem(statusCode: number, body: unknown, requestId: string): PollResult {
	const data = (body && typeof body === 'object' ? body : {}) as IDataObject;
	if (statusCode === 410) {
		const error = (data.error && typeof data.error === 'object' ? data.error : {}) as IDataObject;
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
export async function preparePoll(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<{ requestId: string; poll: () => Promise<PollResult> }> {
	const given = this.getNodeParameter('requestId', itemIndex, '');
	const { path, requestId, absolute } = valid(this.getNode(), checkRequestId(given), itemIndex);
	// An absolute poll_url needs no base URL.
	const baseUrl = absolute ? '' : await keyIssuanceBaseUrl.call(this, itemIndex);
	const retry = itemRetryPolicy.call(this, itemIndex);
	const request = `GET /authorize/${requestId}`;
	const options = { method: 'GET' as const, path, baseUrl, authenticated: false, acceptStatuses: [202, 410], itemIndex, retry, request };
	const poll = async (): Promise<PollResult> =>
		await apiRequestChecked(this, options, (body, at) => pollItem(at.statusCode, body, requestId));
	return { requestId, poll };
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const { poll } = await preparePoll.call(this, itemIndex);
	const { item } = await poll();
	return [item];
}
