import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { duration } from '../../shared/budget';
import { keyBudget, loggedRunBudget, roundsNote, roundsRefusal } from '../../shared/runBudget';
import { AUTO_DETECT, checkDataSearch } from '../../shared/dataSearch';
import { dataSearchFields, PAGE_COST } from '../../shared/dataSearchFields';
import { toNodeError } from '../../shared/errors';
import { checkLimit } from '../../shared/input';
import { StoppedPartWay } from '../../shared/pages';
import { validOrThrow } from '../../shared/refusal';
import { itemBudgetWait, itemRetryPolicy } from '../../shared/requestOptions';
import { retryTiming } from '../../shared/retry';
import { requestDataRound } from '../../shared/rounds';
import { dataPostShape, outputChoice, simplifyField, toolOutputFields, type OutputChoice } from '../../shared/simplify';
import { plural } from '../../shared/utils';
import {
	onPlatformFailureOption,
	platformFailedError,
	platformFailureChoices,
	platformRetriesOption,
} from '../common/platformFailure';
import { checkResumeCursors, searchRounds, shapeSearchOutput, type SearchOutputMode } from '../common/search';
import type { Operation } from '../common/operation';

const searchProperties: INodeProperties[] = [
	...dataSearchFields,
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		hint: `Fetches every page of every chosen platform. ${PAGE_COST} A Limit fetches only the pages that hold that many posts per platform.`,
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		hint: 'Per platform: each platform returns up to this many posts, and no page beyond them is fetched, so no credits are spent on pages the limit does not need',
		displayOptions: { show: { returnAll: [false] } },
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		options: [
			{
				name: 'One Item per Platform Page',
				value: 'pages',
				description: 'Each page with its platform, status, cursors and its posts in a list',
			},
			{ name: 'One Item per Post', value: 'posts' },
			{
				name: 'Posts, Then a Status Item per Platform',
				value: 'postsAndStatus',
				description: 'The posts, then for every platform: success, posts, pages, next_cursor or the error',
			},
		],
		default: 'posts',
	},
	simplifyField({}, true),
	...toolOutputFields({}, dataPostShape),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			onPlatformFailureOption,
			platformRetriesOption,
			{
				displayName: 'Resume From Cursors',
				name: 'resumeCursors',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				placeholder: 'Add Cursor',
				default: {},
				description:
					'Continue platforms from the next_cursor of an earlier search (a status or page item) instead of their first page. A cursor continues after the last page fetched: posts a Limit left out of that page are not returned again.',
				options: [
					{
						displayName: 'Cursor',
						name: 'cursor',
						values: [
							{
								displayName: 'Platform Name or ID',
								name: 'platform',
								type: 'options',
								typeOptions: { loadOptionsMethod: 'getDataPlatforms' },
								default: '',
								description:
									'One of the searched platforms. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
							},
							{
								displayName: 'Cursor',
								name: 'cursor',
								type: 'string',
								default: '',
								description: 'The next_cursor exactly as the service gave it',
							},
						],
					},
				],
			},
		],
	},
];

const searchShow = { show: { resource: ['post'], operation: ['search'] } };

const searchFields = updateDisplayOptions(searchShow, searchProperties);

/** What the user asked of this item's search, checked before any request. */
function searchAsked(this: IExecuteFunctions, itemIndex: number) {
	const node = this.getNode();
	const search = {
		term: this.getNodeParameter('term', itemIndex, ''),
		platforms: this.getNodeParameter('platforms', itemIndex, []),
		termType: this.getNodeParameter('termType', itemIndex, AUTO_DETECT),
	};
	const input = validOrThrow(node, checkDataSearch(search), itemIndex);
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : validOrThrow(node, checkLimit(this.getNodeParameter('limit', itemIndex, 50)), itemIndex);
	const output = this.getNodeParameter('output', itemIndex, 'posts') as SearchOutputMode;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const { failItem, maxPlatformRetries } = platformFailureChoices(options);
	const cursorEntries = ((options.resumeCursors as IDataObject | undefined)?.cursor ?? []) as IDataObject[];
	const entries = Array.isArray(cursorEntries) ? cursorEntries : [];
	const cursors = validOrThrow(node, checkResumeCursors(entries, input.platforms), itemIndex);
	return { input, limit, output, failItem, maxPlatformRetries, cursors };
}

