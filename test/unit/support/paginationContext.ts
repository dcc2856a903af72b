import type { DeclarativeRestApiSettings, IDataObject, IExecutePaginationFunctions, INodePropertyRouting } from 'n8n-workflow';

import { scriptedContext, type Answer } from './context';

/**
 * A stand-in for the context n8n gives a declarative operation's pagination hook: the scripted transport of
 * context.ts, the item's parameters (a resource locator's value as n8n's extractValue gives it), Continue On Fail.
 */
export function paginationContext(
	answers: Answer[],
	parameters: IDataObject,
	options: { continueOnFail?: boolean; itemIndex?: number; apiKey?: string } = {},
) {
	// A key of its own per context: the key's hourly budget is process-wide, and one test must not spend another's.
	const apiKey = options.apiKey ?? `sag_live_${Math.random().toString(36).slice(2)}${Date.now()}`;
	const scripted = scriptedContext(answers, apiKey);
	const logged: string[] = [];
	const parameter = (name: string, fallback?: unknown, extract?: { extractValue?: boolean }) => {
		const value = name in parameters ? parameters[name] : fallback;
		const locator = typeof value === 'object' && value !== null && '__rl' in value;
		return extract?.extractValue && locator ? (value as IDataObject).value : value;
	};
	const context = Object.assign(Object.create(scripted.context as object) as object, {
		getItemIndex: () => options.itemIndex ?? 0,
		getNodeParameter: parameter,
		continueOnFail: () => options.continueOnFail ?? false,
		getExecuteData: () => undefined,
		logger: { info: (text: string) => logged.push(text) },
	}) as unknown as IExecutePaginationFunctions;
	return { context, requests: scripted.requests, logged, apiKey };
}

/** Runs an operation's routing for one item as n8n's declarative engine does: the pagination hook with the request. */
export async function runRouting(
	routing: INodePropertyRouting,
	context: IExecutePaginationFunctions,
	url: string,
	extra: Partial<DeclarativeRestApiSettings.HttpRequestOptions> = {},
) {
	const hook = routing.operations?.pagination;
	if (typeof hook !== 'function') throw new Error('the routing sets no pagination hook');
	const options = { ...routing.request, ...extra, url } as DeclarativeRestApiSettings.HttpRequestOptions;
	return await hook.call(context, { options } as DeclarativeRestApiSettings.ResultOptions);
}
