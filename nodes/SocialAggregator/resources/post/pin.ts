import type { INodePropertyOptions } from 'n8n-workflow';

import { postAction } from './feedPost';

export const postPin: INodePropertyOptions = {
	name: 'Pin',
	value: 'pin',
	description: 'Pin a post to the top of the feed',
	action: 'Pin a post',
	routing: postAction('pin'),
};
