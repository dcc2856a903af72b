import { NodeOperationError } from 'n8n-workflow';
import type { DeclarativeRestApiSettings, IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';

import { checkEmail, eventList, locatorValue, toList } from '../../shared/input';
import { idValue, isDigits, isObject } from '../../shared/utils';
import { allowHttpOption, webhookUrlProblem } from '../../shared/webhookUrl';
import { addDays, dateIn, toCalendarDate, toInstant } from './dates';

// Prepare steps: input checks that name the field and the item before any request, and the request changes
// routing expressions cannot make well.

export type RequestOptions = DeclarativeRestApiSettings.HttpRequestOptions;

/** A step before the request: a check that names the field and the item, or a change routing cannot make. */
export type Prepare = (
	this: IExecuteSingleFunctions,
	request: RequestOptions,
	itemIndex: number,
) => void | Promise<void>;

function fail(
	context: IExecuteSingleFunctions,
	itemIndex: number,
	message: string,
	description?: string,
): never {
	throw new NodeOperationError(context.getNode(), `${message} [item ${itemIndex}]`, { itemIndex, description });
}

/** The plain value of a parameter, whether a resource locator or not. */
export function parameterText(this: IExecuteSingleFunctions, name: string): string {
	return locatorValue(this.getNodeParameter(name, '', { extractValue: true })).trim();
}

/** Sets a body property, or leaves it out when there is no value. */
function setBody(request: RequestOptions, property: string, value: IDataObject[string]): void {
	if (!isObject(request.body)) request.body = {};
	const body = request.body as IDataObject;
	if (value === undefined) delete body[property];
	else body[property] = value;
}

/** A check of a parameter's text, naming the item. */
type Check = (this: IExecuteSingleFunctions, value: string, itemIndex: number) => void;

/** Text that must not be empty (`emptyHint` says what to enter), then passes `check`. */
function requireValue(parameter: string, label: string, emptyHint?: string, check?: Check): Prepare {
	return function (this: IExecuteSingleFunctions, _request, itemIndex) {
		const value = parameterText.call(this, parameter);
		if (value === '') fail(this, itemIndex, `The ${label} is empty`, emptyHint);
		check?.call(this, value, itemIndex);
	};
}

/** A numeric ID in a parameter (plain, or a resource locator's value); `socialAccountId` is the "Social Account ID". */
export function requireId(parameter: string): Prepare {
	const words = parameter.replace(/Id$/, '').replace(/([a-z])([A-Z])/g, '$1 $2');
	const label = `${words[0].toUpperCase()}${words.slice(1)} ID`;
	return requireValue(parameter, label, `Enter the ${label}, a number such as 42.`, function (value, itemIndex) {
		if (!isDigits(value)) {
			fail(this, itemIndex, `The ${label} must be a number, not "${value}"`, `Enter the numeric ${label}, such as 42.`);
		}
	});
}

/** Text that must not be empty. */
export function requireText(parameter: string, label: string): Prepare {
	return requireValue(parameter, label, `Enter a value in the "${label}" field.`);
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

export function requireEmail(parameter: string, label: string): Prepare {
	return requireValue(parameter, label, undefined, function (value, itemIndex) {
		if (!checkEmail(value).ok) fail(this, itemIndex, `The ${label} "${value}" is not an email address`);
	});
}

/** A web address; https only when `allowHttpPath` names an option that is off. */
function urlCheck(label: string, allowHttpPath: string | undefined): Check {
	return function (value, itemIndex) {
		const allowHttp = allowHttpPath === undefined || this.getNodeParameter(allowHttpPath, false) === true;
		const problem = webhookUrlProblem(value, allowHttp);
		if (problem === 'invalid') {
			fail(this, itemIndex, `The ${label} "${value}" is not a web address`, 'Enter a full address such as https://example.com/hooks/social.');
		}
		if (problem === 'http') {
			fail(
				this,
				itemIndex,
				`The ${label} "${value}" is not an HTTPS address: the service delivers webhooks to https:// addresses only`,
				`Use the https:// address of the receiver. For a local test service that accepts plain http, turn on "${allowHttpOption.displayName}" under Options.`,
			);
		}
	};
}

export function requireUrl(parameter: string, label: string, allowHttpPath?: string): Prepare {
	return requireValue(parameter, label, undefined, urlCheck(label, allowHttpPath));
}

/** An update collection: at least one field, each valid, and one a change in the body (after steps that fill it). */
export function requireUpdateFields(
	parameter: string,
	labels: Record<string, string>,
	allowHttpPath?: string,
): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const value = this.getNodeParameter(parameter, {}) as unknown;
		const fields: IDataObject = isObject(value) ? value : {};
		if (Object.keys(fields).length === 0) {
			fail(this, itemIndex, 'Nothing to update', `Add at least one field under "Update Fields": ${Object.values(labels).join(', ')}.`);
		}
		if ('name' in fields && String(fields.name ?? '').trim() === '') fail(this, itemIndex, `The ${labels.name ?? 'Name'} is empty`);
		if ('url' in fields) {
			urlCheck(labels.url ?? 'URL', allowHttpPath).call(this, String(fields.url ?? '').trim(), itemIndex);
		}
		const body = request.body;
		if (typeof body !== 'object' || body === null || Object.keys(body).length === 0) {
			fail(this, itemIndex, 'Nothing to update', 'Give a value to at least one field under "Update Fields".');
		}
	};
}

