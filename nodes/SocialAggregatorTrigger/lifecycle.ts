import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { eventList } from '../shared/input';
import { collectPages, findInPages } from '../shared/pages';
import { webhookUrlProblem } from '../shared/webhookUrl';
import { listAnswer, objectAnswer } from '../shared/answerShapes';
import { apiRequest, apiRequestChecked, apiRequestFull } from '../shared/transport';
import type { WebhookSubscription } from '../shared/types';
import { isObject, keepRecent } from '../shared/utils';
import { catchUpDays } from './delivery';

/** A subscription this trigger registered: what is needed to check it and verify its deliveries. */
interface StoredSubscription extends IDataObject {
	id: string;
	secret: string;
	url: string;
	events: string[];
	/** Made for n8n's test URL ("Listen for test event"). */
	test: boolean;
	/** When it was made (ms; the service's `created_at`, else this n8n's clock): no delivery of it came before. */
	createdAt?: number;
}

type Slot = 'live' | 'test';

type Stored = { live?: StoredSubscription; test?: StoredSubscription };

/** Secrets this process registered: n8n attaches a test webhook's static data only after create() returns. */
const secretsRegisteredHere = new Map<string, string>();

/** How many subscriptions the copy keeps, the oldest dropped first. */
const SECRETS_KEPT = 200;

/** This trigger node in this workflow: the key of what a process keeps for it. */
export function triggerKey(ctx: Pick<IExecuteFunctions, 'getWorkflow' | 'getNode'>): string {
	return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`;
}

/** The secrets a delivery may be signed with: this mode's subscription first, then the other, then ours. */
export function deliverySecrets(ctx: IWebhookFunctions, manual: boolean): Array<string | undefined> {
	const { live, test } = storedSubscriptions(ctx);
	const ordered = manual ? [test, live] : [live, test];
	return [...ordered.map((s) => s?.secret), secretsRegisteredHere.get(`${triggerKey(ctx)}:${manual ? 'test' : 'live'}`)];
}

/** The subscriptions kept in this node's static data. */
function storedSubscriptions(ctx: IHookFunctions | IWebhookFunctions): Stored {
	const subscriptions = ctx.getWorkflowStaticData('node').subscriptions;
	return isObject(subscriptions) ? (subscriptions as Stored) : {};
}

function setStored(ctx: IHookFunctions, slot: Slot, subscription: StoredSubscription | undefined): void {
	const next = { ...storedSubscriptions(ctx) };
	if (subscription) next[slot] = subscription;
	else delete next[slot];
	// Reassigning the key marks the static data as changed, so n8n saves it.
	ctx.getWorkflowStaticData('node').subscriptions = next;
}

/** Whether n8n is setting the webhook up for the editor's "Listen for test event". */
function isManual(ctx: IHookFunctions): boolean {
	return ctx.getMode() === 'manual' || ctx.getActivationMode() === 'manual';
}

/** The slot of the subscription for `url`: the one stored for it, else by mode. */
function slotFor(ctx: IHookFunctions, url: string): Slot {
	const { live, test } = storedSubscriptions(ctx);
	if (test?.url === url) return 'test';
	if (live?.url === url) return 'live';
	return isManual(ctx) ? 'test' : 'live';
}

function webhookUrl(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(ctx.getNode(), 'n8n did not give this trigger a webhook URL');
	return url;
}

function options(ctx: IHookFunctions): IDataObject {
	return (ctx.getNodeParameter('options', {}) as IDataObject) ?? {};
}

function desiredEvents(ctx: IHookFunctions): string[] {
	return eventList(ctx.getNodeParameter('events', []), options(ctx).additionalEvents).sort();
}

/** Refuses a webhook URL the service will not deliver to, unless plain HTTP is allowed. */
function assertDeliverableUrl(ctx: IHookFunctions, url: string): void {
	const problem = webhookUrlProblem(url, options(ctx).allowHttp === true);
	if (problem === 'invalid') throw new NodeOperationError(ctx.getNode(), `The webhook URL "${url}" is not a valid URL`);
	if (problem === undefined) return;
	throw new NodeOperationError(ctx.getNode(), 'The webhook URL must use HTTPS: the service only delivers to HTTPS URLs', {
		description: `n8n's webhook URL for this trigger is ${url}. Serve n8n over HTTPS and set its WEBHOOK_URL environment variable to that public https:// address (a tunnel works for development). For a service that accepts plain HTTP on a local network, turn on the option "Allow HTTP URL (Local Testing Only)".`,
	});
}

