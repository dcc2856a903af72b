import { refuse, type Checked } from './refusal';
import { isObject } from './utils';

/** Checks of plain inputs both action nodes take; pure, answering a `Checked` value. */

/** A list parameter that may arrive as an array (the multi-select) or as comma-separated text (an expression). */
export function toList(value: unknown): string[] {
	const raw = Array.isArray(value) ? value.map((v) => String(v ?? '')) : String(value ?? '').split(',');
	return raw.map((v) => v.trim()).filter((v) => v !== '');
}

/** `toList` of a multi-select or text; any other value (an object, a boolean, a number) names nothing. */
function textList(value: unknown): string[] {
	return typeof value === 'string' || Array.isArray(value) ? toList(value) : [];
}

/**
 * Feed Names or IDs as the triggers read it: a multi-select, comma-separated text (an expression) or one number, each
 * ID once, as text, in the order given (a feed typed twice is read once: its catch-up emits each post once); any other
 * value (an object, a boolean) names no feed.
 */
export function feedIdList(value: unknown): string[] {
	return [...new Set(textList(typeof value === 'number' ? String(value) : value))];
}

/** Events chosen in a multi-select and typed in as text, without repeats. */
export function eventList(chosen: unknown, typed: unknown): string[] {
	return [...new Set([...textList(chosen), ...textList(typed)])];
}

/** A Limit as typed or computed by an expression: a whole number of 1 or more. */
export function checkLimit(value: unknown): Checked<number> {
	const limit = Number(value);
	if (typeof value === 'boolean' || value === '' || value === null || !Number.isInteger(limit) || limit < 1) {
		return refuse({
			field: 'Limit',
			reason: `${JSON.stringify(value) ?? String(value)} is not a whole number of 1 or more`,
			hint: 'Set Limit to how many results you want, or turn on Return All.',
		});
	}
	return { ok: true, value: limit };
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

/** A parameter's value whether it is plain or a resource locator. */
export function locatorValue(value: unknown): string {
	const plain = isObject(value) && 'value' in value ? value.value : value;
	return plain === undefined || plain === null ? '' : String(plain);
}
