/**
 * The benchmark's workflows: each side of a comparison is one workflow started by a Webhook
 * node (answering when its last node has finished), so every run is one execution record.
 *
 * The HTTP Request side is configured as n8n's documentation shows for a page-numbered API
 * ("Pagination in the HTTP Request node": Pagination Mode "Update a Parameter in Each
 * Request", query parameter `page` = `{{ $pageCount + 1 }}`, "Pagination Complete When":
 * Other, with an expression on the response, here `$response.body.meta`), at the largest
 * page size the service takes (`per_page=100`), followed by a Split Out of `data` so that
 * both sides output one item per post.
 */
import { randomUUID } from 'node:crypto';

import { node, workflow, type CredentialRef, type NodeInput, type WorkflowSpec } from '../test/e2e/lib/workflow';

export const HTTP_REQUEST_VERSION = 4.5;

/** A Webhook node that starts a benchmark run and answers when the workflow has finished. */
export function webhookStart(path: string, { responseMode = 'lastNode' }: { responseMode?: string } = {}): NodeInput {
	return {
		type: 'n8n-nodes-base.webhook',
		name: 'Start',
		typeVersion: 2.1,
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode,
			...(responseMode === 'lastNode' ? { responseData: 'noData' } : {}),
			options: {},
		},
	};
}

export function splitOut(field: string, name: string, destination?: string): NodeInput {
	return node(
		'n8n-nodes-base.splitOut',
		{ fieldToSplitOut: field, include: 'noOtherFields', options: destination ? { destinationFieldName: destination } : {} },
		{ name, typeVersion: 1 },
	);
}

export interface HttpListOptions {
	bearer: CredentialRef;
	url: string;
	/** query parameters sent with every page */
	query: Record<string, string>;
	/** the pagination parameter (query) and its value expression */
	pageParameter: { name: string; value: string };
	/** "Pagination Complete When: Other" expression */
	complete: string;
	/** the Response option "Never Error" (then a 4xx/5xx answer is a page like any other) */
	neverError?: boolean;
	name?: string;
	/** node settings */
	settings?: Record<string, unknown>;
}

/** n8n's HTTP Request node paging a list as the documentation shows. */
export function httpList(options: HttpListOptions): NodeInput {
	return node(
		'n8n-nodes-base.httpRequest',
		{
			method: 'GET',
			url: options.url,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpBearerAuth',
			sendQuery: true,
			specifyQuery: 'keypair',
			queryParameters: { parameters: Object.entries(options.query).map(([name, value]) => ({ name, value })) },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: { parameters: [{ type: 'qs', name: options.pageParameter.name, value: options.pageParameter.value }] },
						paginationCompleteWhen: 'other',
						completeExpression: options.complete,
					},
				},
				...(options.neverError ? { response: { response: { neverError: true } } } : {}),
			},
		},
		{
			name: options.name ?? 'HTTP Request',
			typeVersion: HTTP_REQUEST_VERSION,
			credentials: { httpBearerAuth: { id: options.bearer.id, name: options.bearer.name } },
			...(options.settings ?? {}),
		},
	);
}

/** A resource locator value as the editor stores it. */
export const feedLocator = (feedId: number) => ({ __rl: true, mode: 'id', value: String(feedId) });

/** Our node: every post of a feed (Return All). */
export function oursFeedPosts(name: string, path: string, feedId: number, requestOptions?: Record<string, number>): WorkflowSpec {
	const parameters = { resource: 'post', operation: 'getAll', feedId: feedLocator(feedId), returnAll: true, ...(requestOptions ? { requestOptions } : {}) };
	return workflow(
		name,
		[node('socialAggregator', parameters, { name: 'Social Aggregator' })],
		{ first: webhookStart(path) },
	);
}

/** The documented page-number pagination of `GET /feeds/{id}/posts`. */
export const FEED_PAGE = { name: 'page', value: '={{ $pageCount + 1 }}' };
export const FEED_COMPLETE = '={{ $response.body.meta.page >= $response.body.meta.total_pages }}';

/** The HTTP Request node: every post of a feed, paginated as documented, then one item per post. */
export function httpFeedPosts(
	name: string,
	path: string,
	feedId: number,
	refs: { bearer: CredentialRef; baseUrl: string },
	extra: Partial<HttpListOptions> = {},
): WorkflowSpec {
	return workflow(
		name,
		[
			httpList({
				bearer: refs.bearer,
				url: `${refs.baseUrl}/feeds/${feedId}/posts`,
				query: { per_page: '100' },
				pageParameter: FEED_PAGE,
				complete: FEED_COMPLETE,
				...extra,
			}),
			splitOut('data', 'Posts'),
		],
		{ first: webhookStart(path) },
	);
}

/** B2's platforms (all take `username`, all cost 1 credit a page) and their page counts. */
export const B2_TERM = 'nasa';
export const B2_PAGES: Record<string, number> = { Bluesky: 1, Twitter: 2, YouTube: 4, Vimeo: 5, Flickr: 7, Giphy: 8 };

/** Our Data node: every post of every platform (Return All), combined cursor rounds. */
export function oursDataSearch(name: string, path: string): WorkflowSpec {
	return workflow(
		name,
		[
			node(
				'socialAggregatorData',
				{
					resource: 'post',
					operation: 'search',
					term: B2_TERM,
					platforms: Object.keys(B2_PAGES),
					termType: 'username',
					returnAll: true,
					output: 'posts',
				},
				{ name: 'Social Aggregator Data' },
			),
		],
		{ first: webhookStart(path) },
	);
}

/**
 * The HTTP Request node paging each platform on its own, which is all it can do: one item per
 * platform (split out of the webhook body), and for each the documented cursor pagination
 * (query `cursor` from the previous answer, complete when the platform has no more). n8n
 * runs the items of one HTTP Request node concurrently, the fastest this can be.
 */
export function httpDataSearch(name: string, path: string, refs: { bearer: CredentialRef; baseUrl: string }): WorkflowSpec {
	return workflow(
		name,
		[
			splitOut('body.platforms', 'Platforms', 'platform'),
			httpList({
				bearer: refs.bearer,
				url: `${refs.baseUrl}/data/posts`,
				query: { term: B2_TERM, platforms: '={{ $json.platform }}', term_type: 'username' },
				pageParameter: { name: 'cursor', value: '={{ $response.body?.meta?.platforms?.[0]?.next_cursor ?? "" }}' },
				complete: '={{ !$response.body.meta.platforms[0].has_more }}',
			}),
			splitOut('data', 'Posts'),
		],
		{ first: webhookStart(path) },
	);
}
