/** Changes to posts made once the Nth request of a route has been answered: a list that moves while it is read. */
import { compilePattern } from './router';
import type { FeedPost } from './types';
import type { Query } from './util';

export const POST_CHANGE_ACTIONS = ['delete', 'reject', 'approve', 'moderate', 'unpin'] as const;
export type PostChangeAction = (typeof POST_CHANGE_ACTIONS)[number];

export interface PostChangeSpec {
	/** HTTP method to match; default GET. */
	method?: string;
	/** Path relative to the base URL (no /v1), with `:name` segments, e.g. '/feeds/:id/posts'. */
	path: string;
	/** Only requests whose query has these values. */
	query?: Record<string, string>;
	/** The change is made right after this many matching requests were answered (default 1). */
	afterRequests?: number;
	action: PostChangeAction;
	postIds: number[];
}

interface PendingChange {
	id: string;
	spec: PostChangeSpec;
	re: RegExp;
	left: number;
}

/** What each action does to a post, as the service's own routes do (approve brings a deleted post back). */
function change(post: FeedPost, action: PostChangeAction): void {
	if (action === 'delete') post.deleted = true;
	else if (action === 'reject') post.status = 'rejected';
	else if (action === 'moderate') post.status = 'moderated';
	else if (action === 'unpin') post.pinned = false;
	else {
		post.deleted = false;
		post.status = 'public';
	}
}

export class PostChanges {
	private list: PendingChange[] = [];

	private n = 0;

	add(spec: PostChangeSpec): string {
		if (!POST_CHANGE_ACTIONS.includes(spec.action)) throw new Error(`post change action must be one of ${POST_CHANGE_ACTIONS.join(', ')}`);
		if (!Array.isArray(spec.postIds) || !spec.postIds.every((id) => Number.isInteger(id))) throw new Error('postIds must be post IDs');
		const id = `change_${++this.n}`;
		this.list.push({ id, spec, re: compilePattern(spec.path).re, left: Math.max(1, spec.afterRequests ?? 1) });
		return id;
	}

	/** Counts an answered request; makes the changes now due. Returns the ids of the changes made. */
	answered(method: string, path: string, query: Query, posts: Map<number, FeedPost>): string[] {
		const made: string[] = [];
		for (const pending of this.list) {
			if ((pending.spec.method ?? 'GET').toUpperCase() !== method || !pending.re.test(path)) continue;
			const wanted = Object.entries(pending.spec.query ?? {});
			if (!wanted.every(([k, v]) => (Array.isArray(query[k]) ? query[k].includes(v) : query[k] === v))) continue;
			if (--pending.left > 0) continue;
			for (const id of pending.spec.postIds) {
				const post = posts.get(id);
				if (post) change(post, pending.spec.action);
			}
			made.push(pending.id);
		}
		this.list = this.list.filter((pending) => pending.left > 0);
		return made;
	}

	clear(): void {
		this.list = [];
	}

	all(): Array<{ id: string; spec: PostChangeSpec; requestsLeft: number }> {
		return this.list.map((pending) => ({ id: pending.id, spec: pending.spec, requestsLeft: pending.left }));
	}
}
