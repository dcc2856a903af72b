import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { collection } from '../../common/fields';
import { route } from '../../common/routing';
import { show, subscriptionPath } from './subscription';

export const webhookSendTest: INodePropertyOptions = {
	name: 'Send Test',
	value: 'sendTest',
	description: 'Send a signed test delivery to the webhook’s URL',
	action: 'Send a test delivery to a webhook',
	routing: route({ method: 'POST', url: `${subscriptionPath}/test`, verify: 'whether the test delivery arrived' }),
};

export const webhookSendTestFields: INodeProperties[] = [
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
];
