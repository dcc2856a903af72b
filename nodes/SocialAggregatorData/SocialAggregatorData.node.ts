import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { getDataPlatforms } from '../shared/loadOptions';
import { requestOptionsCollection } from '../shared/requestOptions';
import { router } from './common/router';
import { apiKeyDescription } from './resources/apiKey';
import { postDescription } from './resources/post';
import { profileDescription } from './resources/profile';

export class SocialAggregatorData implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Social Aggregator Data',
		name: 'socialAggregatorData',
		icon: { light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' },
		group: ['input'],
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Search recent social posts across platforms, look up profiles and request API keys',
		version: 1,
		defaults: { name: 'Social Aggregator Data' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [
			{
				name: 'socialAggregatorApi',
				required: true,
				// Key requests need no key: with a typed Base URL the credential is not asked for.
				displayOptions: { hide: { baseUrlSource: ['parameter'] } },
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'API Key', value: 'apiKey' },
					{ name: 'Post', value: 'post' },
					{ name: 'Profile', value: 'profile' },
				],
				default: 'post',
			},
			...postDescription,
			...profileDescription,
			...apiKeyDescription,
			requestOptionsCollection,
		],
	};

	methods = { loadOptions: { getDataPlatforms } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
