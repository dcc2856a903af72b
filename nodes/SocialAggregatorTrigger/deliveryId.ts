/** An id as text: a non-empty string, or a number's digits. */
export function idText(id: unknown): string | undefined {
	if (typeof id === 'string' && id !== '') return id;
	return typeof id === 'number' ? String(id) : undefined;
}

const CAUGHT_UP_PREFIX = 'catch-up:';

/** The event ID of a post a catch-up read from a feed: the same however often, or by whichever look back, it is read. */
export function caughtUpId(feedId: unknown, postId: unknown): string {
	return `${CAUGHT_UP_PREFIX}${String(feedId)}:${String(postId)}`;
}

/** Whether an event ID is a caught-up post's (`caughtUpId`). */
export function isCaughtUpId(id: string): boolean {
	return id.startsWith(CAUGHT_UP_PREFIX);
}

/**
 * Keys (a string and its colon), other strings, brackets and bare values (numbers, true, null), in order. A string is
 * matched as runs of plain characters between escapes: one alternation per character recurses in the regex engine and
 * overflows its stack on a string of a few megabytes, which a delivery under the size cap may hold.
 */
const JSON_TOKEN = /("[^"\\]*(?:\\.[^"\\]*)*")\s*:|"[^"\\]*(?:\\.[^"\\]*)*"|[[\]{}]|[^\s,:[\]{}"]+/g;

/**
 * The top-level `id` as written, the last one when the key comes twice (as JSON.parse reads it):
 * JSON.parse rounds a number past 2^53, so two deliveries could share one. `number` tells a
 * number from a text of digits.
 */
export function rawIdToken(raw: string): { text: string; number: boolean } | undefined {
	let depth = 0;
	let idNext = false;
	let found: { text: string; number: boolean } | undefined;
	for (const [token, key] of raw.matchAll(JSON_TOKEN)) {
		if (idNext) {
			idNext = false;
			const text = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(token)
				? token
				: token.startsWith('"') ? idText(JSON.parse(token)) : undefined;
			found = text === undefined ? undefined : { text, number: !token.startsWith('"') };
			if (token === '{' || token === '[') depth++;
			continue;
		}
		if (token === '{' || token === '[') depth++;
		else if (token === '}' || token === ']') depth--;
		else idNext = depth === 1 && key !== undefined && JSON.parse(key) === 'id';
	}
	return found;
}
