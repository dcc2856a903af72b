import type { IDataObject } from 'n8n-workflow';

import { recordAnswer, UnusableAnswer } from '../../shared/answerShapes';
import { isLoopback } from '../../shared/baseUrl';
import { type Checked, refuse } from '../../shared/refusal';
import { isObject } from '../../shared/utils';

// Key issuance (POST /authorize, GET /authorize/{request_id}) as items: what the API Key operations read of each
// answer, where a poll may go, and the wait for an approval.

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
