import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { CREDENTIAL_TEST, socialAggregatorApiTest } from '../shared/credentialTest';
import { feedOptions, getWebhookEvents } from '../shared/loadOptions';
import { describeFailure, verifyDelivery } from '../shared/signature';
import { allowHttpOption } from '../shared/webhookUrl';
import {
	deliveryId,
	deliveryItems,
	idList,
	ignoreReason,
	parseDelivery,
	handledInProcess,
	rawDeliveryId,
	rememberHandled,
	wantedEvents,
	type Delivery,
	type OutputMode,
} from './delivery';
import { checkExists, create, remove, secretRegisteredHere, storedSubscriptions } from './lifecycle';
import { databaseStore, firstTimeItems } from './once';

/** Feed pages read for the "Feeds" dropdown. */
const MAX_FEED_PAGES = 10;

export class SocialAggregatorTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Social Aggregator Trigger',
		name: 'socialAggregatorTrigger',
		icon: { light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{($parameter["events"] || []).join(", ")}}',
		// n8n's node panel shows this for its one "Social Aggregator" entry (action node and trigger)
		description:
			'Manage feeds, posts and their moderation, analytics, users and webhooks of the Social Post Aggregation Service, or start a workflow on its signed webhook events',
		defaults: { name: 'Social Aggregator Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'socialAggregatorApi', required: true, testedBy: 'socialAggregatorApiTest' }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'The service delivers events only to HTTPS URLs: n8n must be reachable at a public https:// address (its WEBHOOK_URL setting). Activation fails on a plain HTTP URL unless "Allow HTTP URL (Local Testing Only)" is on. Every delivery is checked against the signing secret the service returned when this trigger registered itself; unsigned or forged requests get 401.',
				name: 'httpsNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName:
					'Each delivery starts the nodes after this trigger once, also when the service retries it after an n8n restart or to another webhook process: delivery IDs are kept in n8n\'s database. If this workflow stops receiving events, the service may have disabled its subscription after failed deliveries: unpublish and publish the workflow to repair it, or re-enable it with the Social Aggregator node (Webhook → Re-Enable); the example workflow "Re-enable disabled subscriptions" does this on a schedule.',
				name: 'onceNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event Names or IDs',
				name: 'events',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getWebhookEvents' },
				required: true,
				default: [],
				description:
					'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
				hint: 'The events that start the workflow. Events the list does not know can be added under Options > Additional Events.',
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				options: [
					{
						name: 'One Item per Post',
						value: 'eachPost',
						description:
							'Each post of a post.created event is an item, with its feed, source and event ID; other events are one item each',
					},
					{
						name: 'One Item per Delivery',
						value: 'eachDelivery',
						description: 'Each delivery is one item, as the service sent it (ID, event, occurred_at, data)',
					},
				],
				default: 'eachPost',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Additional Events',
						name: 'additionalEvents',
						type: 'string',
						default: '',
						placeholder: 'post.updated, feed.synced',
						description: 'Comma-separated event names to subscribe to besides those chosen above',
					},
					allowHttpOption,
					{
						displayName: 'Feed Names or IDs',
						name: 'feedIds',
						type: 'multiOptions',
						typeOptions: { loadOptionsMethod: 'getFeeds' },
						default: [],
						description:
							'Only events of these feeds start the workflow; events that concern no feed always do. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
					{
						displayName: 'Include Test Deliveries',
						name: 'includeTestDeliveries',
						type: 'boolean',
						default: true,
						description:
							'Whether test deliveries (Send Test, data.test = true) start the workflow. The one the editor requests while listening for a test event is always shown.',
					},
					{
						displayName: 'Signature Header',
						name: 'signatureHeader',
						type: 'string',
						default: '',
						placeholder: 'X-Service-Signature',
						description:
							'The header that carries the signature. Empty: the one header named X-…-Signature.',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: { [CREDENTIAL_TEST]: socialAggregatorApiTest },
		loadOptions: {
			getWebhookEvents,
			async getFeeds(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				return await feedOptions.call(this, MAX_FEED_PAGES);
			},
		},
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await remove(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const options = (this.getNodeParameter('options', {}) as IDataObject) ?? {};
		const manual = this.getMode() === 'manual';
		const stored = storedSubscriptions(this);
		// The subscription for this mode first; the other one too, as both are this trigger's.
		const ordered = manual ? [stored.test, stored.live] : [stored.live, stored.test];

		const verdict = verifyDelivery({
			headers: request.headers as Record<string, string | string[] | undefined>,
			rawBody: request.rawBody,
			secrets: [...ordered.map((s) => s?.secret), secretRegisteredHere(this, manual ? 'test' : 'live')],
			headerName: typeof options.signatureHeader === 'string' ? options.signatureHeader : undefined,
		});
		if (!verdict.valid) {
			this.logger.warn(`Social Aggregator Trigger refused a delivery with 401: ${describeFailure(verdict)}`);
			this.getResponseObject()
				.status(401)
				.json({ error: { code: 'invalid_signature', message: 'The signature is missing or does not match' } });
			return { noWebhookResponse: true };
		}

		const text = request.rawBody === undefined ? '' : request.rawBody.toString('utf8');
		const delivery = parseDelivery(text);
		if (!delivery) return refuse(this, 400, 'invalid_body', 'The body is not a JSON object');
		// The id as the service wrote it: a number past 2^53 keeps every digit.
		const id = rawDeliveryId(text) ?? deliveryId(delivery);
		if (id !== undefined) delivery.id = /^\d+$/.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : id;

		// Copies that reach this process at once stop here; execute() checks n8n's database for the rest.
		// Static data is only read here: n8n would save a write over changes made meanwhile.
		const key = triggerKey(this);
		if (id !== undefined && !manual && handledInProcess(key, id)) {
			this.logger.debug(`Social Aggregator Trigger: delivery ${id} was already received; not emitted again`);
			return { webhookResponse: { received: true, duplicate: true } };
		}

		let answer: IWebhookResponseData;
		try {
			answer = handleDelivery(this, delivery, options, manual);
		} catch (error) {
			// A signed delivery of a shape nothing here expected: a 4xx that says so, never n8n's 500,
			// and its id is not remembered, so the service's retry is handled afresh.
			const reason = error instanceof Error ? error.message : String(error);
			this.logger.warn(`Social Aggregator Trigger: delivery ${id ?? '(no id)'} could not be handled: ${reason}`);
			return refuse(this, 422, 'unusable_delivery', 'The delivery could not be handled');
		}
		if (id !== undefined && !manual) rememberHandled(key, id);
		return answer;
	}

	/**
	 * Runs in the execution, in whichever n8n process runs it (a worker in queue
	 * mode), with the items webhook() emitted: passes on the items of deliveries
	 * no execution acted on before, recorded in n8n's database.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const input = this.getInputData();
		if (this.getMode() === 'manual') {
			return [input.map((item, index) => ({ ...item, pairedItem: { item: index } }))];
		}
		const { items, duplicates } = await firstTimeItems(input, databaseStore(this), triggerKey(this));
		if (duplicates.length > 0) {
			this.logger.info(
				`Social Aggregator Trigger: deliveries ${duplicates.join(', ')} were acted on before; their items are not passed on`,
			);
		}
		return [items];
	}
}

/** Emits a verified delivery's items, or says why it is ignored. */
function handleDelivery(ctx: IWebhookFunctions, delivery: Delivery, options: IDataObject, manual: boolean): IWebhookResponseData {
	const reason = ignoreReason(delivery, {
		events: wantedEvents(ctx.getNodeParameter('events', []), options.additionalEvents),
		feedIds: idList(options.feedIds),
		includeTestDeliveries: options.includeTestDeliveries !== false,
		listeningForTest: manual,
	});
	if (reason) {
		ctx.logger.debug(`Social Aggregator Trigger: delivery ${String(delivery.id ?? '(no id)')} ignored: ${reason}`);
		return { webhookResponse: { received: true, ignored: reason } };
	}
	const mode = ctx.getNodeParameter('output', 'eachPost') as OutputMode;
	const items: INodeExecutionData[] = deliveryItems(delivery, mode).map((json) => ({ json }));
	if (items.length === 0) return { webhookResponse: { received: true } };
	return { workflowData: [items] };
}

/** Answers the sender with a status and a JSON error, and starts nothing. */
function refuse(ctx: IWebhookFunctions, status: number, code: string, message: string): IWebhookResponseData {
	ctx.getResponseObject().status(status).json({ error: { code, message } });
	return { noWebhookResponse: true };
}

function triggerKey(ctx: IWebhookFunctions | IExecuteFunctions): string {
	return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`;
}
