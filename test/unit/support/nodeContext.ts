import type {
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
} from 'n8n-workflow';

import { NODE } from './context';
import { parameterAt } from './triggerStub';

// Stand-ins for the n8n functions objects the declarative node's steps and the Data node's router are called with:
// parameters by name or dotted path, nothing else than what those modules read.

/** A parameter as n8n answers it: a resource locator's value with `extractValue`, else the value as set. */
function parameter(parameters: IDataObject, name: string, fallback: unknown, extractValue: boolean): unknown {
	const value = parameterAt(parameters, name, fallback);
	const locator = value as { __rl?: unknown; value?: unknown } | null;
	return extractValue && typeof locator === 'object' && locator !== null && locator.__rl === true ? locator.value : value;
}

/** An IExecuteSingleFunctions for one item's prepare steps (`common/checks.ts`). */
export function singleContext(parameters: IDataObject, options: { timeZone?: string; node?: INode } = {}) {
	return {
		getNode: () => options.node ?? NODE,
		getTimezone: () => options.timeZone ?? 'UTC',
		getNodeParameter: (name: string, fallback?: unknown, extra?: { extractValue?: boolean }) =>
			parameter(parameters, name, fallback, extra?.extractValue === true),
	} as unknown as IExecuteSingleFunctions;
}

/** What a media host answers in a pagination context's `helpers.httpRequest`. */
export type MediaHost = (request: IHttpRequestOptions) => Promise<{ statusCode: number; headers: IDataObject; body: unknown }>;

/**
 * An IExecutePaginationFunctions for a `files` step (`common/media/downloadStep.ts`): plain requests go to `host` and are recorded,
 * and a binary file is n8n's shape of it with the bytes as base64.
 */
export function filesStepContext(
	parameters: IDataObject,
	host: MediaHost,
	options: { node?: INode; continueOnFail?: boolean; run?: object } = {},
) {
	const requests: IHttpRequestOptions[] = [];
	const context = {
		getNode: () => options.node ?? NODE,
		getNodeParameter: (name: string, fallback?: unknown) => parameter(parameters, name, fallback, false),
		getExecuteData: () => options.run,
		continueOnFail: () => options.continueOnFail === true,
		helpers: {
			httpRequest: async (request: IHttpRequestOptions) => {
				requests.push(request);
				return await host(request);
			},
			prepareBinaryData: async (bytes: Buffer, fileName?: string, mimeType?: string) => ({
				data: bytes.toString('base64'),
				fileName,
				mimeType,
			}),
		},
	} as unknown as IExecutePaginationFunctions;
	return { context, requests };
}

/**
 * An IExecuteFunctions over input items, each with its own parameters (the Data node's router); `inputItems` sets how
 * many items come in when it is not one per parameters given (the node's parameters still read at item 0).
 */
export function executeContext(
	itemParameters: IDataObject[],
	options: { continueOnFail?: boolean; node?: INode; inputItems?: number } = {},
) {
	const items: INodeExecutionData[] = Array.from({ length: options.inputItems ?? itemParameters.length }, () => ({ json: {} }));
	const context = {
		getNode: () => options.node ?? NODE,
		getInputData: () => items,
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) =>
			parameterAt(itemParameters[itemIndex] ?? {}, name, fallback),
		continueOnFail: () => options.continueOnFail === true,
	} as unknown as IExecuteFunctions;
	return { context };
}
