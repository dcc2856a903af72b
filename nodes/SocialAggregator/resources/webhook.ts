import type { INodeProperties } from 'n8n-workflow';

import { requireText, requireUpdateFields, requireUrl, bodyEvents } from '../common/checks';
import { DELIVERY_STATUSES } from '../../shared/deliveryLog';
import { allowHttpOption } from '../../shared/webhookUrl';
import { collection, listFields, notice, webhookLocator } from '../common/fields';
import { route } from '../common/routing';
import { deliveryLogRoute, eventKindsAnswer, markRedelivered, pathDeliveryId, requestCatchUp } from '../common/webhookLog';

const show = { resource: ['webhook'] };
const webhookUrl = '=/webhooks/{{$parameter.webhookId}}';

/** The signing secret comes once, with the subscription's creation; nothing else outputs it. */
const noSecret = ['secret'];

const DELIVERY_STATUS_MEANINGS: Record<(typeof DELIVERY_STATUSES)[number], string> = {
	failed: 'The receiver refused it or could not be reached, and no retry is left or due',
	pending: 'Waiting for its first answer or for a retry',
	succeeded: 'The receiver answered with a 2xx status',
};

const events: INodeProperties = {
	displayName: 'Event Names or IDs',
	name: 'events',
	type: 'multiOptions',
	default: [],
	description:
		'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	typeOptions: { loadOptionsMethod: 'getWebhookEvents' },
};

const otherEvents: INodeProperties = {
	displayName: 'Other Events',
	name: 'otherEvents',
	type: 'string',
	default: '',
	placeholder: 'e.g. social_account.expired',
	description: 'Further event names, comma-separated, for events the list does not show yet (e.g. social_account.expired)',
};

const url: INodeProperties = {
	displayName: 'URL',
	name: 'url',
	type: 'string',
	default: '',
	placeholder: 'e.g. https://example.com/hooks/social',
	routing: { send: { type: 'body', property: 'url', value: '={{ String($value).trim() }}' } },
};

