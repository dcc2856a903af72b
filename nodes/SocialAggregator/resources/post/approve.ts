import type { INodePropertyOptions } from 'n8n-workflow';

import { postAction } from './feedPost';

export const postApprove: INodePropertyOptions = {
	name: 'Approve',
	value: 'approve',
	description: 'Make a moderated, rejected or deleted post public again',
	action: 'Approve a post',
	routing: postAction('approve'),
};
