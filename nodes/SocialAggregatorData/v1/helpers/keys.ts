import type { IDataObject } from 'n8n-workflow';

import { recordAnswer, UnusableAnswer } from '../../../shared/answers';

/**
 * Key issuance (POST /authorize, GET /authorize/{request_id}) as clear items.
 * The issued key appears only in the item of the operation that issued it and
 * is never put into a log line or an error.
 */

function pick(body: IDataObject, fields: string[]): IDataObject {
	const result: IDataObject = {};
	for (const field of fields) {
		if (body[field] !== undefined) result[field] = body[field];
	}
	return result;
}

const PLAN_FIELDS = ['rate_limit', 'upgrade_hint', 'upgrade_url'];

/** The answer of POST /authorize: Mode A (a key at once) or Mode B (approval needed). */
export function requestItem(statusCode: number, body: unknown, email: string): IDataObject {
	const data = recordAnswer(body, { statusCode });
	const status = String(data.status ?? '');
	if (status === 'issued' || (status === '' && typeof data.api_key === 'string')) {
		const confirm = data.email_confirmation_required === true;
		return {
			status: 'issued',
			mode: 'immediate',
			...pick(data, ['api_key', 'expires_at', 'email_confirmation_required']),
			...pick(data, PLAN_FIELDS),
			next_step: confirm
				? `Save api_key in a Social Aggregator API credential (with the same Base URL); it is shown only here. Confirm ${email} from the email the service sent: until then the key lasts 2 hours at 60 requests per hour, and Data API calls may answer email_confirmation_required. Confirmed, the same key lasts 12 hours in all.`
				: 'Save api_key in a Social Aggregator API credential (with the same Base URL); it is shown only here.',
		};
	}
	if (status === 'pending_authorization' || typeof data.request_id === 'string') {
		return {
			status: 'pending_authorization',
			mode: 'approval',
			...pick(data, ['request_id', 'authorization_url', 'poll_url', 'poll_interval', 'expires_at']),
			...pick(data, PLAN_FIELDS),
			next_step: `${email} already has a confirmed account: open authorization_url, sign in and approve. Then run API Key → Wait for Approval (or Get Authorization Status) with this request_id to receive a 12-hour key.`,
		};
	}
	throw new UnusableAnswer('it holds neither an `api_key` nor a `request_id`', undefined, statusCode);
}

export type PollState = 'pending' | 'issued' | 'gone';

export interface PollResult {
	state: PollState;
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
				...pick(data, ['api_key', 'key_preview', 'expires_at']),
				...pick(data, PLAN_FIELDS),
				next_step:
					'Save api_key in a Social Aggregator API credential (with the same Base URL); it is shown only here and the service delivers it once.',
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

export const MIN_POLL_INTERVAL_MS = 250;

/**
 * Polls until the key is issued, the request is gone, or the timeout runs out.
 * Time is counted both on the clock and as the sum of the waits, so a replaced
 * `sleep` (tests) still ends the loop.
 */
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
