import type { INodePropertyRouting } from 'n8n-workflow';

import { route } from '../../common/routing';

// What the Post operations share: the panel's condition, a feed's posts' paths, and the moderation actions' routing.

export const show = { resource: ['post'] };
export const postsUrl = '=/feeds/{{$parameter.feedId}}/posts';
export const postUrl = `${postsUrl}/{{$parameter.postId}}`;

/** Approve, Pin, Reject and Unpin: a POST to the post's path and the action, with nothing to send. */
export function postAction(action: 'approve' | 'pin' | 'reject' | 'unpin'): INodePropertyRouting {
	return route({ method: 'POST', url: `${postUrl}/${action}`, verify: 'the post (Post › Get)' });
}
