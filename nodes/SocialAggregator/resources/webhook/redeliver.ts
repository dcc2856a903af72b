import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { requireText } from '../../common/checks';
import { deliveryLogRoute, markRedelivered, pathDeliveryId } from '../../common/webhookLog';
import { show, subscriptionPath } from './subscription';

export const webhookRedeliver: INodePropertyOptions = {
	name: 'Redeliver',
	value: 'redeliver',
	description: 'Send one delivery of the log again, with its ID, body and signature unchanged',
	action: 'Redeliver a webhook delivery',
	routing: deliveryLogRoute(
		{
			method: 'POST',
			url: `${subscriptionPath}/deliveries`,
			prepare: [requireText('deliveryId', 'Delivery ID'), pathDeliveryId],
			after: markRedelivered,
			verify:
				'the delivery log (Webhook › Get Deliveries). A delivery sent twice carries the same ID, which a receiver that drops repeats (the Social Aggregator Trigger does) acts on once',
		},
		true,
	),
};

export const webhookRedeliverFields: INodeProperties[] = [
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
];
