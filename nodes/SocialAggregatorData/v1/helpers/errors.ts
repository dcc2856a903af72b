import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import { describeRefusal, type InputRefusal } from './input';

/** A refused input as the error n8n shows: the field, the item, the platform and the reason. */
export function refusalError(node: INode, refusal: InputRefusal, itemIndex: number): NodeOperationError {
	const error = new NodeOperationError(node, describeRefusal(refusal, itemIndex), {
		itemIndex,
		description: [
			refusal.hint,
			'Nothing was sent to the service, so no credits were spent.',
		]
			.filter(Boolean)
			.join(' '),
	});
	error.context.field = refusal.field;
	if (refusal.platform) error.context.platform = refusal.platform;
	return error;
}

/** Any error as an n8n node error for the item, keeping the ones the transport made. */
export function toNodeError(node: INode, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error, { itemIndex });
}
