import type { INodeProperties } from 'n8n-workflow';

import { listFields, webhookLocator } from '../../common/fields';
import { webhookCreate, webhookCreateFields } from './create';
import { webhookDelete } from './delete';
import { webhookGet } from './get';
import { webhookGetAll } from './getAll';
import { webhookGetDeliveries, webhookGetDeliveriesFields } from './getDeliveries';
import { webhookGetEventKinds } from './getEventKinds';
import { webhookReEnable, webhookReEnableFields } from './reEnable';
import { webhookRedeliver, webhookRedeliverFields } from './redeliver';
import { webhookSendTest, webhookSendTestFields } from './sendTest';
import { show } from './subscription';
import { webhookUpdate, webhookUpdateFields } from './update';

// The Webhook resource: its operations in the panel's order, then their fields; an operation's routing and its own
// fields are in its file, the fields two operations share here.
export const webhookDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			webhookCreate,
			webhookDelete,
			webhookGet,
			webhookGetDeliveries,
			webhookGetEventKinds,
			webhookGetAll,
			webhookReEnable,
			webhookRedeliver,
			webhookSendTest,
			webhookUpdate,
		],
		default: 'create',
	},

	webhookLocator({ ...show, operation: ['delete', 'get', 'getDeliveries', 'reEnable', 'redeliver', 'sendTest', 'update'] }),
	...webhookCreateFields,
	...webhookSendTestFields,
	// Get Many, Get Deliveries
	...listFields({ ...show, operation: ['getAll', 'getDeliveries'] }),
	...webhookGetDeliveriesFields,
	...webhookReEnableFields,
	...webhookRedeliverFields,
	...webhookUpdateFields,
];