type SearchAsked = ReturnType<typeof searchAsked>;
type SearchOutcome = Awaited<ReturnType<typeof searchRounds>>;

/**
 * A search that did not end with all its results is an error: a failure (with what was fetched where the node
 * continues), a platform that kept failing, or the request cap reached.
 */
function throwIfStopped(ctx: IExecuteFunctions, itemIndex: number, outcome: SearchOutcome, asked: SearchAsked, choice: OutputChoice): void {
	const node = ctx.getNode();
	if (outcome.failure !== undefined) {
		const error = toNodeError(node, outcome.failure, itemIndex);
		// Nothing fetched, nothing to keep: the error alone.
		if (outcome.requests === 0) throw error;
		const kept = ctx.continueOnFail();
		roundsNote(error, outcome, kept);
		throw new StoppedPartWay(error, kept ? shapeSearchOutput(outcome, asked.output, !asked.failItem, true, choice) : [], outcome.requests);
	}
	const failed = outcome.stoppedBy;
	if (failed) {
		const why = `The platform failed ${plural(failed.failures, 'time')} in a row, so the search stopped after ${plural(outcome.requests, 'request')}.`;
		throw platformFailedError(node, itemIndex, failed.platform, failed.error, why, 'posts');
	}
	if (outcome.requestCapReached) {
		const message = `The search stopped after ${outcome.requests} requests: the service kept reporting more pages`;
		const description = 'Use a Limit, or resume later from the cursors of a Limit search.';
		throw new NodeOperationError(node, message, { itemIndex, description });
	}
}

async function executeSearch(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const asked = searchAsked.call(this, itemIndex);
	const { input } = asked;
	const retry = itemRetryPolicy.call(this, itemIndex);
	const run = loggedRunBudget(this, itemBudgetWait.call(this, itemIndex));
	const budget = await keyBudget(this, itemIndex, run);
	const outcome = await searchRounds({
		platforms: input.platforms,
		limit: asked.limit,
		cursors: asked.cursors,
		maxPlatformRetries: asked.maxPlatformRetries,
		stopOnFailure: asked.failItem,
		// A page's cursor says only that more is there, not how much: the budget is checked before each request, and
		// a search it cannot carry stops before a request it would refuse, keeping what was paid for.
		beforeRound: (open) => {
			if (!budget || run.capMs > 0 || budget.ledger.left(retryTiming.now()) > 0) return;
			throw roundsRefusal(budget.ledger.plan(1, retryTiming.now()), retryTiming.now(), open.map((p) => p.platform));
		},
		fetchRound: async (round) => await requestDataRound(this, input, round, { itemIndex, retry, budget: run }),
	});

	if (run.waitedMs > 0) {
		const message = `Waited ${duration(run.waitedMs)} in all for the key's rate-limit budget (Request Options → Wait for Rate Limit Budget)`;
		this.addExecutionHints({ message, type: 'info', location: 'outputPane' });
	}
	const choice = outputChoice((name, fallback) => this.getNodeParameter(name, itemIndex, fallback));
	throwIfStopped(this, itemIndex, outcome, asked, choice);
	return shapeSearchOutput(outcome, asked.output, !asked.failItem, false, choice);
}

export const postDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['post'] } },
		options: [
			{
				name: 'Search',
				value: 'search',
				description: 'Look up recent posts for a term on several platforms at once, without creating a feed',
				action: 'Search posts',
			},
		],
		default: 'search',
	},
	...searchFields,
];

/** The operations of this resource by their values: the router runs the chosen one once per input item. */
export const postOperations: Record<string, Operation> = { search: executeSearch };
