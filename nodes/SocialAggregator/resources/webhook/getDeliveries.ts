import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DELIVERY_STATUSES } from '../../../shared/deliveryLog';
import { collection } from '../../common/fields';
import { deliveryLogRoute } from '../../common/webhookLog';
import { show, subscriptionPath } from './subscription';

const DELIVERY_STATUS_MEANINGS: Record<(typeof DELIVERY_STATUSES)[number], string> = {
	failed: 'The receiver refused it or could not be reached, and no retry is left or due',
	pending: 'Waiting for its first answer or for a retry',
	succeeded: 'The receiver answered with a 2xx status',
};

export const webhookGetDeliveries: INodePropertyOptions = {
	name: 'Get Deliveries',
	value: 'getDeliveries',
	description: 'Get the delivery log of a subscription, newest first: each delivery with its event, status and attempts',
	action: 'Get the deliveries of a webhook',
	routing: deliveryLogRoute({ method: 'GET', url: `${subscriptionPath}/deliveries`, list: 'paged' }, false),
};

/** Its Return All and Limit are the index's, shared with Get Many. */
export const webhookGetDeliveriesFields: INodeProperties[] = [
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
];
