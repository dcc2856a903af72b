import type { INodePropertyOptions } from 'n8n-workflow';

import { postAction } from './feedPost';

export const postUnpin: INodePropertyOptions = {
	name: 'Unpin',
	value: 'unpin',
	description: 'Unpin a pinned post',
	action: 'Unpin a post',
	routing: postAction('unpin'),
};
