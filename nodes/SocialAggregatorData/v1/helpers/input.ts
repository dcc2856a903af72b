import { DATA_API_TERM_TYPES, DATA_TERM_TYPES, type DataTermType } from '../../../shared/constants';
import { canonicalPlatform, inferredTermType, platformLabel } from '../../../shared/dataSearch';

/**
 * Input checks against SPEC.md's table of Data API platforms and term types.
 * Everything here is pure: the operations turn a refusal into a
 * NodeOperationError that names the field, the item and the platform, before
 * any request is sent (and any credit spent).
 */

/** Why an input was refused: the parameter, the platform when one is at fault, and the reason. */
export interface InputRefusal {
	field: string;
	platform?: string;
	reason: string;
	/** What the user can do about it. */
	hint?: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; refusal: InputRefusal };

const refuse = <T>(refusal: InputRefusal): Checked<T> => ({ ok: false, refusal });

export const AUTO_DETECT = 'auto';

// Platform names and auto-detection are shared with the Data Trigger (nodes/shared/dataSearch.ts).
export { canonicalPlatform, platformLabel };

/** The term type the service applies to a term when `term_type` is omitted (SPEC.md, GET /data/posts). */
export const autoDetectTermType = inferredTermType;

/** A list parameter that may arrive as an array (the multi-select) or as comma-separated text (an expression). */
export function toList(value: unknown): string[] {
	const raw = Array.isArray(value) ? value.map((v) => String(v ?? '')) : String(value ?? '').split(',');
	return raw.map((v) => v.trim()).filter((v) => v !== '');
}

/** The platforms chosen, as request names, without duplicates, in the order given. */
export function checkPlatforms(value: unknown, field = 'Platforms'): Checked<string[]> {
	const names = toList(value);
	if (names.length === 0) {
		return refuse({ field, reason: 'no platform is chosen', hint: 'Choose at least one platform.' });
	}
	const result: string[] = [];
	for (const name of names) {
		const platform = canonicalPlatform(name);
		if (!platform) {
			return refuse({
				field,
				platform: name,
				reason: `"${name}" is not a platform the Data API can search without a connected account`,
				hint: `Known platforms: ${Object.keys(DATA_API_TERM_TYPES).join(', ')}.`,
			});
		}
		if (!result.includes(platform)) result.push(platform);
	}
	return { ok: true, value: result };
}

function allowedText(platform: string): string {
	const allowed = DATA_API_TERM_TYPES[platform] ?? [];
	return allowed.length === 1 ? allowed[0] : `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}`;
}

/** Advice per platform whose term types cannot be auto-detected. */
const TERM_TYPE_HINTS: Record<string, string> = {
	Reddit: 'Reddit needs an explicit Term Type: Channel for a subreddit, or Mentions for a keyword search.',
	Google:
		'Google reviews need Term Type Reviews and a place ID as the term (Profiles → Look Up on Google returns it), and Reviews applies to Google only, so search Google in a node of its own.',
};

export interface SearchInput {
	term: string;
	platforms: string[];
	/** `term_type` to send; undefined means auto-detect (the parameter is omitted). */
	termType?: DataTermType;
	/** The term type each platform will apply, after auto-detection. */
	resolved: Record<string, DataTermType>;
}

/**
 * Checks a search before any request: a term, known platforms, and a term type
 * (chosen, or the one auto-detection resolves to) that every platform takes.
 */
export function checkSearchInput(raw: { term: unknown; platforms: unknown; termType: unknown }): Checked<SearchInput> {
	const term = String(raw.term ?? '').trim();
	if (term === '') {
		return refuse({ field: 'Term', reason: 'the term is empty', hint: 'Enter a handle, hashtag, keyword or place ID.' });
	}
	if (term === '#' || term === '@') {
		return refuse({ field: 'Term', reason: `the term "${term}" has a prefix but no name` });
	}

	const platforms = checkPlatforms(raw.platforms);
	if (!platforms.ok) return platforms;

	const chosen = String(raw.termType ?? AUTO_DETECT).trim() || AUTO_DETECT;
	let termType: DataTermType | undefined;
	if (chosen !== AUTO_DETECT) {
		if (!DATA_TERM_TYPES.includes(chosen as DataTermType)) {
			return refuse({
				field: 'Term Type',
				reason: `"${chosen}" is not a term type`,
				hint: `Use one of: ${DATA_TERM_TYPES.join(', ')}, or auto-detect.`,
			});
		}
		termType = chosen as DataTermType;
	}
	const applied = termType ?? autoDetectTermType(term);

	const resolved: Record<string, DataTermType> = {};
	for (const platform of platforms.value) {
		const allowed = DATA_API_TERM_TYPES[platform] ?? [];
		if (!allowed.includes(applied)) {
			const how = termType
				? `Term Type ${applied} is applied to every platform`
				: `auto-detect reads "${term}" as ${applied}`;
			return refuse({
				field: 'Term Type',
				platform,
				reason: `${platformLabel(platform)} does not take ${applied} terms (${how}); it takes ${allowedText(platform)}`,
				hint: TERM_TYPE_HINTS[platform] ?? `Choose a Term Type ${platformLabel(platform)} takes, or search it in a node of its own.`,
			});
		}
		resolved[platform] = applied;
	}

	if (applied === 'reviews' && (/^[#@]/.test(term) || /\s/.test(term))) {
		return refuse({
			field: 'Term',
			platform: 'Google',
			reason: `Google reviews take a place ID, and "${term}" is not one`,
			hint: TERM_TYPE_HINTS.Google,
		});
	}

	return { ok: true, value: { term, platforms: platforms.value, termType, resolved } };
}

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

/** A refusal as one sentence naming the field, the item and the platform. */
export function describeRefusal(refusal: InputRefusal, itemIndex: number): string {
	const platform = refusal.platform ? `, platform ${refusal.platform}` : '';
	return `Invalid ${refusal.field} (item ${itemIndex}${platform}): ${refusal.reason}`;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkEmail(value: unknown): Checked<string> {
	const email = String(value ?? '').trim();
	if (!EMAIL.test(email)) {
		return refuse({
			field: 'Email',
			reason: email ? `"${email}" is not an email address` : 'the email is empty',
		});
	}
	return { ok: true, value: email };
}

/** A base URL typed by the user: http(s), no trailing slash. */
export function checkBaseUrl(value: unknown): Checked<string> {
	const url = String(value ?? '').trim().replace(/\/+$/, '');
	if (!/^https?:\/\/[^\s/]+/i.test(url)) {
		return refuse({
			field: 'Base URL',
			reason: url ? `"${url}" is not an http(s) address` : 'the base URL is empty',
			hint: 'Enter the address of the API including /v1, for example https://api.example.com/v1.',
		});
	}
	return { ok: true, value: url };
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
