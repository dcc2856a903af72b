import type { IDataObject } from 'n8n-workflow';

/** General helpers every module may use; they import nothing of the package. */

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text from the service, trimmed; nothing when it is blank or not text (an object would read "[object Object]"). */
export function nonBlankText(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A value left empty: missing, null, or the empty text (a field cleared, an expression that gave nothing, no body). */
export function isEmptyValue(value: unknown): value is undefined | null | '' {
	return value === undefined || value === null || value === '';
}

/** Whether a text is an ID of the service: digits only (a record's ID, in a path or a body). */
export function isDigits(text: string): boolean {
	return /^\d+$/.test(text);
}

/** An ID of digits as a number where a number holds it exactly; as its text otherwise (past 2^53, or not digits). */
export function idValue(text: string): number | string {
	return isDigits(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
}

/** "1 attempt", "3 attempts". */
export function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A record's identity in a list or a memory: a feed post's feed and ID, else platform and platform_id or URL (the Data Trigger stores these). */
export function recordKey(post: { [key: string]: unknown }): string | undefined {
	if (typeof post.id === 'number' || typeof post.id === 'string') {
		return post.feed_id === undefined ? String(post.id) : `${String(post.feed_id)}:${String(post.id)}`;
	}
	const platform = String(post.platform ?? '').toLowerCase();
	if (post.platform_id !== undefined && post.platform_id !== null && String(post.platform_id) !== '') {
		return `${platform}:id:${String(post.platform_id)}`;
	}
	if (post.url) return `${platform}:url:${String(post.url)}`;
	return undefined;
}

/** Sets `key` as the newest entry of a process-wide map, dropping the oldest past `limit` entries; returns the one dropped. */
export function keepRecent<V>(map: Map<string, V>, key: string, value: V, limit: number): [string, V] | undefined {
	map.delete(key);
	map.set(key, value);
	if (map.size <= limit) return undefined;
	const oldest = map.entries().next().value as [string, V];
	map.delete(oldest[0]);
	return oldest;
}

/** A response header by name, whatever its case; the first value of a repeated one; nothing when it holds no text. */
export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
	const value = Array.isArray(found) ? found[0] : found;
	return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}
