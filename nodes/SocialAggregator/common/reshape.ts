import type {
	DeclarativeRestApiSettings,
	IAdditionalCredentialOptions,
	IAllExecuteFunctions,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodePropertyRouting,
} from 'n8n-workflow';

import { isObject } from '../../shared/utils';
import { route } from './routing';

/** What n8n calls for an operation's request: the pagination hook route() sets. */
export type OperationHook = (
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
) => Promise<INodeExecutionData[]>;

/** The spec of one operation, as route() takes it. */
export type RouteSpec = Parameters<typeof route>[0];

/** An operation's routing with its hook wrapped by `wrap`, which is handed route()'s own hook to run. */
export function wrapHook(routing: INodePropertyRouting, wrap: (hook: OperationHook) => OperationHook): INodePropertyRouting {
	const hook = routing.operations?.pagination as OperationHook;
	return { ...routing, operations: { ...routing.operations, pagination: wrap(hook) } };
}

/**
 * A successful answer's body in SPEC.md's shape, made from a body in another legal shape; `request` is what was sent.
 * A body it cannot read it returns as it came, for the answer check to name.
 */
export type Reshape = (body: unknown, request: IHttpRequestOptions) => unknown;

/**
 * route() for an answer the service gives in more than one legal shape: each successful answer is reshaped before
 * route()'s one path reads and checks it, so the request, retries, the key's budget, the run's gate, errors and
 * Continue On Fail stay that path's. The path sends through the request helper of the context it is handed; that
 * context is the operation's own with only this helper changed, derived the way n8n derives a pagination hook's
 * context from the item's.
 */
export function reshapedRoute(spec: RouteSpec, reshape: Reshape): INodePropertyRouting {
	return wrapHook(route(spec), (hook) =>
		async function reshapedOperation(this: IExecutePaginationFunctions, requestData) {
			return await hook.call(reshaping(this, reshape), requestData);
		},
	);
}

function reshaping(context: IExecutePaginationFunctions, reshape: Reshape): IExecutePaginationFunctions {
	const { helpers } = context;
	const send = helpers.httpRequestWithAuthentication;
	async function reshapedAnswer(
		this: IAllExecuteFunctions,
		credentialsType: string,
		request: IHttpRequestOptions,
		more?: IAdditionalCredentialOptions,
	): Promise<unknown> {
		const answer: unknown = await send.call(this, credentialsType, request, more);
		const status = isObject(answer) ? answer.statusCode : undefined;
		if (typeof status !== 'number' || status < 200 || status > 299) return answer;
		return { ...(answer as object), body: reshape((answer as { body?: unknown }).body, request) };
	}
	const reshapedHelpers: unknown = Object.create(helpers, { httpRequestWithAuthentication: { value: reshapedAnswer } });
	return Object.create(context, { helpers: { value: reshapedHelpers } }) as IExecutePaginationFunctions;
}
