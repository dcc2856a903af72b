import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { recordAnswer, UnusableAnswer } from '../../../../shared/answers';
import { checkBaseUrl } from '../../../../shared/baseUrl';
import { checkEmail } from '../../../../shared/input';
import { refusalError, valid } from '../../../../shared/refusal';
import { itemRetryPolicy } from '../../../../shared/requestOptions';
import { apiRequestChecked, getBaseUrl } from '../../../../shared/transport';

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

/** Where key requests go (they take no API key): the typed Base URL, or only the Base URL of a credential. */
export async function keyIssuanceBaseUrl(this: IExecuteFunctions, itemIndex: number): Promise<string> {
	const source = this.getNodeParameter('baseUrlSource', itemIndex, 'parameter') as string;
	if (source === 'credential') return await getBaseUrl.call(this, itemIndex);
	return valid(this.getNode(), checkBaseUrl(this.getNodeParameter('baseUrl', itemIndex, '')), itemIndex);
}

/** The fields of an answer that an item keeps; an issued key appears only in the item, never in a log or an error. */
export function pick(body: IDataObject, fields: string[]): IDataObject {
	return Object.fromEntries(fields.filter((field) => body[field] !== undefined).map((field) => [field, body[field]]));
}

export const PLAN_FIELDS = ['rate_limit', 'upgrade_hint', 'upgrade_url'];

/** The first words of every issued key's next_step. */
export const SAVE_KEY = 'Save api_key in a Social Aggregator API credential (with the same Base URL); it is shown only here';

/** The answer of POST /authorize: Mode A (a key at once) or Mode B (approval needed). */
export function requestItem(statusCode: number, body: unknown, email: string): IDataObject {
	const data = recordAnswer(body, { statusCode });
	const status = String(data.status ?? '');
	if (status === 'issued' || (status === '' && typeof data.api_key === 'string')) {
		const confirm = data.email_confirmation_required === true;
		return {
			status: 'issued',
			mode: 'immediate',
			...pick(data, ['api_key', 'expires_at', 'email_confirmation_required', ...PLAN_FIELDS]),
			next_step: confirm
				? `${SAVE_KEY}. Confirm ${email} from the email the service sent: until then the key lasts 2 hours at 60 requests per hour, and Data API calls may answer email_confirmation_required. Confirmed, the same key lasts 12 hours in all.`
				: `${SAVE_KEY}.`,
		};
	}
	if (status === 'pending_authorization' || typeof data.request_id === 'string') {
		return {
			status: 'pending_authorization',
			mode: 'approval',
			...pick(data, ['request_id', 'authorization_url', 'poll_url', 'poll_interval', 'expires_at', ...PLAN_FIELDS]),
			next_step: `${email} already has a confirmed account: open authorization_url, sign in and approve. Then run API Key → Wait for Approval (or Get Authorization Status) with this request_id to receive a 12-hour key.`,
		};
	}
	throw new UnusableAnswer('it holds neither an `api_key` nor a `request_id`', undefined, statusCode);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
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
