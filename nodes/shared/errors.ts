import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode, INodeExecutionData, JsonObject } from 'n8n-workflow';

import { isObject, nonBlankText, plural } from './utils';

/** What the transport (or declarative routing) got back from the service. */
export interface ApiResponse {
	statusCode: number;
	body: unknown;
}

interface ApiErrorAction extends IDataObject {
	type?: string;
	upgrade_url?: string;
	connection_url?: string;
	checkout_url?: string;
}

/** The service's error envelope (docs/service.md#errors); every field is checked before it is used. */
interface ApiErrorEnvelope {
	error: {
		code: string;
		message: string;
		details?: Record<string, string[] | string>;
		action?: ApiErrorAction;
	};
}

/** One sentence per status (and, where one status means several things, per code) that tells the user what to do next. */
const STATUS_ADVICE: Record<number, string> = {
	401: 'The API key was refused. Check the key in the Social Aggregator API credential; temporary keys expire after 2 or 12 hours.',
	402: 'The account has run out of credits. Add credits or upgrade the plan, then run the node again.',
	403: 'The API key is not allowed to do this. Inviting users and creating sign-in tokens need an owner or manager key.',
	404: 'Nothing was found at that ID. Check the ID; a sign-in token for a feed also needs the collaborator to be assigned to that feed.',
	410: 'The authorization request is gone: it was denied, it expired, or its key was already delivered. Request a new key.',
	422: 'The service refused the input. Correct the fields listed above and run the node again.',
	429: 'The service kept answering 429 (rate limit exceeded). Run again later, spread the work over time, or use a key with a higher limit.',
};

const CODE_ADVICE: Record<string, string> = {
	sign_in_tokens_disabled: 'Sign-in tokens are not enabled for this account. Enable them in the dashboard first.',
	email_confirmation_required:
		'The temporary key works once its email address is confirmed: open the confirmation email, then run the node again (the same key then works).',
};

const SERVER_ADVICE = 'The service had a problem. Run the node again in a moment.';

/** What to do about an error; a 422 gets advice about fields only when it lists them and has no action link. */
function adviceFor(statusCode: number, code: string | undefined, listsFields: boolean): string | undefined {
	if (code && CODE_ADVICE[code]) return CODE_ADVICE[code];
	if (statusCode === 422 && !listsFields) return undefined;
	return STATUS_ADVICE[statusCode] ?? (statusCode >= 500 ? SERVER_ADVICE : undefined);
}

function isEnvelope(body: unknown): body is ApiErrorEnvelope {
	return isObject(body) && isObject(body.error);
}

/** The link the user should open, in the service's own order of preference: a checkout, an upgrade, a connection page. */
function actionLink(action: ApiErrorEnvelope['error']['action']): string | undefined {
	if (typeof action !== 'object' || action === null) return undefined;
	return nonBlankText(action.checkout_url) ?? nonBlankText(action.upgrade_url) ?? nonBlankText(action.connection_url);
}

function describeDetails(details: ApiErrorEnvelope['error']['details']): string[] {
	if (typeof details !== 'object' || details === null) return [];
	return Object.entries(details).map(([field, messages]) => {
		const said = (Array.isArray(messages) ? messages : [messages]).map((m) => nonBlankText(m) ?? JSON.stringify(m));
		return `${field}: ${said.join('; ')}`;
	});
}

function describeAction(action: ApiErrorEnvelope['error']['action'], link: string | undefined): string | undefined {
	if (!action || !link) return undefined;
	if (action.type === 'upgrade_plan') {
		const plan = (action.required_plan_display_name ?? action.required_plan) as string | undefined;
		return plan ? `Upgrade to the ${plan} plan: ${link}` : `Upgrade the plan: ${link}`;
	}
	if (link === nonBlankText(action.connection_url)) return `Connect the social account: ${link}`;
	return `Open: ${link}`;
}

/** Cuts every secret out of a text; one under 4 characters is left, so a trivial value cannot blank a message. */
export function redact(text: string, secrets: Array<string | undefined>): string {
	const cut = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4);
	return cut.reduce((said, secret) => said.replaceAll(secret, '[redacted]'), text);
}

