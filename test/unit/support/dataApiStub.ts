import type { DataPost, PlatformStatus } from '../../../nodes/shared/types';
import type { DataPostsResponse } from './dataPostsResponse';

/**
 * A small Data API: posts per platform, newest first, pages of `pageSize`, cursors `<platform>@<offset>`. A pinned
 * platform's oldest post opens every first page and no later one; `expireCursors()` refuses every cursor given so far.
 */
export class DataApiStub {
	posts: Record<string, DataPost[]> = {};

	pageSize: Record<string, number> = {};

	failing: Record<string, { code: string; times: number }> = {};

	rounds: Array<{ platforms: string[]; cursor?: string }> = [];

	pinned = new Set<string>();

	private issued = new Set<string>();

	private expired = new Set<string>();

	/** Cursors given after an expiry carry its count, so that they differ from the expired ones at the same offset. */
	private expiries = 0;

	/** Every cursor given so far is refused from now on (`invalid_cursor`), as when they expire. */
	expireCursors(): void {
		for (const cursor of this.issued) this.expired.add(cursor);
		this.expiries++;
	}

	private clock = Date.parse('2026-01-01T00:00:00Z');

	add(platform: string, count: number): DataPost[] {
		const added: DataPost[] = [];
		for (let i = 0; i < count; i++) {
			this.clock += 60_000;
			const n = (this.posts[platform]?.length ?? 0) + 1;
			const post = {
				platform,
				platform_id: `${platform}-${n}`,
				url: `https://${platform.toLowerCase()}.example/${n}`,
				post_created_at: new Date(this.clock).toISOString(),
				message: `${platform} post ${n}`,
			};
			this.posts[platform] = [post, ...(this.posts[platform] ?? [])];
			added.push(post);
		}
		return added;
	}

	fetch = async (round: { platforms: string[]; cursor?: string }): Promise<DataPostsResponse> => {
		this.rounds.push(round);
		const cursors = Object.fromEntries(
			(round.cursor ?? '').split(',').filter(Boolean).map((c) => [c.split('@')[0], Number.parseInt(c.split('@')[1], 10)]),
		);
		const data: DataPost[] = [];
		const statuses: PlatformStatus[] = [];
		for (const platform of round.platforms) {
			const failure = this.failing[platform];
			if (failure && failure.times > 0) {
				failure.times--;
				statuses.push({ platform, success: false, error_code: failure.code, message: `${platform} broke` });
				continue;
			}
			const sent = round.cursor?.split(',').find((c) => c.startsWith(`${platform}@`));
			if (sent && this.expired.has(sent)) {
				statuses.push({ platform, success: false, error_code: 'invalid_cursor', message: `${platform}: the cursor has expired` });
				continue;
			}
			const listed = this.posts[platform] ?? [];
			const pin = this.pinned.has(platform) && listed.length > 1 ? listed[listed.length - 1] : undefined;
			const all = pin ? listed.slice(0, -1) : listed;
			const size = this.pageSize[platform] ?? 3;
			const offset = cursors[platform] ?? 0;
			const room = pin && offset === 0 ? size - 1 : size;
			const page = all.slice(offset, offset + room);
			data.push(...(pin && offset === 0 ? [pin, ...page] : page));
			const more = offset + room < all.length;
			const next = more ? `${platform}@${offset + room}${this.expiries > 0 ? `~${this.expiries}` : ''}` : null;
			if (next) this.issued.add(next);
			statuses.push({ platform, success: true, count: page.length + (pin && offset === 0 ? 1 : 0), next_cursor: next, has_more: more });
		}
		return { data, meta: { total_results: data.length, platforms: statuses } };
	};

	/** One round as pollOnce takes it. */
	round = async (round: { platforms: string[]; cursor?: string }) => {
		const response = await this.fetch(round);
		return { data: response.data, statuses: response.meta.platforms };
	};
}

export const ids = (posts: DataPost[]) => posts.map((p) => p.platform_id);
