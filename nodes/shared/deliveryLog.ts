import type { IAllExecuteFunctions } from 'n8n-workflow';

import { listAnswer } from './answerShapes';
import { findInPages } from './pages';
import type { RetryPolicy } from './retry';
import { apiRequestChecked, apiRequestFull } from './transport';

// A subscription's delivery log and its redelivery (docs/service.md#delivery-log): the most likely paths, not
// confirmed, so a 404 may mean the service does not offer them. Read here for every node that uses the log.

/** The delivery statuses the log's `status` filter takes. */
export const DELIVERY_STATUSES = ['failed', 'pending', 'succeeded'] as const;

/** The path of a subscription's delivery log. */
export function deliveriesPath(webhookId: string): string {
	return `/webhooks/${encodeURIComponent(webhookId)}/deliveries`;
}

/** The path that asks for one delivery of the log again. */
export function redeliveryPath(webhookId: string, deliveryId: string): string {
	return `${deliveriesPath(webhookId)}/${encodeURIComponent(deliveryId)}/redeliver`;
}

interface LookupOptions {
	itemIndex?: number;
	retry?: Partial<RetryPolicy>;
}

/** Whether the account has the subscription, found in `GET /webhooks` (the live service has no `GET /webhooks/{id}`). */
async function subscriptionListed(
	this: IAllExecuteFunctions,
	webhookId: string,
	options: LookupOptions = {},
): Promise<boolean> {
	const fetchPage = async (page: number, perPage: number) =>
		await apiRequestChecked(this, { method: 'GET', path: '/webhooks', qs: { page, per_page: perPage }, ...options }, listAnswer);
	return (await findInPages(fetchPage, webhookId)) !== undefined;
}

/** Whether the service answers the delivery log of a subscription that exists: a 404 there is a route it lacks. */
async function deliveryLogOffered(
	this: IAllExecuteFunctions,
	webhookId: string,
	options: LookupOptions = {},
): Promise<boolean> {
	const path = deliveriesPath(webhookId);
	const answer = await apiRequestFull.call(this, { method: 'GET', path, qs: { page: 1, per_page: 1 }, acceptStatuses: [404], ...options });
	return answer.statusCode !== 404;
}

/** What a 404 of a delivery-log route meant. */
export type DeliveryLogMiss = 'noSubscription' | 'noLog' | 'noDelivery';

/**
 * The reason for a 404 of the log (`redelivery` false) or of a redelivery. Its body cannot tell: the service answers a
 * route it lacks with the same `not_found` envelope as a record it lacks in some shapes. So the subscription is looked
 * for in the list; when it exists, the log's own 404 is the route, and a redelivery's is the route only when the log
 * answers 404 too (else the delivery is not in the log).
 */
export async function deliveryLogMiss(
	this: IAllExecuteFunctions,
	webhookId: string,
	redelivery: boolean,
	options: LookupOptions = {},
): Promise<DeliveryLogMiss> {
	if (!(await subscriptionListed.call(this, webhookId, options))) return 'noSubscription';
	if (!redelivery) return 'noLog';
	return (await deliveryLogOffered.call(this, webhookId, options)) ? 'noDelivery' : 'noLog';
}

/** The words for a service that keeps no delivery log: what was asked, what it answered, what to do instead. */
export function noDeliveryLogMessage(webhookId: string): string {
	return `The service keeps no delivery log for webhook ${webhookId}: it answers 404 to GET ${deliveriesPath(webhookId)} although the subscription exists, so there are no deliveries to list or redeliver. Posts a paused or disabled subscription missed can be read with Post › Get Many.`;
}
