import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IExecutePaginationFunctions, INodeExecutionData, INodePropertyRouting } from 'n8n-workflow';

import { deliveryLogMiss, noDeliveryLogMessage } from '../../shared/deliveryLog';
import { errorItem, toNodeError } from '../../shared/errors';
import { webhookEventKinds } from '../../shared/loadOptions';
import { retryPolicyFrom } from '../../shared/requestOptions';
import { idValue, isObject } from '../../shared/utils';
import { parameterText, type Prepare } from './checks';
import { outputItems, route, type After, type OperationRunner, type RouteSpec } from './routing';

// Webhook › Get Deliveries, Redeliver and Get Event Kinds: the parts of the webhook API the service names without
// confirming their paths or shapes (docs/service.md#delivery-log, docs/service.md#event-kinds).

/** An operation's routing with its runner wrapped by `wrap`, which is handed route()'s own runner to run. */
function wrapRunner(
	routing: INodePropertyRouting,
	wrap: (runOperation: OperationRunner) => OperationRunner,
): INodePropertyRouting {
	// route() sets the runner in n8n's pagination slot; the wrapped one takes its place there.
	const runOperation = routing.operations?.pagination as OperationRunner;
	return { ...routing, operations: { ...routing.operations, pagination: wrap(runOperation) } };
}

/** The delivery of Redeliver (an ID such as `dlv_…`, not a number) added to the path, encoded. */
export const pathDeliveryId: Prepare = function (request) {
	request.url = `${String(request.url)}/${encodeURIComponent(parameterText.call(this, 'deliveryId'))}/redeliver`;
};

/** A 404 as the route's path gives it: thrown, or with Continue On Fail its one error item. */
function isNotFound(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
}

function isNotFoundItem(items: INodeExecutionData[]): boolean {
	const details = items.length === 1 ? items[0].json.details : undefined;
	return typeof items[0]?.json.error === 'string' && isObject(details) && details.httpCode === '404';
}

/**
 * route() for the delivery log's routes (`redelivery`: Redeliver's), where the service may answer 404 for a route it
 * does not offer. A 404 for a subscription that exists becomes an item saying the service keeps no delivery log, with
 * `deliveryLogOffered: false`. An item rather than an error: the log is a part of the service some accounts or
 * versions lack, not a fault of this run, so a workflow built on it (a scheduled redelivery of failed deliveries, a
 * catch-up) runs to its end on such a service and can branch on that field, where an error would fail every run for
 * something the user cannot fix. A subscription or delivery that does not exist stays the 404 error.
 */
export function deliveryLogRoute(spec: RouteSpec, redelivery: boolean): INodePropertyRouting {
	return wrapRunner(route(spec), (runOperation) =>
		async function deliveryLogOperation(this: IExecutePaginationFunctions, requestData) {
			let items: INodeExecutionData[];
			try {
				items = await runOperation.call(this, requestData);
			} catch (error) {
				// The path's own errors, kept as they are (toNodeError returns an n8n error unchanged).
				const failure = toNodeError(this.getNode(), error, this.getItemIndex());
				if (!isNotFound(failure)) throw failure;
				return await afterNotFound.call(this, redelivery, () => {
					throw failure;
				});
			}
			return isNotFoundItem(items) ? await afterNotFound.call(this, redelivery, () => items) : items;
		},
	);
}

/** After a 404: the item that says the service keeps no log, or what the 404 gave (`answered`: thrown or the error item). */
async function afterNotFound(
	this: IExecutePaginationFunctions,
	redelivery: boolean,
	answered: () => INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const itemIndex = this.getItemIndex();
	const webhookId = parameterText.call(this, 'webhookId');
	// The path already checked Request Options; its retry policy bounds these look-ups too.
	const policy = retryPolicyFrom(this.getNodeParameter('requestOptions', {}) as IDataObject);
	const retry = policy.ok ? policy.value : {};
	let miss;
	try {
		miss = await deliveryLogMiss.call(this, webhookId, redelivery, { itemIndex, retry });
	} catch (error) {
		if (!this.continueOnFail()) throw toNodeError(this.getNode(), error, itemIndex);
		return [errorItem(this.getNode(), error, itemIndex)];
	}
	if (miss !== 'noLog') return answered();
	const record: IDataObject = { deliveryLogOffered: false, webhookId: idValue(webhookId), message: noDeliveryLogMessage(webhookId) };
	const output = redelivery ? { redelivered: false, ...record, deliveryId: parameterText.call(this, 'deliveryId') } : record;
	return outputItems([output], {}, itemIndex);
}

/**
 * Re-Enable's last step with Catch Up on: a test delivery, which a Social Aggregator Trigger at the subscription
 * answers by catching up on what the subscription missed while it delivered nothing (docs/exactly-once.md#catch-up).
 * The subscription is active again whatever this request meets, so its failure is told in the output, not thrown.
 */
export const requestCatchUp: After = async function (record, sendMore) {
	if (this.getNodeParameter('catchUp', true) === false) return record;
	const webhookId = parameterText.call(this, 'webhookId');
	try {
		await sendMore('POST', `/webhooks/${encodeURIComponent(webhookId)}/test`);
		return { ...record, catchUpRequested: true };
	} catch (error) {
		return { ...record, catchUpRequested: false, catchUpError: (error as Error).message };
	}
};

/** Redeliver's output: the service's answer, marked as redelivered. */
export async function markRedelivered(record: IDataObject): Promise<IDataObject> {
	return { redelivered: true, ...record };
}

/**
 * `GET /webhook_events` as a list in `data` (docs/service.md#event-kinds), from any legal shape (names or `{ name | event, description }`, in
 * `data` or not), read as the events dropdown reads it: one record `{ name, description }` per kind.
 */
export function eventKindsAnswer(body: unknown): unknown {
	const kinds = webhookEventKinds(body);
	if (!kinds) return body;
	return { data: kinds.map(({ value, description }) => ({ name: value, ...(description ? { description } : {}) })) };
}
