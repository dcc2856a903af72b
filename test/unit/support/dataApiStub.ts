import type { DataPost, PlatformStatus } from '../../../nodes/shared/types';
import type { DataPostsResponse } from './dataPostsResponse';

/** A small Data API: posts per platform, newest first, pages of `pageSize`, cursors `<platform>@<offset>`. */
export class DataApiStub {
	posts: Record<string, DataPost[]> = {};

	pageSize: Record<string, number> = {};

	failing: Record<string, { code: string; times: number }> = {};

	rounds: Array<{ platforms: string[]; cursor?: string }> = [];

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
			(round.cursor ?? '').split(',').filter(Boolean).map((c) => [c.split('@')[0], Number(c.split('@')[1])]),
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
			const all = this.posts[platform] ?? [];
			const size = this.pageSize[platform] ?? 3;
			const offset = cursors[platform] ?? 0;
			const page = all.slice(offset, offset + size);
			data.push(...page);
			const more = offset + size < all.length;
			statuses.push({ platform, success: true, count: page.length, next_cursor: more ? `${platform}@${offset + size}` : null, has_more: more });
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
