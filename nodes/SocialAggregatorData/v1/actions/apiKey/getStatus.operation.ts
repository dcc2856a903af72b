import { updateDisplayOptions } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { preparePoll } from '../../helpers/poll';

export const requestIdField: INodeProperties = {
	displayName: 'Request ID',
	name: 'requestId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. {{ $json.request_id }}',
	description: 'The request_id (or the poll_url) that API Key → Request returned',
};

const properties: INodeProperties[] = [requestIdField];

const displayOptions = { show: { resource: ['apiKey'], operation: ['getStatus'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const { poll } = await preparePoll.call(this, itemIndex);
	const { item } = await poll();
	return [{ json: item, pairedItem: { item: itemIndex } }];
}
