import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { checkAnswer, dataApiAnswer } from '../../../../shared/answers';
import { platformFailureItem } from '../../../../shared/pagination';
import { platformsField } from '../../../../shared/dataSearchFields';
import { refusalError } from '../../../../shared/refusal';
import { itemRetryPolicy } from '../../../../shared/requestOptions';
import { apiRequestFull } from '../../../../shared/transport';
import { checkProfileInput, MAX_PROFILE_HANDLES } from '../../helpers/input';
import { runProfileLookup } from '../../helpers/profiles';
import {
	onPlatformFailureOption,
	platformFailedError,
	platformFailureChoices,
	platformRetriesOption,
} from '../platformFailure';

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

const displayOptions = {
	show: { resource: ['profile'], operation: ['lookUp'] },
};

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
	const { failItem, maxPlatformRetries } = platformFailureChoices(options);

	const retry = itemRetryPolicy.call(this, itemIndex);
	const outcome = await runProfileLookup({ platforms, maxPlatformRetries }, async (asked) => {
		const response = await apiRequestFull.call(this, {
			method: 'GET',
			path: '/data/profiles',
			qs: { term: handles.join(','), platforms: asked.join(',') },
			itemIndex,
			retry,
		});
		const where = {
			request: 'GET /data/profiles',
			statusCode: response.statusCode,
			itemIndex,
		};
		return checkAnswer(this.getNode(), () => dataApiAnswer(response.body, where, true), where);
	});

	const failed = outcome.statuses.filter((status) => !status.success);
	if (failed.length > 0 && failItem) {
		const [first] = failed;
		const error = { code: first.error_code, message: first.message };
		const why = `Failed platforms: ${failed.map((s) => `${s.platform} (${s.error_code ?? 'platform_error'})`).join(', ')}.`;
		throw platformFailedError(node, itemIndex, first.platform, error, why, 'profiles');
	}

	const items: IDataObject[] = [
		...outcome.profiles,
		...failed.map((s) =>
			platformFailureItem(s.platform, { code: s.error_code, message: s.message }, outcome.failures[s.platform] ?? 1),
		),
	];
	return items.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}
