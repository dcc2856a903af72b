import { canonicalPlatform, checkPlatforms } from '../../../shared/dataSearch';
import { toList } from '../../../shared/input';
import { refuse, type Checked } from '../../../shared/refusal';

/**
 * Input checks of the Data node's own parameters (resume cursors, profile
 * handles, key issuance). Everything here is pure: the operations turn a
 * refusal into a NodeOperationError that names the field, the item and the
 * platform, before any request is sent (and any credit spent). The search
 * inputs (term, platforms, term type) are checked in nodes/shared/dataSearch.ts,
 * shared with the Data Trigger.
 */

/**
 * Resume cursors given per platform. Cursors stay opaque (SPEC.md rule 6): only
 * their platform is checked, which must be one of the searched platforms.
 */
export function checkResumeCursors(
	entries: Array<{ platform?: unknown; cursor?: unknown }>,
	platforms: string[],
): Checked<Record<string, string>> {
	const cursors: Record<string, string> = {};
	for (const entry of entries) {
		const cursor = String(entry.cursor ?? '').trim();
		const name = String(entry.platform ?? '').trim();
		if (cursor === '' && name === '') continue;
		const platform = canonicalPlatform(name);
		if (!platform || !platforms.includes(platform)) {
			return refuse({
				field: 'Resume From Cursors',
				platform: name || undefined,
				reason: name
					? `a cursor is given for ${name}, which is not among the searched platforms`
					: 'a cursor is given without its platform',
				hint: 'Each cursor continues one of the platforms in Platforms.',
			});
		}
		if (cursor === '') continue;
		if (/[,\s]/.test(cursor)) {
			return refuse({
				field: 'Resume From Cursors',
				platform,
				reason: 'a cursor contains a comma or a space, so it cannot be a single cursor the service gave',
				hint: 'Paste the next_cursor of that platform exactly as it came.',
			});
		}
		if (cursors[platform]) {
			return refuse({ field: 'Resume From Cursors', platform, reason: `two cursors are given for ${platform}` });
		}
		cursors[platform] = cursor;
	}
	return { ok: true, value: cursors };
}

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
