import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { platformLabel } from '../../../../shared/dataSearch';
import { platformsField } from '../../../../shared/dataSearchFields';
import { refusalError } from '../../../../shared/refusal';
import { apiRequest } from '../../../../shared/transport';
import { checkProfileInput, MAX_PROFILE_HANDLES } from '../../helpers/input';
import { profileFailureItem, runProfileLookup, type ProfilesResponse } from '../../helpers/profiles';
import { MAX_PLATFORM_RETRIES, onPlatformFailureOption, platformRetriesOption } from '../common.descriptions';

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
	platformsField(),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [onPlatformFailureOption, platformRetriesOption],
	},
];

const displayOptions = { show: { resource: ['profile'], operation: ['lookUp'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const checked = checkProfileInput({
		term: this.getNodeParameter('term', itemIndex, ''),
		platforms: this.getNodeParameter('platforms', itemIndex, []),
	});
	if (!checked.ok) throw refusalError(node, checked.refusal, itemIndex, checked.also);
	const { handles, platforms } = checked.value;

	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const failItem = options.onPlatformFailure === 'fail';
	const retries = Math.min(
		MAX_PLATFORM_RETRIES,
		Math.max(0, Math.floor(Number(options.platformRetries ?? platformRetriesOption.default))),
	);

	const outcome = await runProfileLookup(
		{ platforms, maxPlatformRetries: Number.isFinite(retries) ? retries : 2 },
		async (asked) =>
			(await apiRequest.call(this, {
				method: 'GET',
				path: '/data/profiles',
				qs: { term: handles.join(','), platforms: asked.join(',') },
				itemIndex,
			})) as unknown as ProfilesResponse,
	);

	const failed = outcome.statuses.filter((status) => !status.success);
	if (failed.length > 0 && failItem) {
		const first = failed[0];
		const code = first.error_code ?? 'platform_error';
		throw new NodeOperationError(
			node,
			`${platformLabel(first.platform)} failed: ${first.message ?? code} (${code})`,
			{
				itemIndex,
				description: `Failed platforms: ${failed.map((s) => `${s.platform} (${s.error_code ?? 'platform_error'})`).join(', ')}. To keep the other platforms’ profiles, set Options → On Platform Failure to “Continue With a Status Item per Failed Platform”.`,
			},
		);
	}

	const items: IDataObject[] = [
		...outcome.profiles,
		...failed.map((status) => profileFailureItem(status, outcome.failures[status.platform] ?? 1)),
	];
	return items.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}
