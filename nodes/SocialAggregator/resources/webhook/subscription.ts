import type { INodeProperties } from 'n8n-workflow';

// What the Webhook operations share: the panel's condition, a subscription's path, and the fields Create and Update
// both show.

export const show = { resource: ['webhook'] };

/** A subscription's path at the service; not n8n's address for the trigger, which the trigger calls its webhook URL. */
export const subscriptionPath = '=/webhooks/{{$parameter.webhookId}}';

/** The signing secret comes once, with the subscription's creation; nothing else outputs it. */
export const noSecret = ['secret'];

export const eventsField: INodeProperties = {
	displayName: 'Event Names or IDs',
	name: 'events',
	type: 'multiOptions',
	default: [],
	description:
		'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	typeOptions: { loadOptionsMethod: 'getWebhookEvents' },
};

export const otherEventsField: INodeProperties = {
	displayName: 'Other Events',
	name: 'otherEvents',
	type: 'string',
	default: '',
	placeholder: 'e.g. social_account.expired',
	description: 'Further event names, comma-separated, for events the list does not show yet (e.g. social_account.expired)',
};

export const urlField: INodeProperties = {
	displayName: 'URL',
	name: 'url',
	type: 'string',
	default: '',
	placeholder: 'e.g. https://example.com/hooks/social',
	routing: { send: { type: 'body', property: 'url', value: '={{ String($value).trim() }}' } },
};
