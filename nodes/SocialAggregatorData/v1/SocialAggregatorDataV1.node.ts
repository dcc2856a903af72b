import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';

import { CREDENTIAL_TEST, socialAggregatorApiTest } from '../../shared/credentialTest';
import { router } from './actions/router';
import { versionDescription } from './actions/versionDescription';
import { loadOptions } from './methods';

// The icon is declared (and checked by this rule) in the base description of SocialAggregatorData.node.ts.
// eslint-disable-next-line @n8n/community-nodes/icon-validation
export class SocialAggregatorDataV1 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			...versionDescription,
			usableAsTool: true,
		};
	}

	methods = { loadOptions, credentialTest: { [CREDENTIAL_TEST]: socialAggregatorApiTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
