import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';

import { checkEmail, toList } from '../shared/input';
import { allowHttpOption } from '../shared/webhookUrl';
import { addDays, dateIn, toCalendarDate, toInstant } from './dates';
import { parameterText, type Prepare, type RequestOptions } from './routing';

/*
 * Prepare steps: input checks that name the field and the item, run before any
 * request, and the request changes that routing expressions cannot make well.
 */

const ID = /^\d+$/;

function fail(
	context: IExecuteSingleFunctions,
	itemIndex: number,
	message: string,
	description?: string,
): never {
	throw new NodeOperationError(context.getNode(), `${message} [item ${itemIndex}]`, { itemIndex, description });
}

function collection(context: IExecuteSingleFunctions, name: string): IDataObject {
	const value = context.getNodeParameter(name, {}) as unknown;
	return typeof value === 'object' && value !== null ? (value as IDataObject) : {};
}

function bodyOf(request: RequestOptions): IDataObject {
	if (typeof request.body !== 'object' || request.body === null || Array.isArray(request.body)) request.body = {};
	return request.body as IDataObject;
}

function qsOf(request: RequestOptions): IDataObject {
	if (!request.qs) request.qs = {};
	return request.qs;
}

/** A numeric ID in a parameter (plain, or a resource locator's value). */
export function requireId(parameter: string, label: string): Prepare {
	return function (this: IExecuteSingleFunctions, _request, itemIndex) {
		const value = parameterText.call(this, parameter);
		if (value === '') fail(this, itemIndex, `The ${label} is empty`, `Enter the ${label}, a number such as 42.`);
		if (!ID.test(value)) {
			fail(this, itemIndex, `The ${label} must be a number, not "${value}"`, `Enter the numeric ${label}, such as 42.`);
		}
	};
}

/** Text that must not be empty. */
export function requireText(parameter: string, label: string): Prepare {
	return function (this: IExecuteSingleFunctions, _request, itemIndex) {
		if (parameterText.call(this, parameter) === '') {
			fail(this, itemIndex, `The ${label} is empty`, `Enter a value in the "${label}" field.`);
		}
	};
}

/** One of the values the service knows (an options field can get any text through an expression). */
export function requireOneOf(parameter: string, label: string, values: string[]): Prepare {
	return function (this: IExecuteSingleFunctions, _request, itemIndex) {
		const value = parameterText.call(this, parameter);
		if (!values.includes(value)) {
			fail(this, itemIndex, `The ${label} must be ${values.map((v) => `"${v}"`).join(' or ')}, not "${value}"`);
		}
	};
}

/** An email address. */
export function requireEmail(parameter: string, label: string): Prepare {
	return function (this: IExecuteSingleFunctions, _request, itemIndex) {
		const value = parameterText.call(this, parameter);
		if (value === '') fail(this, itemIndex, `The ${label} is empty`);
		if (!checkEmail(value).ok) {
			fail(this, itemIndex, `The ${label} "${value}" is not an email address`);
		}
	};
}

/** Whether the user allowed a plain http:// webhook URL (the option at `allowHttpPath`). */
function httpAllowed(context: IExecuteSingleFunctions, allowHttpPath: string | undefined): boolean {
	return allowHttpPath === undefined || context.getNodeParameter(allowHttpPath, false) === true;
}

function checkUrl(
	context: IExecuteSingleFunctions,
	itemIndex: number,
	value: string,
	label: string,
	allowHttp = true,
) {
	let url: URL | undefined;
	try {
		url = new URL(value);
	} catch {
		url = undefined;
	}
	if (!url || !['http:', 'https:'].includes(url.protocol)) {
		fail(context, itemIndex, `The ${label} "${value}" is not a web address`, 'Enter a full address such as https://example.com/hooks/social.');
	}
	if (!allowHttp && url.protocol !== 'https:') {
		fail(
			context,
			itemIndex,
			`The ${label} "${value}" is not an HTTPS address: the service delivers webhooks to https:// addresses only`,
			`Use the https:// address of the receiver. For a local test service that accepts plain http, turn on "${allowHttpOption.displayName}" under Options.`,
		);
	}
}

/** A web address; with `allowHttpPath`, an https one unless that option allows plain http. */
export function requireUrl(parameter: string, label: string, allowHttpPath?: string): Prepare {
	return function (this: IExecuteSingleFunctions, _request, itemIndex) {
		const value = parameterText.call(this, parameter);
		if (value === '') fail(this, itemIndex, `The ${label} is empty`);
		checkUrl(this, itemIndex, value, label, httpAllowed(this, allowHttpPath));
	};
}

/** Checks the fields of an update collection: at least one, and each of them valid. */
export function requireUpdateFields(
	parameter: string,
	labels: Record<string, string>,
	allowHttpPath?: string,
): Prepare {
	return function (this: IExecuteSingleFunctions, _request, itemIndex) {
		const fields = collection(this, parameter);
		if (Object.keys(fields).length === 0) {
			fail(this, itemIndex, 'Nothing to update', `Add at least one field under "Update Fields": ${Object.values(labels).join(', ')}.`);
		}
		if ('name' in fields && String(fields.name ?? '').trim() === '') fail(this, itemIndex, `The ${labels.name ?? 'Name'} is empty`);
		if ('url' in fields) {
			checkUrl(this, itemIndex, String(fields.url ?? '').trim(), labels.url ?? 'URL', httpAllowed(this, allowHttpPath));
		}
	};
}

