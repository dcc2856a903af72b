import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { refuse, validOrThrow, type Checked } from './refusal';
import { DEFAULT_MAX_WAIT_MS, type RetryPolicy } from './retry';
import { isEmptyValue } from './utils';

/** The option under Request Options that bounds how long one request may wait for its retries. */
export const MAX_RETRY_WAIT_FIELD = 'Max Retry Wait (Seconds)';

// The default is DEFAULT_MAX_WAIT_MS in seconds, written out as n8n's lint wants a literal.
const maxRetryWaitOption: INodeProperties = {
	displayName: MAX_RETRY_WAIT_FIELD,
	name: 'maxRetryWait',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 300,
	description:
		'The longest one request may wait, in all, to be sent again after a rate limit (HTTP 429) or a passing failure. When the rate limit is reached the node waits until the service lets it go on (the time the service asks, else a minute) and continues where it stopped, so a long-running execution is waiting, not stuck.',
};

/** The option under Request Options that lets a Return All wait for the key's rate-limit budget, up to a cap. */
export const BUDGET_WAIT_FIELD = 'Wait for Rate Limit Budget (Seconds)';

const budgetWaitOption: INodeProperties = {
	displayName: BUDGET_WAIT_FIELD,
	name: 'budgetWait',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 0,
	description:
		"0: a Return All that needs more requests than the key's rate limit allows this hour is refused after its first page. Above 0: it waits, up to this many seconds in all, for the hour to free up, and finishes with every item. The execution log says when it waits.",
};

/** A number of seconds of 0 or more under Request Options, in milliseconds; undefined when left empty. */
function millisecondsFrom(raw: unknown, field: string, hint: string): Checked<number | undefined> {
	if (isEmptyValue(raw)) return { ok: true, value: undefined };
	const seconds = Number(raw);
	if (!Number.isFinite(seconds) || seconds < 0) {
		return refuse({ field, reason: `${String(raw)} is not a number of seconds of 0 or more`, hint });
	}
	return { ok: true, value: Math.round(seconds * 1000) };
}

/** The most a run may wait for the key's budget (Request Options, seconds), in milliseconds; 0 when it may not. */
export function budgetWaitFrom(options: { budgetWait?: unknown } | undefined): Checked<number> {
	const hint = 'Leave it at 0 to be told when a Return All does not fit the rate limit, or allow the wait it names.';
	const checked = millisecondsFrom(options?.budgetWait, BUDGET_WAIT_FIELD, hint);
	return checked.ok ? { ok: true, value: checked.value ?? 0 } : checked;
}

/** The retry policy the user chose under Request Options (`maxRetryWait`, in seconds). */
export function retryPolicyFrom(options: { maxRetryWait?: unknown } | undefined): Checked<Partial<RetryPolicy>> {
	const hint = `Leave it at ${DEFAULT_MAX_WAIT_MS / 1000} unless runs must fail sooner or may wait longer.`;
	const checked = millisecondsFrom(options?.maxRetryWait, MAX_RETRY_WAIT_FIELD, hint);
	if (!checked.ok) return checked;
	return { ok: true, value: checked.value === undefined ? {} : { maxTotalWaitMs: checked.value } };
}

/** Request Options: the programmatic node's own; the declarative node's, into which n8n merges its own options. */
export const requestOptionsCollection: INodeProperties = {
	displayName: 'Request Options',
	name: 'requestOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [maxRetryWaitOption, budgetWaitOption],
};

/** The budget wait an item of a programmatic node allows (milliseconds), checked before any request. */
export function itemBudgetWait(this: IExecuteFunctions, itemIndex: number): number {
	return validOrThrow(this.getNode(), budgetWaitFrom(this.getNodeParameter('requestOptions', itemIndex, {}) as IDataObject), itemIndex);
}

/** The retry policy an item of a programmatic node asks for, checked before any request. */
export function itemRetryPolicy(this: IExecuteFunctions, itemIndex: number): Partial<RetryPolicy> {
	return validOrThrow(this.getNode(), retryPolicyFrom(this.getNodeParameter('requestOptions', itemIndex, {}) as IDataObject), itemIndex);
}
