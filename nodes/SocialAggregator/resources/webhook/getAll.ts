import type { INodePropertyOptions } from 'n8n-workflow';

import { route } from '../../common/routing';
import { noSecret } from './subscription';

/** Its Return All and Limit are the index's, shared with Get Deliveries. */
export const webhookGetAll: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	description: 'Get many webhook subscriptions',
	action: 'Get many webhooks',
	routing: route({ method: 'GET', url: '/webhooks', list: 'paged', omit: noSecret }),
};
