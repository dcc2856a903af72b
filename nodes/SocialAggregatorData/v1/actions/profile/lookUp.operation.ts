import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { dataApiAnswer } from '../../../../shared/answers';
import { checkPlatforms } from '../../../../shared/dataSearch';
import { platformsField } from '../../../../shared/dataSearchFields';
import { toList } from '../../../../shared/input';
import {
	collectRounds,
	matchPlatform,
	platformFailureItem,
	platformStatus,
	postKey,
	type RoundAnswer,
} from '../../../../shared/pagination';
import { refuse, valid, type Checked } from '../../../../shared/refusal';
import { itemBudgetWait, itemRetryPolicy } from '../../../../shared/requestOptions';
import { apiRequestChecked, loggedRunBudget } from '../../../../shared/transport';
import type { PlatformStatus } from '../../../../shared/types';
import {
	onPlatformFailureOption,
	platformFailedError,
	platformFailureChoices,
	platformRetriesOption,
} from '../platformFailure';

const MAX_PROFILE_HANDLES = 5;

const properties: INodeProperties[] = [
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
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [onPlatformFailureOption, platformRetriesOption],
	},
];

const displayOptions = {
	show: { resource: ['profile'], operation: ['lookUp'] },
};

export const description = updateDisplayOptions(displayOptions, properties);

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
			postKey({
				platform: profile.platform,
				platform_id: profile.platform_id,
				url: profile.url ?? profile.term,
			}),
		fetchRound: async ({ platforms }) => {
			const { data, statuses: reported } = await fetch(platforms);
			// Without a report, a platform whose profiles came back is fine (SPEC.md does not show this answer).
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

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const term = this.getNodeParameter('term', itemIndex, '');
	const chosen = this.getNodeParameter('platforms', itemIndex, []);
	const { handles, platforms } = valid(node, checkProfileInput({ term, platforms: chosen }), itemIndex);

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

	return [
		...outcome.profiles,
		...failed.map((s) =>
			platformFailureItem(s.platform, { code: s.error_code, message: s.message }, outcome.failures[s.platform] ?? 1),
		),
	];
}
