/* eslint-disable n8n-nodes-base/node-filename-against-convention -- the description of version 1, spread into SocialAggregatorDataV1 (n8n's versioned-node layout) */
import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../../../shared/constants';
import { CREDENTIAL_TEST } from '../../../shared/credentialTest';
import { requestOptionsCollection } from '../../../shared/requestOptions';
import * as apiKey from './apiKey/ApiKey.resource';
import * as post from './posts/Posts.resource';
import * as profile from './profiles/Profiles.resource';

export const versionDescription: INodeTypeDescription = {
	displayName: 'Social Aggregator Data',
	name: 'socialAggregatorData',
	icon: { light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' },
	group: ['input'],
	version: 1,
	subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
	description: 'Search recent social posts across platforms, look up profiles and request API keys',
	defaults: { name: 'Social Aggregator Data' },
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	usableAsTool: true,
	credentials: [
		{
			name: CREDENTIAL_NAME,
			required: true,
			testedBy: CREDENTIAL_TEST,
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
		...post.description,
		...profile.description,
		...apiKey.description,
		requestOptionsCollection,
	],
};
