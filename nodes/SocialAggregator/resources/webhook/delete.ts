import type { INodePropertyOptions } from 'n8n-workflow';

import { route } from '../../common/routing';
import { subscriptionPath } from './subscription';

export const webhookDelete: INodePropertyOptions = {
	name: 'Delete',
	value: 'delete',
	description: 'Delete a webhook subscription',
	action: 'Delete a webhook',
	routing: route({ method: 'DELETE', url: subscriptionPath }),
};
