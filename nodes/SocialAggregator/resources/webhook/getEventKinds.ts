import type { INodePropertyOptions } from 'n8n-workflow';

import { route } from '../../common/routing';
import { eventKindsAnswer } from '../../common/webhookLog';

export const webhookGetEventKinds: INodePropertyOptions = {
	name: 'Get Event Kinds',
	value: 'getEventKinds',
	description: 'Get the names of the events a webhook can subscribe to, one item per event',
	action: 'Get the event kinds of webhooks',
	routing: route({ method: 'GET', url: '/webhook_events', answersList: true, reshape: eventKindsAnswer }),
};
