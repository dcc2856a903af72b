import { refuse, type Checked } from '../../../shared/refusal';

/**
 * Input checks of the Data node's own parameters (key issuance). Everything here is pure: the operations turn a
 * refusal into a NodeOperationError that names the field, the item and the
 * platform, before any request is sent (and any credit spent). The search
 * inputs (term, platforms, term type) are checked in nodes/shared/dataSearch.ts,
 * shared with the Data Trigger.
 */

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
		const requestId = decodeURIComponent(text.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() ?? '');
		return { ok: true, value: { path: text, requestId, absolute: true } };
	}
	if (/[/?#\s]/.test(text)) {
		return refuse({ field: 'Request ID', reason: `"${text}" is neither a request ID nor a poll URL` });
	}
	return { ok: true, value: { path: `/authorize/${encodeURIComponent(text)}`, requestId: text, absolute: false } };
}
