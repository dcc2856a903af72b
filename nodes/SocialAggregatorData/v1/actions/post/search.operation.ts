import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { AUTO_DETECT, checkDataSearch, requestDataRound } from '../../../../shared/dataSearch';
import { dataSearchFields } from '../../../../shared/dataSearchFields';
import { checkLimit } from '../../../../shared/input';
import { collectRounds } from '../../../../shared/pagination';
import { refusalError } from '../../../../shared/refusal';
import { itemRetryPolicy } from '../../../../shared/requestOptions';
import { checkResumeCursors } from '../../helpers/input';
import { DEFAULT_MAX_REQUESTS, shapeSearchOutput, type SearchOutputMode } from '../../helpers/search';
import {
	onPlatformFailureOption,
	platformFailedError,
	platformFailureChoices,
	platformRetriesOption,
} from '../platformFailure';

const properties: INodeProperties[] = [
	...dataSearchFields(),
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		hint: 'Per platform: each platform returns up to this many posts, and no page beyond them is fetched (pages cost credits)',
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

const displayOptions = { show: { resource: ['post'], operation: ['search'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const checked = checkDataSearch({
		term: this.getNodeParameter('term', itemIndex, ''),
		platforms: this.getNodeParameter('platforms', itemIndex, []),
		termType: this.getNodeParameter('termType', itemIndex, AUTO_DETECT),
	});
	if (!checked.ok) throw refusalError(node, checked.refusal, itemIndex, checked.also);
	const input = checked.value;

	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	let limit: number | undefined;
	if (!returnAll) {
		const checkedLimit = checkLimit(this.getNodeParameter('limit', itemIndex, 50));
		if (!checkedLimit.ok) throw refusalError(node, checkedLimit.refusal, itemIndex);
		limit = checkedLimit.value;
	}
	const output = this.getNodeParameter('output', itemIndex, 'posts') as SearchOutputMode;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const { failItem, maxPlatformRetries } = platformFailureChoices(options);
	const cursorEntries = ((options.resumeCursors as IDataObject | undefined)?.cursor ?? []) as IDataObject[];
	const cursors = checkResumeCursors(Array.isArray(cursorEntries) ? cursorEntries : [], input.platforms);
	if (!cursors.ok) throw refusalError(node, cursors.refusal, itemIndex);

	const retry = itemRetryPolicy.call(this, itemIndex);
	const outcome = await collectRounds({
		platforms: input.platforms,
		limit,
		cursors: cursors.value,
		maxPlatformRetries,
		maxRequests: DEFAULT_MAX_REQUESTS,
		stopOnFailure: failItem,
		fetchRound: async (round) => await requestDataRound(this, input, round, { itemIndex, retry }),
	});

	const failed = outcome.stoppedBy;
	if (failed) {
		const why = `The platform failed ${failed.failures} time${failed.failures === 1 ? '' : 's'} in a row, so the search stopped after ${outcome.requests} request${outcome.requests === 1 ? '' : 's'}.`;
		throw platformFailedError(node, itemIndex, failed.platform, failed.error, why, 'posts');
	}
	if (outcome.requestCapReached) {
		throw new NodeOperationError(
			node,
			`The search stopped after ${outcome.requests} requests: the service kept reporting more pages`,
			{
				itemIndex,
				description: 'Use a Limit, or resume later from the cursors of a Limit search.',
			},
		);
	}

	return shapeSearchOutput(outcome, output, !failItem).map((json) => ({
		json,
		pairedItem: { item: itemIndex },
	}));
}
