import type { INodePropertyOptions } from 'n8n-workflow';

import { feedPostShape } from '../../../shared/simplify';
import { route } from '../../common/routing';
import { postUrl } from './feedPost';

/** Its Simplify and Output Fields are the index's, shared with the other reads. */
export const postGet: INodePropertyOptions = {
	name: 'Get',
	value: 'get',
	description: 'Get a post of a feed',
	action: 'Get a post',
	routing: route({ method: 'GET', url: postUrl, shape: feedPostShape, ofFeed: true }),
};