function subscriptionPath(id: string): string {
	return `/webhooks/${encodeURIComponent(id)}`;
}

/** Deletes a subscription; one already gone (404) counts as deleted. */
async function deleteSubscription(ctx: IHookFunctions, id: string): Promise<void> {
	await apiRequestFull.call(ctx, { method: 'DELETE', path: subscriptionPath(id), acceptStatuses: [404] });
}

/** Asks the service for a test delivery to subscription `id`; a refusal is logged as `what` could not be requested. */
async function requestTestDelivery(ctx: IHookFunctions, id: string, what: string): Promise<void> {
	try {
		await apiRequest.call(ctx, { method: 'POST', path: `${subscriptionPath(id)}/test` });
	} catch (error) {
		ctx.logger.warn(`Social Aggregator Trigger: ${what} could not be requested: ${(error as Error).message}`);
	}
}

/** One page of the subscriptions (`GET /webhooks`). */
function listPage(ctx: IHookFunctions) {
	return async (page: number, perPage: number) => {
		const request = { method: 'GET' as const, path: '/webhooks', qs: { page, per_page: perPage } };
		const answer = await apiRequestChecked(ctx, request, (body, at) => listAnswer(body, { ...at, page }));
		return answer as { data: WebhookSubscription[] };
	};
}

/** Deletes every subscription at `url` (its secret is not stored, so none of its deliveries could be verified). */
async function deleteAllAt(ctx: IHookFunctions, url: string, log: boolean): Promise<void> {
	const subscriptions = await collectPages<WebhookSubscription>({ returnAll: true, fetchPage: listPage(ctx), key: (s) => s.id });
	for (const orphan of subscriptions) {
		if (orphan.url !== url) continue;
		const why = `removing subscription ${orphan.id} at this trigger's URL; its signing secret is not stored`;
		if (log) ctx.logger.info(`Social Aggregator Trigger: ${why}`);
		await deleteSubscription(ctx, String(orphan.id));
	}
}

/** Whether the service's list `a` names the events of the sorted, repeat-free `b`. */
function sameEvents(a: unknown, b: string[]): boolean {
	return Array.isArray(a) && JSON.stringify([...new Set(a.map(String))].sort()) === JSON.stringify(b);
}

/** Whether the stored subscription exists and fits; one that does not is removed for create() to replace. */
export async function checkExists(ctx: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(ctx);
	const slot = slotFor(ctx, url);
	const stored = storedSubscriptions(ctx)[slot];
	if (!stored?.id) return false;
	const id = String(stored.id);
	const request = { method: 'GET' as const, path: subscriptionPath(id), acceptStatuses: [404] };
	const read = await apiRequestChecked(ctx, request, (body, at) =>
		at.statusCode === 404 ? undefined : (objectAnswer(body, at) as WebhookSubscription),
	);
	// The live service has no GET /webhooks/{id} (404 for a subscription that exists): look in the list.
	const found = read ?? (await findInPages(listPage(ctx), id));
	if (found) {
		const problems: string[] = [];
		if (found.url !== url) problems.push('its URL differs from this trigger’s webhook URL');
		if (found.status !== undefined && found.status !== 'active') problems.push(`its status is ${String(found.status)}`);
		const events = desiredEvents(ctx);
		if (!sameEvents(found.subscribed_events, events)) problems.push('its events differ from the chosen events');
		if (!stored.secret) problems.push('its signing secret is not stored');
		if (problems.length === 0) return true;
		const inactive = found.status !== undefined && found.status !== 'active';
		if (inactive && problems.length === 1 && (await reEnable(ctx, id, String(found.status)))) return true;
		ctx.logger.info(`Social Aggregator Trigger: replacing subscription ${id}: ${problems.join('; ')}`);
		await deleteSubscription(ctx, id);
	} else {
		ctx.logger.info(`Social Aggregator Trigger: subscription ${id} no longer exists; registering again`);
	}
	setStored(ctx, slot, undefined);
	return false;
}

/** Sets a subscription's status; false when the service refuses (one that takes no `status` in a PATCH). */
async function setStatus(ctx: IHookFunctions, id: string, status: 'active' | 'paused'): Promise<boolean> {
	const answer = await apiRequestFull.call(ctx, { method: 'PATCH', path: subscriptionPath(id), body: { status }, acceptStatuses: [400, 404, 422] });
	return answer.statusCode < 400;
}

/**
 * Sets a paused or disabled subscription active again and asks for a test delivery: the trigger that receives it
 * catches up on what the subscription missed (catchUp.ts). False when the service refuses (a PATCH without
 * `status`): the subscription is then replaced, and what it missed is not caught up.
 */
