import { checkPlatforms } from '../../../shared/dataSearch';
import { toList } from '../../../shared/input';
import { refuse, type Checked } from '../../../shared/refusal';

/**
 * Input checks of the Data node's own parameters (profile handles, key
 * issuance). Everything here is pure: the operations turn a
 * refusal into a NodeOperationError that names the field, the item and the
 * platform, before any request is sent (and any credit spent). The search
 * inputs (term, platforms, term type) are checked in nodes/shared/dataSearch.ts,
 * shared with the Data Trigger.
 */

export const MAX_PROFILE_HANDLES = 5;

export interface ProfileInput {
	handles: string[];
	platforms: string[];
}

/** Profiles → Look Up: up to five comma-separated handles and known platforms. */
export function checkProfileInput(raw: { term: unknown; platforms: unknown }): Checked<ProfileInput> {
	const handles = toList(raw.term);
	if (handles.length === 0) {
		return refuse({ field: 'Handles', reason: 'no handle is given', hint: 'Enter up to 5 handles, comma-separated.' });
	}
	if (handles.length > MAX_PROFILE_HANDLES) {
		return refuse({
			field: 'Handles',
			reason: `${handles.length} handles are given; the service looks up at most ${MAX_PROFILE_HANDLES} at a time`,
			hint: 'Split the handles over several input items.',
		});
	}
	const platforms = checkPlatforms(raw.platforms);
	if (!platforms.ok) return platforms;
	return { ok: true, value: { handles, platforms: platforms.value } };
}

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
