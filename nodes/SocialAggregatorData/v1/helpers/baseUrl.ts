import type { IExecuteFunctions } from 'n8n-workflow';

import { refusalError } from '../../../shared/refusal';
import { getBaseUrl } from '../../../shared/transport';
import { checkBaseUrl } from './input';

/**
 * The base URL of the key issuance endpoints, which take no API key: typed in
 * the node (someone without a key has no credential yet) or taken from a
 * credential, of which only the Base URL is used.
 */
export async function keyIssuanceBaseUrl(this: IExecuteFunctions, itemIndex: number): Promise<string> {
	const source = this.getNodeParameter('baseUrlSource', itemIndex, 'parameter') as string;
	const value =
		source === 'credential'
			? await getBaseUrl.call(this, itemIndex)
			: this.getNodeParameter('baseUrl', itemIndex, '');
	const checked = checkBaseUrl(value);
	if (!checked.ok) {
		const refusal =
			source === 'credential'
				? { ...checked.refusal, field: 'Base URL (of the credential)' }
				: checked.refusal;
		throw refusalError(this.getNode(), refusal, itemIndex);
	}
	return checked.value;
}
