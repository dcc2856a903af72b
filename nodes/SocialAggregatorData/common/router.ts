import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { failedItem } from '../../shared/failedItem';
import { apiKeyOperations } from '../resources/apiKey';
import { postOperations } from '../resources/post';
import { profileOperations } from '../resources/profile';
import type { Operation } from './operation';

// Each resource file exports its operations by their values (`<resource>Operations`): a new operation is an entry
// there, a new resource one here.
const resources: Record<string, Record<string, Operation | undefined>> = {
	apiKey: apiKeyOperations,
	post: postOperations,
	profile: profileOperations,
};

/** Runs the chosen operation once per input item; with Continue On Fail a failed item becomes an error item. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	// Own properties only: "toString" or "constructor" (through an expression) is no operation.
	const operations = Object.prototype.hasOwnProperty.call(resources, resource) ? resources[resource] : undefined;
	const chosen = operations && Object.prototype.hasOwnProperty.call(operations, operation) ? operations[operation] : undefined;
	if (typeof chosen !== 'function') {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}

	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const answered = await chosen.call(this, itemIndex);
			returnData.push(...answered.map((json) => ({ json, pairedItem: { item: itemIndex } })));
		} catch (caught) {
			const output = (records: IDataObject[]) => records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
			returnData.push(...failedItem(this.getNode(), caught, { itemIndex, continueOnFail: this.continueOnFail(), output }));
		}
	}
	return [returnData];
}
