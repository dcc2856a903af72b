import type { IDataObject } from 'n8n-workflow';

import { collectRounds, matchPlatform, postKey, type RoundAnswer } from '../../../shared/pagination';
import type { PlatformStatus } from '../../../shared/types';

export interface ProfileLookupOutcome {
	profiles: IDataObject[];
	/** The last report per platform. */
	statuses: PlatformStatus[];
	/** Failed attempts per platform. */
	failures: Record<string, number>;
	requests: number;
}

/**
 * Profiles → Look Up (GET /data/profiles) as Data API rounds without cursors:
 * one request for all platforms, then the platforms that failed with a
 * retryable error, alone, a bounded number of times.
 */
export async function runProfileLookup(
	plan: { platforms: string[]; maxPlatformRetries: number },
	fetch: (platforms: string[]) => Promise<RoundAnswer<IDataObject>>,
): Promise<ProfileLookupOutcome> {
	const outcome = await collectRounds<IDataObject>({
		...plan,
		maxRequests: plan.platforms.length * (plan.maxPlatformRetries + 1),
		// A profile is one per platform and handle, whatever other fields it has.
		key: (profile) =>
			postKey({
				platform: profile.platform,
				platform_id: profile.platform_id,
				url: profile.url ?? profile.term,
			}),
		fetchRound: async ({ platforms }) => {
			const { data, statuses: reported } = await fetch(platforms);
			// Without a report, a platform whose profiles came back is fine (SPEC.md does not show this answer).
			const unreported = platforms.filter(
				(p) =>
					!matchPlatform(
						p,
						reported.map((s) => String(s?.platform)),
					) && data.some((d) => matchPlatform(d.platform, [p])),
			);
			return {
				data,
				statuses: [...reported, ...unreported.map((platform) => ({ platform, success: true }))],
			};
		},
	});
	const last = (platform: string) => outcome.pages.filter((page) => page.platform === platform).pop()!.status;
	const failures = Object.fromEntries(
		outcome.progress.filter((p) => p.failures > 0).map((p) => [p.platform, p.failures]),
	);
	return {
		profiles: outcome.items,
		statuses: plan.platforms.map(last),
		failures,
		requests: outcome.requests,
	};
}
