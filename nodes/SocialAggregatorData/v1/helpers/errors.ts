import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import { platformLabel } from '../../../shared/dataSearch';

/**
 * A platform that still failed after its retries, when the user chose to fail
 * the item: its error, why the operation stopped, and how to keep the other
 * platforms' results (`kept`: what they return).
 */
export function platformFailedError(
	node: INode,
	itemIndex: number,
	failed: { platform: string; code?: string; message?: string },
	why: string,
	kept: string,
): NodeOperationError {
	const code = failed.code ?? 'platform_error';
	return new NodeOperationError(node, `${platformLabel(failed.platform)} failed: ${failed.message ?? code} (${code})`, {
		itemIndex,
		description: `${why} To keep the other platforms’ ${kept}, set Options → On Platform Failure to “Continue With a Status Item per Failed Platform”.`,
	});
}