/** After the other steps: the request must carry at least one field to change. */
export function requireChanges(collectionLabel: string): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const body = request.body;
		if (typeof body !== 'object' || body === null || Object.keys(body).length === 0) {
			fail(this, itemIndex, 'Nothing to update', `Give a value to at least one field under "${collectionLabel}".`);
		}
	};
}

/** Numeric IDs chosen in a multi-select (or typed as an expression), sent as an array of numbers. */
export function sendIdList(parameterPath: string, property: string, label: string): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const values = toList(this.getNodeParameter(parameterPath, []));
		const wrong = values.find((value) => !ID.test(value));
		if (wrong !== undefined) fail(this, itemIndex, `The ${label} must be numbers, not "${wrong}"`);
		const body = bodyOf(request);
		if (values.length > 0) body[property] = values.map(Number);
		else delete body[property];
	};
}

/** An optional numeric ID (from an options collection) sent as a number. */
export function sendOptionalId(parameterPath: string, property: string, label: string): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const raw = this.getNodeParameter(parameterPath, '') as unknown;
		const value = String(raw ?? '').trim();
		const body = bodyOf(request);
		if (value === '') {
			delete body[property];
			return;
		}
		if (!ID.test(value)) fail(this, itemIndex, `The ${label} must be a number, not "${value}"`);
		body[property] = Number(value);
	};
}

/** Event names chosen from the list plus any typed in (comma-separated), without repeats. */
export function sendEvents(listPath: string, otherPath: string, options: { required: boolean }): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const chosen = toList(this.getNodeParameter(listPath, []));
		const events = [...new Set([...chosen, ...toList(this.getNodeParameter(otherPath, ''))])];
		const body = bodyOf(request);
		if (events.length > 0) {
			body.subscribed_events = events;
		} else if (options.required) {
			fail(this, itemIndex, 'No events chosen', 'Choose at least one event, or type one under "Other Events".');
		} else {
			delete body.subscribed_events;
		}
	};
}

/** A JSON object typed into a field, sent as an object. */
export function sendJsonObject(parameterPath: string, property: string, label: string): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const raw = this.getNodeParameter(parameterPath, null) as unknown;
		const body = bodyOf(request);
		if (raw === undefined || raw === '' || raw === null) {
			delete body[property];
			return;
		}
		let value: unknown = raw;
		if (typeof raw === 'string') {
			try {
				value = JSON.parse(raw);
			} catch {
				fail(this, itemIndex, `The ${label} is not valid JSON`, 'Enter a JSON object, such as {"include_replies": false}.');
			}
		}
		if (typeof value !== 'object' || value === null || Array.isArray(value)) {
			fail(this, itemIndex, `The ${label} must be a JSON object`, 'Enter a JSON object, such as {"include_replies": false}.');
		}
		body[property] = value as IDataObject;
	};
}

/**
 * Two date-time filters sent as ISO 8601 instants (zone-less picker values read
 * in the workflow's time zone); the second may not come before the first.
 */
export function sendDateTimeRange(
	from: { path: string; label: string; property: string },
	to: { path: string; label: string; property: string },
): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const timeZone = this.getTimezone();
		const read = (field: typeof from) => {
			const instant = toInstant(this.getNodeParameter(field.path, '') as unknown, timeZone);
			if (instant === null) {
				fail(this, itemIndex, `The ${field.label} is not a date`, 'Pick a date, or give an ISO 8601 date-time such as 2025-01-31T18:00:00.');
			}
			return instant;
		};
		const start = read(from);
		const end = read(to);
		if (start && end && end.getTime() < start.getTime()) {
			fail(this, itemIndex, `The ${to.label} (${end.toISOString()}) is before the ${from.label} (${start.toISOString()})`);
		}
		const qs = qsOf(request);
		if (start) qs[from.property] = start.toISOString();
		else delete qs[from.property];
		if (end) qs[to.property] = end.toISOString();
		else delete qs[to.property];
	};
}

/**
 * A date range sent as `YYYY-MM-DD` dates, each defaulting when empty: the
 * end to today in the workflow's time zone, the start to `defaultDays` days
 * before the end. The end may not come before the start.
 */
export function sendDateRange(
	from: { path: string; label: string; property: string },
	to: { path: string; label: string; property: string },
	defaultDays: number,
): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const timeZone = this.getTimezone();
		const today = dateIn(timeZone, new Date());
		const read = (field: typeof from) => {
			const date = toCalendarDate(this.getNodeParameter(field.path, '') as unknown, timeZone);
			if (date === null) {
				fail(this, itemIndex, `The ${field.label} is not a date`, 'Pick a date, or give one as YYYY-MM-DD.');
			}
			return date;
		};
		const end = read(to) ?? today;
		const start = read(from) ?? addDays(end, -defaultDays);
		if (end < start) fail(this, itemIndex, `The ${to.label} (${end}) is before the ${from.label} (${start})`);
		const qs = qsOf(request);
		qs[from.property] = start;
		qs[to.property] = end;
	};
}
