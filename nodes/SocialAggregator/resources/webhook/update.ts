import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { allowHttpOption } from '../../../shared/webhookUrl';
import { bodyEvents, requireUpdateFields } from '../../common/checks';
import { collection } from '../../common/fields';
import { route } from '../../common/routing';
import { eventsField, noSecret, otherEventsField, show, subscriptionPath, urlField } from './subscription';

export const webhookUpdate: INodePropertyOptions = {
	name: 'Update',
	value: 'update',
	description: 'Change the URL, events or status of a webhook subscription',
	action: 'Update a webhook',
	routing: route({
		method: 'PATCH',
		url: subscriptionPath,
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
};

export const webhookUpdateFields: INodeProperties[] = [
	collection('Update Fields', 'updateFields', { ...show, operation: ['update'] }, [
		eventsField,
		otherEventsField,
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
		{ ...urlField, description: 'The new address for the deliveries' },
	]),
	collection('Options', 'options', { ...show, operation: ['update'] }, [allowHttpOption]),
];
