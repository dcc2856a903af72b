import type { INodePropertyOptions } from 'n8n-workflow';

import { postAction } from './feedPost';

export const postReject: INodePropertyOptions = {
	name: 'Reject',
	value: 'reject',
	description: 'Reject a post so that the feed no longer shows it',
	action: 'Reject a post',
	routing: postAction('reject'),
};
