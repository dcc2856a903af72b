import type { INodePropertyOptions } from 'n8n-workflow';

import { route } from '../../common/routing';
import { postUrl } from './feedPost';

export const postDelete: INodePropertyOptions = {
	name: 'Delete',
	value: 'delete',
	description: 'Hide a post from the feed. The delete is soft: Approve brings the post back.',
	action: 'Delete a post',
	routing: route({ method: 'DELETE', url: postUrl }),
};