async function reEnable(ctx: IHookFunctions, id: string, status: string): Promise<boolean> {
	if (!(await setStatus(ctx, id, 'active'))) return false;
	ctx.logger.info(`Social Aggregator Trigger: subscription ${id} was ${status}; set active again`);
	if (catchUpDays(options(ctx).catchUpDays) > 0) await requestTestDelivery(ctx, id, 'the test delivery that starts the catch-up');
	return true;
}

/** The live subscription's id and, when this trigger made it, when; for the catch-up that runs in an execution. */
export function liveSubscription(nodeData: IDataObject): { id: string; createdAt?: number } | undefined {
	const subscriptions = nodeData.subscriptions;
	const live = isObject(subscriptions) ? (subscriptions as Stored).live : undefined;
	if (!live?.id) return undefined;
	return typeof live.createdAt === 'number' ? { id: String(live.id), createdAt: live.createdAt } : { id: String(live.id) };
}

/** Subscribes this URL, keeping id and secret; others at this URL go first (no stored secret verifies them). */
export async function create(ctx: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(ctx);
	assertDeliverableUrl(ctx, url);
	const events = desiredEvents(ctx);
	if (events.length === 0) {
		throw new NodeOperationError(ctx.getNode(), 'Choose at least one event in "Events"');
	}
	const slot = slotFor(ctx, url);
	const test = isManual(ctx);

	const previous = storedSubscriptions(ctx)[slot];
	if (previous?.id) {
		await deleteSubscription(ctx, String(previous.id));
		setStored(ctx, slot, undefined);
	}
	await deleteAllAt(ctx, url, true);

	const request = { method: 'POST' as const, path: '/webhooks', body: { url, subscribed_events: events } };
	const created = (await apiRequestChecked(ctx, request, objectAnswer)) as WebhookSubscription;
	if (created.id === undefined || created.id === null) {
		throw new NodeOperationError(ctx.getNode(), 'The service did not return the new webhook subscription');
	}
	const id = String(created.id);
	if (typeof created.secret !== 'string' || created.secret === '') {
		await deleteSubscription(ctx, id);
		throw new NodeOperationError(
			ctx.getNode(),
			'The service did not return a signing secret for the new subscription, so its deliveries could not be verified',
		);
	}
	const createdAt = typeof created.created_at === 'string' ? Date.parse(created.created_at) : NaN;
	setStored(ctx, slot, { id, secret: created.secret, url, events, test, createdAt: Number.isNaN(createdAt) ? Date.now() : createdAt });
	keepRecent(secretsRegisteredHere, `${triggerKey(ctx)}:${slot}`, created.secret, SECRETS_KEPT);

	// A test delivery gives the editor a sample event without waiting; without it, real events still arrive.
	if (test) await requestTestDelivery(ctx, id, 'the test delivery');
	return true;
}

/**
 * Whether a subscription the service disabled (n8n was away) is kept rather than deleted: its delivery log exists only
 * with it, so it is paused (off on purpose: the example workflow re-enables only disabled ones) and stays stored, and
 * the next activation sets it active and catches up (docs/exactly-once.md#catch-up). A service that refuses the pause
 * keeps it disabled.
 */
async function keptForCatchUp(ctx: IHookFunctions, id: string): Promise<boolean> {
	const found = await findInPages(listPage(ctx), id);
	if (found?.status !== 'disabled') return false;
	await setStatus(ctx, id, 'paused');
	ctx.logger.info(`Social Aggregator Trigger: subscription ${id} was disabled; kept, paused, for the catch-up of the next activation`);
	return true;
}

/** Removes this URL's subscription; with none stored (static data lost), every one at this node's own URL. */
export async function remove(ctx: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(ctx);
	const slot = slotFor(ctx, url);
	const stored = storedSubscriptions(ctx)[slot];
	try {
		if (!stored?.id) {
			await deleteAllAt(ctx, url, false);
			return true;
		}
		if (slot === 'live' && catchUpDays(options(ctx).catchUpDays) > 0 && (await keptForCatchUp(ctx, String(stored.id)))) {
			return true;
		}
		await deleteSubscription(ctx, String(stored.id));
	} catch (error) {
		ctx.logger.warn(
			`Social Aggregator Trigger: the subscription ${stored?.id ?? `at ${url}`} could not be removed: ${(error as Error).message}`,
		);
		return false;
	}
	setStored(ctx, slot, undefined);
	secretsRegisteredHere.delete(`${triggerKey(ctx)}:${slot}`);
	return true;
}
