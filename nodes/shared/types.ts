import type { IDataObject } from 'n8n-workflow';

/** `meta` of the service's page-numbered lists. */
export interface ListMeta {
	page: number;
	per_page: number;
	total_count: number;
	total_pages: number;
}

/** One element of `meta.platforms` in Data API responses. */
export interface PlatformStatus {
	platform: string;
	success: boolean;
	count?: number;
	next_cursor?: string | null;
	has_more?: boolean;
	error_code?: string;
	message?: string;
}

export interface DataPost extends IDataObject {
	platform: string;
	platform_id: string | null;
	url: string | null;
	post_created_at: string | null;
	message: string | null;
}

export interface WebhookSubscription extends IDataObject {
	id: number;
	url: string;
	subscribed_events: string[];
	status: string;
	consecutive_failures: number;
	secret?: string;
}
