import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { dataApiAnswer } from '../../shared/answerShapes';
import { checkPlatforms } from '../../shared/dataSearch';
import { platformsField } from '../../shared/dataSearchFields';
import { toList } from '../../shared/input';
import { matchPlatform, platformStatus } from '../../shared/platforms';
import { type Checked, refuse, validOrThrow } from '../../shared/refusal';
import { itemBudgetWait, itemRetryPolicy } from '../../shared/requestOptions';
import { collectRounds, platformFailureItem, type RoundAnswer } from '../../shared/rounds';
import {
	outputChoice,
	type OutputChoice,
	profileShape,
	shapeProfileGroup,
	shapeRecord,
	simplifyField,
	toolOutputFields,
} from '../../shared/simplify';
import { apiRequestChecked, loggedRunBudget } from '../../shared/transport';
import type { PlatformStatus } from '../../shared/types';
import { isObject, recordKey } from '../../shared/utils';
import {
	onPlatformFailureOption,
	platformFailedError,
	platformFailureChoices,
	platformRetriesOption,
} from '../common/platformFailure';
import type { Operation } from '../common/types';

const MAX_PROFILE_HANDLES = 5;

const lookUpProperties: INodeProperties[] = [
	{
		displayName: 'Handles',
		name: 'term',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'nasa, esa',
		description: `Up to ${MAX_PROFILE_HANDLES} handles, comma-separated; on Google a place name to find its place ID`,
	},
	platformsField,
	{
		displayName: 'Output',
		name: 'layout',
		type: 'options',
		options: [
			{
				name: 'One Item per Profile',
				value: 'profiles',
				description: 'Each profile found, with the handle it was found for (term) and exact_match',
			},
			{
				name: 'One Item per Handle and Platform',
				value: 'groups',
				description: 'As the service groups them: platform, term, exact_match and the profiles found in a list',
			},
		],
		default: 'profiles',
	},
	simplifyField({}, true),
	...toolOutputFields({}, profileShape),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Exact Matches Only',
				name: 'exactMatchesOnly',
				type: 'boolean',
				default: false,
				description:
					'Whether to keep only the profiles whose handle is exactly the one asked for (exact_match), leaving out similar ones',
			},
			onPlatformFailureOption,
			platformRetriesOption,
		],
	},
];

const lookUpShow = {
	show: { resource: ['profile'], operation: ['lookUp'] },
};

const lookUpFields = updateDisplayOptions(lookUpShow, lookUpProperties);

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

async function executeLookUp(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const term = this.getNodeParameter('term', itemIndex, '');
	const chosen = this.getNodeParameter('platforms', itemIndex, []);
	const { handles, platforms } = validOrThrow(node, checkProfileInput({ term, platforms: chosen }), itemIndex);

	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const { failItem, maxPlatformRetries } = platformFailureChoices(options);

	const retry = itemRetryPolicy.call(this, itemIndex);
	// The retries of failed platforms share one wait for the key's budget, where the user allows one.
	const budget = loggedRunBudget(this, itemBudgetWait.call(this, itemIndex));
	const outcome = await runProfileLookup({ platforms, maxPlatformRetries }, async (asked) => {
		const qs = { term: handles.join(','), platforms: asked.join(',') };
		const request = { method: 'GET' as const, path: '/data/profiles', qs, itemIndex, retry, budget };
		return await apiRequestChecked(this, request, (body, at) => dataApiAnswer(body, at, true));
	});

	const failed = outcome.statuses.filter((status) => !status.success);
	if (failed.length > 0 && failItem) {
		const [first] = failed;
		const error = { code: first.error_code, message: first.message };
		const why = `Failed platforms: ${failed.map((s) => `${s.platform} (${s.error_code ?? 'platform_error'})`).join(', ')}.`;
		throw platformFailedError(node, itemIndex, first.platform, error, why, 'profiles');
	}

	const layout = this.getNodeParameter('layout', itemIndex, 'profiles') as ProfileLayout;
	const choice = outputChoice((name, fallback) => this.getNodeParameter(name, itemIndex, fallback));
	return [
		...shapeProfiles(outcome.profiles, { layout, exactOnly: options.exactMatchesOnly === true, choice }),
		...failed.map((s) =>
			platformFailureItem(s.platform, { code: s.error_code, message: s.message }, outcome.failures[s.platform] ?? 1),
		),
	];
}

type ProfileLayout = 'profiles' | 'groups';

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

export const profileDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['profile'] } },
		options: [
			{
				name: 'Look Up',
				value: 'lookUp',
				description: 'Find the profiles (and Google place IDs) behind up to 5 handles on several platforms',
				action: 'Look up profiles',
			},
		],
		default: 'lookUp',
	},
	...lookUpFields,
];

/** The operations of this resource by their values: the router runs the chosen one once per input item. */
export const profileOperations: Record<string, Operation> = { lookUp: executeLookUp };
