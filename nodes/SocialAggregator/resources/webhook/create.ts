import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { allowHttpOption } from '../../../shared/webhookUrl';
import { bodyEvents, requireUrl } from '../../common/checks';
import { collection, notice } from '../../common/fields';
import { route } from '../../common/routing';
import { eventsField, otherEventsField, show, urlField } from './subscription';

export const webhookCreate: INodePropertyOptions = {
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
};

export const webhookCreateFields: INodeProperties[] = [
	{
		...urlField,
		required: true,
		description: 'Where the service sends the deliveries; it must be an HTTPS address (see Options for local testing)',
		displayOptions: { show: { ...show, operation: ['create'] } },
	},
	{
		...eventsField,
		hint: 'Events the list does not show yet can be added under Options → Other Events',
		displayOptions: { show: { ...show, operation: ['create'] } },
	},
	collection('Options', 'options', { ...show, operation: ['create'] }, [otherEventsField, allowHttpOption]),
	notice(
		'secretNotice',
		{ ...show, operation: ['create'] },
		'The output holds the signing secret that proves deliveries come from the service. It is shown only once: store it where the receiver can check signatures (the Social Aggregator Trigger does this itself).',
	),
];
