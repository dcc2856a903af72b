import type { INodePropertyOptions } from 'n8n-workflow';

import { route } from '../../common/routing';
import { noSecret, subscriptionPath } from './subscription';

export const webhookGet: INodePropertyOptions = {
	name: 'Get',
	value: 'get',
	description: 'Get a webhook subscription with its status and failure count',
	action: 'Get a webhook',
	// The live service's endpoint map has no GET /webhooks/{id}: a 404 there looks in the list.
	routing: route({ method: 'GET', url: subscriptionPath, omit: noSecret, findIn: '/webhooks' }),
};
