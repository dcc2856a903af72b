import type { IAllExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

export const NODE: INode = {
	id: 'node-1',
	name: 'Social Aggregator',
	type: 'n8n-nodes-social-aggregator.socialAggregator',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

export interface Answer {
	statusCode?: number;
	headers?: Record<string, string>;
	body?: unknown;
	/** Throw this instead of answering, as n8n does when no response arrives. */
	throws?: unknown;
}

/**
 * A stand-in for the n8n functions object the transport is called with: it
 * records each request (with the Authorization header n8n's credential helper
 * would add) and answers from a script.
 */
export function scriptedContext(answers: Answer[], apiKey = 'sag_live_secretkey1234567890') {
	const requests: IHttpRequestOptions[] = [];
	const answer = async (options: IHttpRequestOptions, withAuth: boolean) => {
		const sent = { ...options, headers: { ...options.headers } };
		if (withAuth) sent.headers.Authorization = `Bearer ${apiKey}`;
		requests.push(sent);
		const next = answers.shift();
		if (!next) throw new Error('no scripted answer left');
		if (next.throws) throw next.throws;
		return { statusCode: next.statusCode ?? 200, headers: next.headers ?? {}, body: next.body };
	};
	const context = {
		getNode: () => NODE,
		getCredentials: async () => ({ apiKey, baseUrl: 'http://127.0.0.1:9/v1/' }),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) =>
				await answer(options, true),
			httpRequest: async (options: IHttpRequestOptions) => await answer(options, false),
		},
	} as unknown as IAllExecuteFunctions;
	return { context, requests, apiKey };
}
