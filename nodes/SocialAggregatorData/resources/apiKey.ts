import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkBaseUrl } from '../../shared/baseUrl';
import { checkEmail } from '../../shared/input';
import { refusalError, validOrThrow } from '../../shared/refusal';
import { itemRetryPolicy } from '../../shared/requestOptions';
import { retryTiming } from '../../shared/retry';
import { apiRequestChecked, getBaseUrl } from '../../shared/transport';
import { plural } from '../../shared/utils';
import { checkRequestId, pollItem, requestItem, waitForApproval, type PollResult } from '../common/keyIssuance';
import type { Operation } from '../common/operation';

const requestProperties: INodeProperties[] = [
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		required: true,
		default: '',
		description:
			'The email the key is for. A new or unconfirmed email gets a key at once; an email with a confirmed account gets a link to approve the request.',
	},
	{
		displayName: 'Client Name',
		name: 'clientName',
		type: 'string',
		required: true,
		default: 'n8n',
		description: 'The name shown to the account owner when they approve the request',
	},
];

const requestShow = { show: { resource: ['apiKey'], operation: ['request'] } };

const requestFields = updateDisplayOptions(requestShow, requestProperties);

/** Where key requests go (they take no API key): the typed Base URL, or only the Base URL of a credential. */
async function keyIssuanceBaseUrl(this: IExecuteFunctions, itemIndex: number): Promise<string> {
	const source = this.getNodeParameter('baseUrlSource', itemIndex, 'parameter') as string;
	if (source === 'credential') return await getBaseUrl.call(this, itemIndex);
	return validOrThrow(this.getNode(), checkBaseUrl(this.getNodeParameter('baseUrl', itemIndex, '')), itemIndex);
}

async function executeRequest(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const email = checkEmail(this.getNodeParameter('email', itemIndex, ''));
	if (!email.ok) throw refusalError(node, email.refusal, itemIndex);
	const clientName = String(this.getNodeParameter('clientName', itemIndex, '')).trim();
	if (!clientName) {
		throw refusalError(node, { field: 'Client Name', reason: 'the client name is empty' }, itemIndex);
	}
	const baseUrl = await keyIssuanceBaseUrl.call(this, itemIndex);

	const body = { email: email.value, client_name: clientName };
	const retry = itemRetryPolicy.call(this, itemIndex);
	const request = { method: 'POST' as const, path: '/authorize', body, baseUrl, authenticated: false, itemIndex, retry };
	return [await apiRequestChecked(this, request, (answer, at) => requestItem(at.statusCode, answer, email.value))];
}

const requestIdField: INodeProperties = {
	displayName: 'Request ID',
	name: 'requestId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. {{ $json.request_id }}',
	description: 'The request_id (or the poll_url) that API Key → Request returned',
};

const getStatusProperties: INodeProperties[] = [requestIdField];

const getStatusShow = { show: { resource: ['apiKey'], operation: ['getStatus'] } };

const getStatusFields = updateDisplayOptions(getStatusShow, getStatusProperties);

/** Reads the Request ID parameter and returns a function asking GET /authorize/{request_id} once. */
async function preparePoll(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<{ requestId: string; poll: () => Promise<PollResult> }> {
	const given = this.getNodeParameter('requestId', itemIndex, '');
	// A poll_url too: it is checked against the Base URL.
	const baseUrl = await keyIssuanceBaseUrl.call(this, itemIndex);
	const { path, requestId } = validOrThrow(this.getNode(), checkRequestId(given, baseUrl), itemIndex);
	const retry = itemRetryPolicy.call(this, itemIndex);
	const request = `GET /authorize/${requestId}`;
	const options = { method: 'GET' as const, path, baseUrl, authenticated: false, acceptStatuses: [202, 410], itemIndex, retry, request };
	const poll = async (): Promise<PollResult> =>
		await apiRequestChecked(this, options, (body, at) => pollItem(at.statusCode, body, requestId));
	return { requestId, poll };
}

async function executeGetStatus(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const { poll } = await preparePoll.call(this, itemIndex);
	const { item } = await poll();
	return [item];
}

const waitForApprovalProperties: INodeProperties[] = [
	requestIdField,
	{
		displayName: 'Poll Interval (Seconds)',
		name: 'pollInterval',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 2,
		description: 'Seconds between polls: the poll_interval that API Key → Request returned',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 600,
		description:
			'How long to wait for the approval before giving up with an error. A request expires after about 10 minutes.',
	},
];

const waitForApprovalShow = { show: { resource: ['apiKey'], operation: ['waitForApproval'] } };

const waitForApprovalFields = updateDisplayOptions(waitForApprovalShow, waitForApprovalProperties);

async function executeWaitForApproval(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const { requestId, poll } = await preparePoll.call(this, itemIndex);
	const intervalSeconds = Number(this.getNodeParameter('pollInterval', itemIndex, 2));
	const timeoutSeconds = Number(this.getNodeParameter('timeout', itemIndex, 600));
	const intervalMs = Number.isFinite(intervalSeconds) && intervalSeconds > 0 ? intervalSeconds * 1000 : 2000;
	const timeoutMs = Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? timeoutSeconds * 1000 : 600_000;

	const { result, polls, waitedMs, timedOut } = await waitForApproval({
		poll,
		sleep: async (ms) => await retryTiming.sleep(ms),
		now: () => retryTiming.now(),
		intervalMs,
		timeoutMs,
	});

	if (timedOut) {
		throw new NodeOperationError(
			node,
			`No approval for request ${requestId} within ${Math.round(timeoutMs / 1000)} s`,
			{
				itemIndex,
				description: `Polled ${plural(polls, 'time')} over ${Math.round(waitedMs / 1000)} s; the request was still pending. The account owner must open its authorization_url and approve it; a longer Timeout waits longer, and Get Authorization Status asks once.`,
			},
		);
	}
	if (result.state === 'gone') {
		throw new NodeOperationError(node, `The authorization request ${requestId} is gone`, {
			itemIndex,
			description: `${String(result.item.message)} Request a new key with API Key → Request.`,
		});
	}
	return [result.item];
}

const show = { resource: ['apiKey'] };

export const apiKeyDescription: INodeProperties[] = [
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
	...requestFields,
	...getStatusFields,
	...waitForApprovalFields,
];

/** The operations of this resource by their values: the router runs the chosen one once per input item. */
export const apiKeyOperations: Record<string, Operation> = {
	request: executeRequest,
	getStatus: executeGetStatus,
	waitForApproval: executeWaitForApproval,
};