export const webhookDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Subscribe a URL to events; the answer holds the signing secret, given only this once',
				action: 'Create a webhook',
				routing: route({
					method: 'POST',
					url: '/webhooks',
					prepare: [
						requireUrl('url', 'URL', 'options.allowHttp'),
						bodyEvents('events', 'options.otherEvents', { required: true }),
					],
					verify:
						'whether the webhook exists (Webhook › Get Many). Its signing secret came only with the lost answer: delete that webhook and create it again',
				}),
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a webhook subscription',
				action: 'Delete a webhook',
				routing: route({ method: 'DELETE', url: webhookUrl }),
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a webhook subscription with its status and failure count',
				action: 'Get a webhook',
				// The live service's endpoint map has no GET /webhooks/{id}: a 404 there looks in the list.
				routing: route({ method: 'GET', url: webhookUrl, omit: noSecret, findIn: '/webhooks' }),
			},
			{
				name: 'Get Deliveries',
				value: 'getDeliveries',
				description: 'Get the delivery log of a subscription, newest first: each delivery with its event, status and attempts',
				action: 'Get the deliveries of a webhook',
				routing: deliveryLogRoute({ method: 'GET', url: `${webhookUrl}/deliveries`, list: 'paged' }, false),
			},
			{
				name: 'Get Event Kinds',
				value: 'getEventKinds',
				description: 'Get the names of the events a webhook can subscribe to, one item per event',
				action: 'Get the event kinds of webhooks',
				routing: route({ method: 'GET', url: '/webhook_events', answersList: true, reshape: eventKindsAnswer }),
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get many webhook subscriptions',
				action: 'Get many webhooks',
				routing: route({ method: 'GET', url: '/webhooks', list: 'paged', omit: noSecret }),
			},
			{
				name: 'Re-Enable',
				value: 'reEnable',
				description:
					'Set a paused or disabled subscription (for example after 10 failed deliveries) active again, with its failure count reset',
				action: 'Re enable a webhook',
				routing: route({
					method: 'PATCH',
					url: webhookUrl,
					body: { status: 'active' },
					omit: noSecret,
					verify: 'the webhook (Webhook › Get)',
					after: requestCatchUp,
				}),
			},
			{
				name: 'Redeliver',
				value: 'redeliver',
				description: 'Send one delivery of the log again, with its ID, body and signature unchanged',
				action: 'Redeliver a webhook delivery',
				routing: deliveryLogRoute(
					{
						method: 'POST',
						url: `${webhookUrl}/deliveries`,
						prepare: [requireText('deliveryId', 'Delivery ID'), pathDeliveryId],
						after: markRedelivered,
						verify:
							'the delivery log (Webhook › Get Deliveries). A delivery sent twice carries the same ID, which a receiver that drops repeats (the Social Aggregator Trigger does) acts on once',
					},
					true,
				),
			},
			{
				name: 'Send Test',
				value: 'sendTest',
				description: 'Send a signed test delivery to the webhook’s URL',
				action: 'Send a test delivery to a webhook',
				routing: route({ method: 'POST', url: `${webhookUrl}/test`, verify: 'whether the test delivery arrived' }),
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change the URL, events or status of a webhook subscription',
				action: 'Update a webhook',
				routing: route({
					method: 'PATCH',
					url: webhookUrl,
					omit: noSecret,
					prepare: [
						bodyEvents('updateFields.events', 'updateFields.otherEvents', { required: false }),
						requireUpdateFields(
							'updateFields',
							{ url: 'URL', events: 'Events', otherEvents: 'Other Events', status: 'Status' },
							'options.allowHttp',
						),
					],
					verify: 'the webhook (Webhook › Get)',
				}),
			},
		],
		default: 'create',
	},

	webhookLocator({ ...show, operation: ['delete', 'get', 'getDeliveries', 'reEnable', 'redeliver', 'sendTest', 'update'] }),

	// Create
	{
		...url,
		required: true,
		description: 'Where the service sends the deliveries; it must be an HTTPS address (see Options for local testing)',
		displayOptions: { show: { ...show, operation: ['create'] } },
	},
	{
		...events,
		hint: 'Events the list does not show yet can be added under Options → Other Events',
		displayOptions: { show: { ...show, operation: ['create'] } },
	},
	collection('Options', 'options', { ...show, operation: ['create'] }, [otherEvents, allowHttpOption]),
	notice(
		'secretNotice',
		{ ...show, operation: ['create'] },
		'The output holds the signing secret that proves deliveries come from the service. It is shown only once: store it where the receiver can check signatures (the Social Aggregator Trigger does this itself).',
	),

	// Send Test
	collection('Options', 'testOptions', { ...show, operation: ['sendTest'] }, [
		{
			displayName: 'Event Name or ID',
			name: 'event',
			type: 'options',
			default: '',
			description:
				'The event the test delivery stands for; the first subscribed event otherwise. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			typeOptions: { loadOptionsMethod: 'getWebhookEvents' },
			routing: { send: { type: 'body', property: 'event', value: '={{ $value || undefined }}' } },
		},
	]),

	// Get Many, Get Deliveries
	...listFields({ ...show, operation: ['getAll', 'getDeliveries'] }),
	collection('Filters', 'deliveryFilters', { ...show, operation: ['getDeliveries'] }, [
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			default: 'failed',
			description: 'Only deliveries in this state, where the service filters its log by state',
			options: DELIVERY_STATUSES.map((status) => ({
				name: `${status[0].toUpperCase()}${status.slice(1)}`,
				value: status,
				description: DELIVERY_STATUS_MEANINGS[status],
			})),
			routing: { send: { type: 'query', property: 'status' } },
		},
	]),

	// Re-Enable
	{
		displayName: 'Catch Up',
		name: 'catchUp',
		type: 'boolean',
		default: true,
		description:
			'Whether to ask for a test delivery once the subscription is active again, so that a Social Aggregator Trigger catches up at once rather than at the next delivery: the deliveries that failed are sent again, and the posts added while the subscription delivered nothing are emitted once each. The trigger shows the test delivery as an item marked test unless its Include Test Deliveries is off.',
		displayOptions: { show: { ...show, operation: ['reEnable'] } },
	},

	// Redeliver
	{
		displayName: 'Delivery ID',
		name: 'deliveryId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. dlv_3f9a1c',
		description: 'The delivery to send again: its ID in the delivery log (Webhook › Get Deliveries), the same as the ID in the delivery’s body',
		displayOptions: { show: { ...show, operation: ['redeliver'] } },
	},

	// Update
	collection('Update Fields', 'updateFields', { ...show, operation: ['update'] }, [
		events,
		otherEvents,
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			default: 'active',
			description: 'Whether the service delivers to the webhook',
			options: [
				{ name: 'Active', value: 'active', description: 'Deliveries are sent' },
				{ name: 'Paused', value: 'paused', description: 'Deliveries are held back' },
			],
			routing: { send: { type: 'body', property: 'status' } },
		},
		{ ...url, description: 'The new address for the deliveries' },
	]),
	collection('Options', 'options', { ...show, operation: ['update'] }, [allowHttpOption]),
];
