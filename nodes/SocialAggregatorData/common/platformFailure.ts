import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { platformLabel } from '../../shared/platforms';
import { isEmptyValue, nonBlankText } from '../../shared/utils';

// On Platform Failure and Platform Retries, the options of both Data API operations, and the error of Fail the Item.

export const onPlatformFailureOption: INodeProperties = {
	displayName: 'On Platform Failure',
	name: 'onPlatformFailure',
	type: 'options',
	options: [
		{
			name: 'Continue With a Status Item per Failed Platform',
			value: 'continue',
			description:
				'Keep the other platforms’ results and add an item with the failed platform’s error_code and message',
		},
		{
			name: 'Fail the Item',
			value: 'fail',
			description:
				'Stop at the first platform that fails for good and report an error for the input item (with Continue On Fail: an error item)',
		},
	],
	default: 'continue',
	description: 'What happens when a platform still fails after its retries. The other platforms are never held back.',
};

const MAX_PLATFORM_RETRIES = 5;

const DEFAULT_PLATFORM_RETRIES = 2;

export const platformRetriesOption: INodeProperties = {
	displayName: 'Platform Retries',
	name: 'platformRetries',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_PLATFORM_RETRIES },
	default: DEFAULT_PLATFORM_RETRIES,
	description:
		'How many more times a platform that answered fetch_timeout or platform_error is asked. Retries ride along with the other platforms’ next request; they cost that platform’s credits again.',
};

/** The two options as chosen under Options; retries held to 0…MAX_PLATFORM_RETRIES. */
export function platformFailureChoices(options: IDataObject): { failItem: boolean; maxPlatformRetries: number } {
	// An empty field (an expression that gave nothing) is the default, not 0.
	const chosen = options.platformRetries;
	const given = isEmptyValue(chosen) ? DEFAULT_PLATFORM_RETRIES : Number(chosen);
	const retries = Math.min(MAX_PLATFORM_RETRIES, Math.max(0, Math.floor(given)));
	return {
		failItem: options.onPlatformFailure === 'fail',
		maxPlatformRetries: Number.isFinite(retries) ? retries : DEFAULT_PLATFORM_RETRIES,
	};
}

/** Fail the Item: the platform's error, why the operation stopped, and how to keep the others' `kept`. */
export function platformFailedError(
	node: INode,
	itemIndex: number,
	platform: string,
	error: { code?: string; message?: string } | undefined,
	why: string,
	kept: string,
): NodeOperationError {
	const code = error?.code ?? 'platform_error';
	return new NodeOperationError(node, `${platformLabel(platform)} failed: ${nonBlankText(error?.message) ?? code} (${code})`, {
		itemIndex,
		description: `${why} To keep the other platforms’ ${kept}, set Options → On Platform Failure to “Continue With a Status Item per Failed Platform”.`,
	});
}
