import { updateDisplayOptions } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { checkAnswer } from '../../../../shared/answers';
import { checkEmail } from '../../../../shared/input';
import { refusalError } from '../../../../shared/refusal';
import { itemRetryPolicy } from '../../../../shared/requestOptions';
import { apiRequestFull } from '../../../../shared/transport';
import { keyIssuanceBaseUrl } from '../../helpers/baseUrl';
import { requestItem } from '../../helpers/keys';

const properties: INodeProperties[] = [
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

const displayOptions = { show: { resource: ['apiKey'], operation: ['request'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const email = checkEmail(this.getNodeParameter('email', itemIndex, ''));
	if (!email.ok) throw refusalError(node, email.refusal, itemIndex);
	const clientName = String(this.getNodeParameter('clientName', itemIndex, '')).trim();
	if (!clientName) {
		throw refusalError(node, { field: 'Client Name', reason: 'the client name is empty' }, itemIndex);
	}
	const baseUrl = await keyIssuanceBaseUrl.call(this, itemIndex);

	const response = await apiRequestFull.call(this, {
		method: 'POST',
		path: '/authorize',
		body: { email: email.value, client_name: clientName },
		baseUrl,
		authenticated: false,
		itemIndex,
		retry: itemRetryPolicy.call(this, itemIndex),
	});
	const where = { request: 'POST /authorize', statusCode: response.statusCode, itemIndex };
	const json = checkAnswer(node, () => requestItem(response.statusCode, response.body, email.value), where);
	return [{ json, pairedItem: { item: itemIndex } }];
}
