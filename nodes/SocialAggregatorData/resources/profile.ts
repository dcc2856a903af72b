import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { dataApiAnswer } from '../../shared/answerShapes';
import { platformsField } from '../../shared/dataSearchFields';
import { validOrThrow } from '../../shared/refusal';
import { itemBudgetWait, itemRetryPolicy } from '../../shared/requestOptions';
import { platformFailureItem } from '../../shared/rounds';
import { outputChoice, profileShape, simplifyField, toolOutputFields } from '../../shared/simplify';
import { apiRequestChecked } from '../../shared/transport';
import {
	onPlatformFailureOption,
	platformFailedError,
	platformFailureChoices,
	platformRetriesOption,
} from '../common/platformFailure';
import { checkProfileInput, MAX_PROFILE_HANDLES, runProfileLookup, shapeProfiles, type ProfileLayout } from '../common/profiles';
import type { Operation } from '../common/operation';
import { loggedRunBudget } from '../../shared/runBudget';

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
