import type { FeedPage, FeedPost } from '../../../nodes/shared/feedWalk';

/** The legal orders of a feed's posts the walk must meet (docs/service.md#feed-post-order). */
export type ListOrder = 'platformPinnedFirst' | 'stored' | 'storedPinnedFirst' | 'platform';

export const ORDERS: ListOrder[] = ['platformPinnedFirst', 'stored', 'storedPinnedFirst', 'platform'];

const HOUR = 3_600_000;

/**
 * One feed as a service may list it: ids grow as posts are stored, `created_at` is when, `external_created_at` when
 * the post was published (before, by as much as the source's sync lag). Pages by offset.
 */
export class FeedListStub {
	posts: FeedPost[] = [];
	asked: number[] = [];
	/** The service's clock (ms). */
	now = Date.parse('2026-06-01T12:00:00Z');
	/** Only posts in this moderation status are listed (the trigger's Status); undefined: every post. */
	status?: string;
	/** Called before each page is answered, with the number of pages asked so far: a test moves the list there. */
	beforeAnswer?: (asked: number) => void;
	/** Whether answers give `meta.total_count` (a service may leave it out). */
	tellsCount = true;
	private nextId = 1000;
	/** The list as sorted after the last change (the methods below drop it): volumes of tens of thousands stay fast. */
	private sorted?: FeedPost[];

	constructor(public order: ListOrder) {}

	/** `count` posts stored now, a second apart, each published `lateMs` before it was stored; their ids, oldest first. */
	add(count: number, lateMs = 0, moderationStatus = 'public'): number[] {
		this.sorted = undefined;
		const ids: number[] = [];
		for (let i = 0; i < count; i++) {
			this.now += 1000;
			const id = ++this.nextId;
			ids.push(id);
			this.posts.push({
				id,
				created_at: new Date(this.now).toISOString(),
				external_created_at: new Date(this.now - lateMs).toISOString(),
				pinned: false,
				moderation_status: moderationStatus,
			});
		}
		return ids;
	}

	/** History: `count` posts an hour apart, the newest an hour ago. */
	history(count: number): number[] {
		this.now -= (count + 1) * HOUR;
		const ids: number[] = [];
		for (let i = 0; i < count; i++) {
			ids.push(...this.add(1));
			this.now += HOUR - 1000;
		}
		return ids;
	}

	/**
	 * A source's sync: `count` posts stored now in one batch (a second apart at most), published evenly over the
	 * `spanMs` before, in an order of their own (not by time), each with `moderationStatus`; their ids, ascending.
	 */
	sync(count: number, spanMs: number, moderationStatus: (index: number) => string = () => 'public'): number[] {
		this.sorted = undefined;
		const ids: number[] = [];
		const storedAt = this.now + 1000;
		for (let i = 0; i < count; i++) {
			const id = ++this.nextId;
			ids.push(id);
			// A stride through the span: ids do not follow the published times.
			const slot = (i * 7919) % count;
			this.posts.push({
				id,
				created_at: new Date(storedAt + Math.floor(i / 10)).toISOString(),
				external_created_at: new Date(storedAt - spanMs + Math.floor((slot * spanMs) / count)).toISOString(),
				pinned: false,
				moderation_status: moderationStatus(i),
			});
		}
		this.now = storedAt + count;
		return ids;
	}

	pin(id: number, pinned = true): void {
		this.sorted = undefined;
		const post = this.posts.find((p) => p.id === id);
		if (post) post.pinned = pinned;
	}

	/** Moves posts into a moderation status (a moderator approving or rejecting them). */
	setStatus(ids: number[], moderationStatus: string): void {
		this.sorted = undefined;
		for (const post of this.posts) if (ids.includes(post.id)) post.moderation_status = moderationStatus;
	}

	remove(ids: number[]): void {
		this.sorted = undefined;
		this.posts = this.posts.filter((post) => !ids.includes(post.id));
	}

	listed(): FeedPost[] {
		if (this.sorted && this.sortedFor === `${this.order}:${this.status}`) return this.sorted;
		const published = (post: FeedPost) => Date.parse(String(post.external_created_at));
		const pinnedFirst = this.order === 'platformPinnedFirst' || this.order === 'storedPinnedFirst';
		const byTime = this.order.startsWith('platform');
		this.sorted = this.posts.filter((post) => this.status === undefined || post.moderation_status === this.status).sort(
			(a, b) =>
				(pinnedFirst ? Number(b.pinned) - Number(a.pinned) : 0) ||
				(byTime ? published(b) - published(a) : 0) ||
				b.id - a.id,
		);
		this.sortedFor = `${this.order}:${this.status}`;
		return this.sorted;
	}
	private sortedFor = '';

	fetch = async (page: number, perPage: number): Promise<FeedPage> => {
		this.beforeAnswer?.(this.asked.length);
		this.asked.push(page);
		const all = this.listed();
		const posts = all.slice((page - 1) * perPage, page * perPage).map((post) => ({ ...post }));
		return { posts, totalPages: Math.ceil(all.length / perPage), ...(this.tellsCount ? { totalCount: all.length } : {}) };
	};
}
