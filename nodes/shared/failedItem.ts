import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { errorItem, toNodeError } from './errors';
import { StoppedPartWay } from './pages';

/**
 * A failed item as n8n shows it: its error thrown, or with Continue On Fail an error item after what a list that
 * stopped part way had fetched (`output` makes those records the node's items). `explain` makes the error the node
 * reports of why the item failed, and of the list that stopped.
 */
export function failedItem(
	node: INode,
	caught: unknown,
	run: {
		itemIndex: number;
		continueOnFail: boolean;
		output: (records: IDataObject[]) => INodeExecutionData[];
		explain?: (reason: unknown, stopped: StoppedPartWay<IDataObject> | undefined) => unknown;
	},
): INodeExecutionData[] {
	const stopped = caught instanceof StoppedPartWay ? (caught as StoppedPartWay<IDataObject>) : undefined;
	const reason: unknown = stopped ? stopped.reason : caught;
	const error = toNodeError(node, run.explain ? run.explain(reason, stopped) : reason, run.itemIndex);
	if (!run.continueOnFail) throw error;
	return [...run.output(stopped?.items ?? []), errorItem(node, error, run.itemIndex)];
}
