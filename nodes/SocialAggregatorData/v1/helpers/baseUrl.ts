import type { IExecuteFunctions } from 'n8n-workflow';

import { checkBaseUrl } from '../../../shared/baseUrl';
import { refusalError } from '../../../shared/refusal';
import { getBaseUrl } from '../../../shared/transport';

/**
 * The base URL of the key issuance endpoints, which take no API key: typed in
 * the node (someone without a key has no credential yet) or taken from a
 * credential, of which only the Base URL is used. Both go through the one
 * Base URL check.
 */
export async function keyIssuanceBaseUrl(this: IExecuteFunctions, itemIndex: number): Promise<string> {
	const source = this.getNodeParameter('baseUrlSource', itemIndex, 'parameter') as string;
	if (source === 'credential') return await getBaseUrl.call(this, itemIndex);
	const checked = checkBaseUrl(this.getNodeParameter('baseUrl', itemIndex, ''));
	if (!checked.ok) throw refusalError(this.getNode(), checked.refusal, itemIndex);
	return checked.value;
}
