import type { DataPost, PlatformStatus } from '../../../nodes/shared/types';

/** A Data API search answer as docs/service.md#cursors describes it. */
export interface DataPostsResponse {
	data: DataPost[];
	meta: { total_results: number; platforms: PlatformStatus[] };
}
