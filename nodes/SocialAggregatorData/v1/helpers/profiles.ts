import type { IDataObject } from 'n8n-workflow';

import { matchPlatform, platformStatus, RETRYABLE_PLATFORM_ERRORS } from '../../../shared/pagination';
import type { PlatformStatus } from '../../../shared/types';

/**
 * Profiles → Look Up (GET /data/profiles): one request for all platforms; a
 * platform that fails with `fetch_timeout` or `platform_error` is asked again,
 * alone with the other failed ones, a bounded number of times.
 */

export interface ProfilesResponse {
	data?: IDataObject[];
	meta?: { platforms?: PlatformStatus[] };
}

export interface ProfileLookupOutcome {
	profiles: IDataObject[];
	/** The last report per platform. */
	statuses: PlatformStatus[];
	/** Failed attempts per platform. */
	failures: Record<string, number>;
	requests: number;
}

export async function runProfileLookup(
	plan: { platforms: string[]; maxPlatformRetries: number },
	fetch: (platforms: string[]) => Promise<ProfilesResponse>,
): Promise<ProfileLookupOutcome> {
	const profiles: IDataObject[] = [];
	const final: Record<string, PlatformStatus> = {};
	const failures: Record<string, number> = {};
	const seen = new Set<string>();
	let open = [...plan.platforms];
	let requests = 0;

	while (open.length > 0) {
		const response = await fetch(open);
		requests++;
		const statuses = Array.isArray(response?.meta?.platforms) ? response.meta.platforms : [];
		for (const profile of Array.isArray(response?.data) ? response.data : []) {
			const key = `${String(profile.platform ?? '').toLowerCase()}\u0000${String(profile.platform_id ?? profile.url ?? profile.term ?? '')}`;
			if (seen.has(key)) continue;
			seen.add(key);
			profiles.push(profile);
		}
		const retry: string[] = [];
		for (const platform of open) {
			const status = platformStatus(statuses, platform);
			// Without a report, a platform whose profiles came back is fine; otherwise it failed.
			const reported: PlatformStatus =
				status ??
				(profiles.some((p) => matchPlatform(p.platform, [platform]))
					? { platform, success: true }
					: {
							platform,
							success: false,
							error_code: 'missing_status',
							message: 'The service did not report on this platform',
						});
			final[platform] = reported;
			if (!reported.success) {
				failures[platform] = (failures[platform] ?? 0) + 1;
				const code = reported.error_code ?? 'platform_error';
				if (RETRYABLE_PLATFORM_ERRORS.includes(code) && failures[platform] <= plan.maxPlatformRetries) {
					retry.push(platform);
				}
			}
		}
		open = retry;
	}

	return {
		profiles,
		statuses: plan.platforms.map((p) => final[p]),
		failures,
		requests,
	};
}

/** A status item for a platform whose lookup failed for good. */
export function profileFailureItem(status: PlatformStatus, failedAttempts: number): IDataObject {
	return {
		type: 'platform_status',
		platform: status.platform,
		success: false,
		error_code: status.error_code ?? 'platform_error',
		message: status.message ?? status.error_code ?? 'The platform failed',
		failed_attempts: failedAttempts,
	};
}
