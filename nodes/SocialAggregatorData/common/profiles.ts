import type { IDataObject } from 'n8n-workflow';

import { checkPlatforms } from '../../shared/dataSearch';
import { toList } from '../../shared/input';
import { matchPlatform, platformStatus } from '../../shared/platforms';
import { type Checked, refuse } from '../../shared/refusal';
import { collectRounds, type RoundAnswer } from '../../shared/rounds';
import { type OutputChoice, profileShape, shapeProfileGroup, shapeRecord } from '../../shared/simplify';
import type { PlatformStatus } from '../../shared/types';
import { isObject, recordKey } from '../../shared/utils';

// Profiles → Look Up below its operation: the handles and platforms checked, the rounds, and the profiles as output.

export const MAX_PROFILE_HANDLES = 5;

/** Up to five comma-separated handles and known platforms. */
export function checkProfileInput(raw: {
	term: unknown;
	platforms: unknown;
}): Checked<{ handles: string[]; platforms: string[] }> {
	const handles = toList(raw.term);
	if (handles.length === 0) {
		return refuse({ field: 'Handles', reason: 'no handle is given', hint: 'Enter up to 5 handles, comma-separated.' });
	}
	if (handles.length > MAX_PROFILE_HANDLES) {
		return refuse({
			field: 'Handles',
			reason: `${handles.length} handles are given; the service looks up at most ${MAX_PROFILE_HANDLES} at a time`,
			hint: 'Split the handles over several input items.',
		});
	}
	const platforms = checkPlatforms(raw.platforms);
	if (!platforms.ok) return platforms;
	return { ok: true, value: { handles, platforms: platforms.value } };
}

/** GET /data/profiles in rounds without cursors: all platforms, then each retryable failure alone, bounded. */
export async function runProfileLookup(
	plan: { platforms: string[]; maxPlatformRetries: number },
	fetch: (platforms: string[]) => Promise<RoundAnswer<IDataObject>>,
): Promise<{ profiles: IDataObject[]; statuses: PlatformStatus[]; failures: Record<string, number> }> {
	const outcome = await collectRounds<IDataObject>({
		...plan,
		maxRequests: plan.platforms.length * (plan.maxPlatformRetries + 1),
		// A profile is one per platform and handle, whatever other fields it has.
		key: (profile) =>
			recordKey({
				platform: profile.platform,
				platform_id: profile.platform_id,
				url: profile.url ?? profile.term,
			}),
		fetchRound: async ({ platforms }) => {
			const { data, statuses: reported } = await fetch(platforms);
			// Without a report, a platform whose profiles came back is fine (reports may be missing: docs/service.md#profiles).
			const unreported = platforms.filter(
				(p) => !platformStatus(reported, p) && data.some((d) => matchPlatform(d.platform, [p])),
			);
			return {
				data,
				statuses: [...reported, ...unreported.map((platform) => ({ platform, success: true }))],
			};
		},
	});
	// The last report per platform.
	const last = (platform: string) => outcome.pages.filter((page) => page.platform === platform).pop()!.status;
	const failures = Object.fromEntries(
		outcome.progress.filter((p) => p.failures > 0).map((p) => [p.platform, p.failures]),
	);
	return { profiles: outcome.items, statuses: plan.platforms.map(last), failures };
}

export type ProfileLayout = 'profiles' | 'groups';

const bare = (value: unknown) =>
	String(value ?? '')
		.trim()
		.replace(/^@/, '')
		.toLowerCase();

/** A group of the live shape (`profiles` null: none), or a flat profile of the earlier shape as a group of one. */
const isGroup = (record: IDataObject) => 'profiles' in record;

function asGroup(record: IDataObject): IDataObject {
	if (isGroup(record)) return { ...record, profiles: Array.isArray(record.profiles) ? record.profiles : [] };
	return { platform: record.platform, term: record.term, exact_match: record.exact_match, profiles: [record] };
}

/** exact_match as answered; where the answer does not say, whether a profile's handle is the term itself. */
function exactMatch(group: IDataObject): boolean {
	if (typeof group.exact_match === 'boolean') return group.exact_match;
	const term = bare(group.term);
	const profiles = (group.profiles as unknown[]).filter(isObject);
	return term !== '' && profiles.some((profile) => bare(profile.handle ?? profile.name) === term);
}

/**
 * The profiles of a lookup in the chosen layout and output. Both answer shapes become groups first (one per
 * platform and handle, the flat shape's profiles gathered under theirs), so the layouts are the same whatever
 * the service answered.
 */
export function shapeProfiles(
	records: IDataObject[],
	chosen: { layout: ProfileLayout; exactOnly: boolean; choice: OutputChoice },
): IDataObject[] {
	const { layout, exactOnly, choice } = chosen;
	const groups: IDataObject[] = [];
	const byKey = new Map<string, IDataObject>();
	for (const record of records) {
		const group = asGroup(record);
		const profiles = (group.profiles as unknown[]).filter(isObject);
		// The flat shape has one record per profile: gather those of one platform and handle.
		const key = isGroup(record) ? undefined : `${bare(group.platform)}|${bare(group.term)}`;
		const known = key === undefined ? undefined : byKey.get(key);
		if (known) {
			(known.profiles as IDataObject[]).push(...profiles);
			continue;
		}
		const copy = { ...group, profiles: [...profiles] };
		if (key !== undefined) byKey.set(key, copy);
		groups.push(copy);
	}
	for (const group of groups) group.exact_match = exactMatch(group);
	const kept = exactOnly ? groups.filter((group) => group.exact_match === true) : groups;

	if (layout === 'groups') return kept.map((group) => shapeProfileGroup(group, choice));
	return kept.flatMap((group) =>
		(group.profiles as IDataObject[]).map((profile) =>
			shapeRecord({ ...profile, term: group.term, exact_match: group.exact_match }, profileShape, choice),
		),
	);
}
