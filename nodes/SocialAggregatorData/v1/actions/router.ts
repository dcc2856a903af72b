import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { toNodeError } from '../helpers/errors';
import * as apiKey from './apiKey/ApiKey.resource';
import type { SocialAggregatorDataType } from './node.type';
import * as post from './posts/Posts.resource';
import * as profile from './profiles/Profiles.resource';

type Operation = (this: IExecuteFunctions, itemIndex: number) => Promise<INodeExecutionData[]>;

const operations: { [R in SocialAggregatorDataType['resource']]: Record<string, Operation> } = {
	post: { search: post.search.execute },
	profile: { lookUp: profile.lookUp.execute },
	apiKey: {
		request: apiKey.request.execute,
		getStatus: apiKey.getStatus.execute,
		waitForApproval: apiKey.waitForApproval.execute,
	},
};

/** Runs the chosen operation once per input item; with Continue On Fail a failed item becomes an error item. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as SocialAggregatorDataType['resource'];
	const operation = this.getNodeParameter('operation', 0) as string;
	const run = operations[resource]?.[operation];
	if (!run) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}

	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			returnData.push(...(await run.call(this, itemIndex)));
		} catch (caught) {
			const error = toNodeError(this.getNode(), caught, itemIndex);
			if (this.continueOnFail()) {
				const details: IDataObject = {};
				if (error.description) details.description = error.description;
				const code = error.context?.apiErrorCode;
				if (typeof code === 'string') details.code = code;
				if ('httpCode' in error && error.httpCode) details.httpCode = error.httpCode;
				returnData.push({
					json: { error: error.message, ...(Object.keys(details).length ? { details } : {}) },
					pairedItem: { item: itemIndex },
				});
				continue;
			}
			throw error;
		}
	}
	return [returnData];
}