/** Numeric IDs chosen in a multi-select (or typed, comma-separated, or an expression's list), sent as an array of numbers. */
export function bodyIdList(parameterPath: string, property: string, label: string, options: { required?: boolean } = {}): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const values = toList(this.getNodeParameter(parameterPath, []));
		if (values.length === 0 && options.required) {
			fail(this, itemIndex, `No ${label} given`, 'Enter at least one, such as 1001, or several separated by commas.');
		}
		const wrong = values.find((value) => !isDigits(value));
		if (wrong !== undefined) fail(this, itemIndex, `The ${label} must be numbers, not "${wrong}"`);
		setBody(request, property, values.length > 0 ? values.map(idValue) : undefined);
	};
}

/** An optional numeric ID (from an options collection) sent as a number. */
export function bodyOptionalId(parameterPath: string, property: string, label: string): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const value = String(this.getNodeParameter(parameterPath, '') ?? '').trim();
		if (value !== '' && !isDigits(value)) fail(this, itemIndex, `The ${label} must be a number, not "${value}"`);
		setBody(request, property, value === '' ? undefined : idValue(value));
	};
}

/** Event names chosen from the list plus any typed in (comma-separated), without repeats. */
export function bodyEvents(listPath: string, otherPath: string, options: { required: boolean }): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const events = eventList(this.getNodeParameter(listPath, []), this.getNodeParameter(otherPath, ''));
		if (events.length === 0 && options.required) {
			fail(this, itemIndex, 'No events chosen', 'Choose at least one event, or type one under "Other Events".');
		}
		setBody(request, 'subscribed_events', events.length > 0 ? events : undefined);
	};
}

/** A JSON object typed into a field, sent as an object. */
export function bodyJsonObject(parameterPath: string, property: string, label: string): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const raw = this.getNodeParameter(parameterPath, null) as unknown;
		let value = raw === '' || raw === null ? undefined : raw;
		if (typeof value === 'string') {
			try {
				value = JSON.parse(value);
			} catch {
				fail(this, itemIndex, `The ${label} is not valid JSON`, 'Enter a JSON object, such as {"include_replies": false}.');
			}
		}
		if (value !== undefined && !isObject(value)) {
			fail(this, itemIndex, `The ${label} must be a JSON object`, 'Enter a JSON object, such as {"include_replies": false}.');
		}
		setBody(request, property, value as IDataObject | undefined);
	};
}

interface DateField {
	path: string;
	label: string;
	property: string;
}

/**
 * Two date filters read in the workflow's time zone by `read` (a Date, or a `YYYY-MM-DD` date), the second not
 * before the first; with `defaultDays`, an empty end is today and an empty start that many days before the end.
 */
function queryRange(
	from: DateField,
	to: DateField,
	read: (value: unknown, timeZone: string) => Date | string | null | undefined,
	hint: string,
	defaultDays?: number,
): Prepare {
	return function (this: IExecuteSingleFunctions, request, itemIndex) {
		const timeZone = this.getTimezone();
		const value = (field: DateField) => {
			const date = read(this.getNodeParameter(field.path, '') as unknown, timeZone);
			if (date === null) fail(this, itemIndex, `The ${field.label} is not a date`, hint);
			return date;
		};
		const text = (date: Date | string) => (typeof date === 'string' ? date : date.toISOString());
		let start = value(from);
		let end = value(to);
		if (defaultDays !== undefined) {
			end ??= dateIn(timeZone, new Date());
			start ??= addDays(text(end), -defaultDays);
		}
		if (start && end && end < start) {
			fail(this, itemIndex, `The ${to.label} (${text(end)}) is before the ${from.label} (${text(start)})`);
		}
		// An empty one stays undefined, which the sender leaves out.
		request.qs = { ...request.qs, [from.property]: start && text(start), [to.property]: end && text(end) };
	};
}

/** Date-time filters sent as ISO 8601 instants; an empty one is left out. */
export function queryDateTimeRange(from: DateField, to: DateField): Prepare {
	return queryRange(from, to, toInstant, 'Pick a date, or give an ISO 8601 date-time such as 2025-01-31T18:00:00.');
}

/** A date range sent as `YYYY-MM-DD` dates, each defaulting when empty (see `sendRange`). */
export function queryDateRange(from: DateField, to: DateField, defaultDays: number): Prepare {
	return queryRange(from, to, toCalendarDate, 'Pick a date, or give one as YYYY-MM-DD.', defaultDays);
}
