import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { route } from '../../common/routing';
import { requestCatchUp } from '../../common/webhookLog';
import { noSecret, show, subscriptionPath } from './subscription';

export const webhookReEnable: INodePropertyOptions = {
	name: 'Re-Enable',
	value: 'reEnable',
	description:
		'Set a paused or disabled subscription (for example after 10 failed deliveries) active again, with its failure count reset',
	action: 'Re enable a webhook',
	routing: route({
		method: 'PATCH',
		url: subscriptionPath,
		body: { status: 'active' },
		omit: noSecret,
		verify: 'the webhook (Webhook › Get)',
		after: requestCatchUp,
	}),
};

export const webhookReEnableFields: INodeProperties[] = [
	{
		displayName: 'Catch Up',
		name: 'catchUp',
		type: 'boolean',
		default: true,
		description:
			'Whether to ask for a test delivery once the subscription is active again, so that a Social Aggregator Trigger catches up at once rather than at the next delivery: the deliveries that failed are sent again, and the posts added while the subscription delivered nothing are emitted once each. The trigger shows the test delivery as an item marked test unless its Include Test Deliveries is off.',
		displayOptions: { show: { ...show, operation: ['reEnable'] } },
	},
];
