import type { INodeProperties } from 'n8n-workflow';

import * as getStatus from './getStatus.operation';
import * as request from './request.operation';
import * as waitForApproval from './waitForApproval.operation';

export { getStatus, request, waitForApproval };

const show = { resource: ['apiKey'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show },
		options: [
			{
				name: 'Get Authorization Status',
				value: 'getStatus',
				description: 'Ask once whether an authorization request is pending, issued (with the key) or gone',
				action: 'Get authorization status',
			},
			{
				name: 'Request',
				value: 'request',
				description:
					'Request a temporary key for an email: a new email gets it at once, a confirmed account must approve it',
				action: 'Request an API key',
			},
			{
				name: 'Wait for Approval',
				value: 'waitForApproval',
				description: 'Poll an authorization request until the key is issued, the request is gone, or a timeout',
				action: 'Wait for API key approval',
			},
		],
		default: 'request',
	},
	{
		displayName:
			'Key requests need no API key. The node only needs the address of the API: type it below, or take the Base URL of an existing Social Aggregator API credential (its key is not sent). Save an issued key in that credential; it is shown only in this node’s output.',
		name: 'keyIssuanceNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	{
		displayName: 'Base URL Source',
		name: 'baseUrlSource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Enter Base URL',
				value: 'parameter',
				description: 'For when there is no key, and so no credential, yet',
			},
			{
				name: 'From Credential',
				value: 'credential',
				description: 'The Base URL of a Social Aggregator API credential; its key is not sent',
			},
		],
		default: 'parameter',
		displayOptions: { show },
	},
	{
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://api.example.com/v1',
		description: 'The address of the API, including the version prefix /v1',
		displayOptions: { show: { ...show, baseUrlSource: ['parameter'] } },
	},
	...request.description,
	...getStatus.description,
	...waitForApproval.description,
];
