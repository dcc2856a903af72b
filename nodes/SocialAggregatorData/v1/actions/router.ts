import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorItem, toNodeError } from '../../../shared/errors';
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
		} catch (error) {
			if (!this.continueOnFail()) throw toNodeError(this.getNode(), error, itemIndex);
			returnData.push(errorItem(this.getNode(), error, itemIndex));
		}
	}
	return [returnData];
}