/** An n8n error keeping our message (NodeApiError replaces some with generic ones) and the service's `error.code`. */
export function apiError(
	node: INode,
	body: JsonObject,
	code: string | null,
	options: { message: string; description: string; httpCode?: string; itemIndex?: number },
): NodeApiError {
	const error = new NodeApiError(node, body, options);
	error.message = options.message;
	error.context.apiErrorCode = code;
	return error;
}

/** The service's error envelope (docs/service.md#errors) as an n8n error: its message, then `details` per field, the action's link and advice. */
export function apiErrorFromResponse(
	node: INode,
	response: ApiResponse,
	itemIndex?: number,
	/** Replaces the advice for the status (a request that may have been acted on, say). */
	advice?: string,
	/** The request, named when the service gave no readable message ("GET /feeds/12"). */
	request?: string,
): NodeApiError {
	const { statusCode, body } = response;
	const envelope = isEnvelope(body) ? body.error : undefined;
	const answered = `The service answered HTTP ${statusCode}${request ? ` to ${request}` : ''}`;
	const message = envelope ? (nonBlankText(envelope.message) ?? `${answered} without a readable message`) : answered;
	const code = nonBlankText(envelope?.code);
	const details = describeDetails(envelope?.details);
	const link = actionLink(envelope?.action);
	const action = describeAction(envelope?.action, link);
	const next = advice ?? adviceFor(statusCode, code, details.length > 0 && action === undefined);
	const description = [...details, action, next, code ? `Error code: ${code}` : undefined].filter(Boolean).join('\n');

	const errorBody = envelope ? (body as JsonObject) : { error: { code: `http_${statusCode}`, message } };
	const httpCode = String(statusCode);
	const error = apiError(node, errorBody, code ?? null, { message, description, httpCode, itemIndex });
	if (link) error.context.actionUrl = link;
	return error;
}

/** After a write whose answer was lost: look before running again, since a second run could do it twice. */
export function mayHaveActedAdvice(verify?: string): string {
	return `The service may have acted on the request. Running the node again could do it a second time: first check ${verify ?? 'whether it was done'}, and run again only if it was not.`;
}

/** A request that never got an answer; `mayHaveActed` is the advice when it may have changed something. */
export function networkError(
	node: INode,
	systemCode: string | undefined,
	tries: number,
	itemIndex?: number,
	mayHaveActed?: string,
): NodeApiError {
	const reason = systemCode ?? 'a network error';
	const message = mayHaveActed
		? `The connection to the service failed after the request was sent (${reason}); its answer never came`
		: `The service could not be reached (${reason}) after ${plural(tries, 'attempt')}`;
	const description =
		mayHaveActed ??
		'Check the Base URL in the Social Aggregator API credential and that the service is reachable, then run the node again.';
	const code = systemCode ?? 'network_error';
	return apiError(node, { error: { code, message } }, code, { message, description, itemIndex });
}

/** The service's `error.code` kept on an error made by `apiErrorFromResponse`. */
function apiErrorCode(error: unknown): string | undefined {
	const context = (error as { context?: { apiErrorCode?: unknown } })?.context;
	return typeof context?.apiErrorCode === 'string' ? context.apiErrorCode : undefined;
}

/** Any error as an n8n node error for the item, keeping the ones the package made. */
export function toNodeError(node: INode, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	// An error of the package's own that carries its advice (a refusal made where no node is at hand).
	const description = (error as { description?: unknown })?.description;
	if (error instanceof Error && typeof description === 'string') {
		return new NodeOperationError(node, error.message, { itemIndex, description });
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
}

/** Continue On Fail's item: `error` the message, `details` the code, HTTP status, description and link. */
export function errorItem(node: INode, error: unknown, itemIndex: number): INodeExecutionData {
	const nodeError = toNodeError(node, error, itemIndex);
	const details: IDataObject = {};
	const code = apiErrorCode(nodeError);
	if (code) details.code = code;
	if (nodeError instanceof NodeApiError && nodeError.httpCode && nodeError.httpCode !== 'none') {
		details.httpCode = nodeError.httpCode;
	}
	if (nodeError.description) details.description = nodeError.description;
	const link = nodeError.context.actionUrl;
	if (typeof link === 'string') details.link = link;
	const json: IDataObject = { error: nodeError.message };
	if (Object.keys(details).length > 0) json.details = details;
	return { json, pairedItem: { item: itemIndex } };
}
