import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeExecutionHint,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import { CREDENTIAL_TEST, socialAggregatorApiTest } from '../shared/credentialTest';
import { retryTiming } from '../shared/retry';
import { keyBudget } from '../shared/transport';
import { AUTO_DETECT, checkDataSearch, platformLabel, requestDataRound, type DataSearch } from '../shared/dataSearch';
import { dataSearchFields } from '../shared/dataSearchFields';
import { getDataPlatforms } from '../shared/loadOptions';
import { platformFailureItem } from '../shared/pagination';
import { valid } from '../shared/refusal';
import {
	DEFAULT_MAX_PAGES_PER_POLL,
	DEFAULT_REMEMBER_PER_PLATFORM,
	latestPosts,
	pollOnce,
	type FetchRound,
	type PlatformFailure,
	type PollState,
} from './poll';

const DEFAULT_TEST_POSTS = 5;

export class SocialAggregatorDataTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Social Aggregator Data Trigger',
		name: 'socialAggregatorDataTrigger',
		icon: { light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["term"]}}',
		// n8n's node panel shows this for its one "Social Aggregator Data" entry (action node and trigger)
		description:
			'Search recent posts across platforms, look up profiles and request API keys, or start a workflow on new posts for a term (polled)',
		defaults: { name: 'Social Aggregator Data Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'socialAggregatorApi', required: true, testedBy: 'socialAggregatorApiTest' }],
		properties: [
			{
				displayName:
					'Each poll spends Data API credits per platform and page (what a page costs is under Platforms); Max Pages per Poll, under Options, bounds the pages one poll reads. The first poll after activation only records the posts already there; later polls emit the posts not seen before, oldest first. When new posts fill more pages than one poll may read, the following polls read on and then emit them all, oldest first.',
				name: 'creditsNotice',
				type: 'notice',
				default: '',
			},
			...dataSearchFields,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'On Platform Failure',
						name: 'platformErrors',
						type: 'options',
						options: [
							{
								name: 'Continue With a Warning',
								value: 'log',
								description:
									'The other platforms go on; the failure shows as a warning on the execution (and in the n8n log)',
							},
							{
								name: 'Continue With a Status Item per Failed Platform',
								value: 'emit',
								description:
									'Keep the other platforms’ posts and add an item with the failed platform’s error_code and message',
							},
						],
						default: 'log',
						description:
							'What happens when platforms fail. With Continue With a Warning, a poll where every platform fails is an error.',
					},
					{
						displayName: 'Max Pages per Poll',
						name: 'maxPagesPerPoll',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 20 },
						default: DEFAULT_MAX_PAGES_PER_POLL,
						description:
							'Requests one poll may make. Platforms share each request; a platform stops at the first post it has seen. When there are more new posts than this reads, the next polls read on from there and then emit them all, oldest first; none are skipped.',
					},
					{
						displayName: 'Posts in a Manual Run',
						name: 'testPosts',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: DEFAULT_TEST_POSTS,
						description: 'How many of the latest posts a manual test run shows (it reads one page per platform)',
					},
					{
						displayName: 'Posts Remembered per Platform',
						name: 'rememberPerPlatform',
						type: 'number',
						typeOptions: { minValue: 50, maxValue: 5000 },
						default: DEFAULT_REMEMBER_PER_PLATFORM,
						description: 'How many recent posts per platform the trigger remembers to recognise them',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: { [CREDENTIAL_TEST]: socialAggregatorApiTest },
		loadOptions: { getDataPlatforms },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const options = (this.getNodeParameter('options', {}) as IDataObject) ?? {};
		const search = validatedSearch(this);
		if (this.getMode() === 'manual') return await manualRun(this, search, options);

		const state = this.getWorkflowStaticData('node') as PollState;
		const maxPages = Number(options.maxPagesPerPoll ?? DEFAULT_MAX_PAGES_PER_POLL);
		// A poll reads no more pages than the key's rate limit allows now; what it leaves is read by the next ones.
		const budgetLeft = (await keyBudget(this, undefined))?.ledger.left(retryTiming.now());
		if (budgetLeft !== undefined && budgetLeft < maxPages) {
			this.logger.info(
				`Social Aggregator Data Trigger: the key's rate limit allows ${budgetLeft} more requests now; this poll reads at most that many pages and the next polls read on`,
			);
		}
		const result = await pollOnce(search, state, searchRound(this, search), {
			maxPages,
			budgetLeft,
			rememberPerPlatform: Number(options.rememberPerPlatform ?? DEFAULT_REMEMBER_PER_PLATFORM),
		});
		const { items: statuses, notes } = reportFailures(this, result.failures, search, options);
		if (result.recorded.length > 0) {
			this.logger.info(
				`Social Aggregator Data Trigger: recorded the current posts of ${result.recorded.join(', ')} without emitting them`,
			);
		}
		const held = Object.entries(result.held).map(([p, count]) => `${platformLabel(p)}: ${count} posts`);
		if (held.length > 0) {
			const message = `More new posts than ${String(options.maxPagesPerPoll ?? DEFAULT_MAX_PAGES_PER_POLL)} pages (Max Pages per Poll): read so far and held for the next poll, which reads on and emits them oldest first (${held.join(', ')}).`;
			this.logger.info(`Social Aggregator Data Trigger: ${message}`);
			notes.push({ message, type: 'info', location: 'outputPane' });
		}
		delete state.backlog;
		Object.assign(state, result.state);

		const items = [...result.posts.map((json) => ({ json })), ...statuses];
		// A failure alone starts an execution too, so that it shows there; a note about held posts does not.
		if (items.length === 0 && !notes.some((note) => note.type === 'warning')) return null;
		return [[...items, ...notes.map(noteItem)]];
	}

	/** Passes poll()'s posts on and turns its notes into execution hints (IPollFunctions cannot); a manual run reads here. */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const input = this.getInputData();
		if (this.getMode() === 'manual' && !input.some((item) => NOTE in item.json || 'platform' in item.json)) {
			const options = (this.getNodeParameter('options', 0, {}) as IDataObject) ?? {};
			const run = await manualRun(this, validatedSearch(this), options);
			return [(run?.[0] ?? []).flatMap((item) => passOn(this, item, 0))];
		}
		return [input.flatMap((item, index) => passOn(this, item, index))];
	}
}

/** The key of an item that carries a note for the execution instead of a post. */
const NOTE = '__socialAggregatorPollNote';

function noteItem(hint: NodeExecutionHint): INodeExecutionData {
	return { json: { [NOTE]: { message: hint.message, type: hint.type ?? 'info' } } };
}

/** An item with its pairedItem, or nothing for a note (added to the execution's hints). */
function passOn(ctx: IExecuteFunctions, item: INodeExecutionData, index: number): INodeExecutionData[] {
	const note = item.json[NOTE] as { message?: string; type?: NodeExecutionHint['type'] } | undefined;
	if (note && typeof note === 'object') {
		ctx.addExecutionHints({ message: String(note.message ?? ''), type: note.type ?? 'info', location: 'outputPane' });
		return [];
	}
	return [{ json: item.json, pairedItem: { item: index } }];
}

function searchRound(ctx: IPollFunctions | IExecuteFunctions, search: DataSearch): FetchRound {
	return async (round) => await requestDataRound(ctx, search, round);
}

/** The latest posts of one page per platform, without touching the memory: what a manual run shows. */
async function manualRun(
	ctx: IPollFunctions | IExecuteFunctions,
	search: DataSearch,
	options: IDataObject,
): Promise<INodeExecutionData[][] | null> {
	const count = Number(options.testPosts ?? DEFAULT_TEST_POSTS);
	const { posts, failures } = await latestPosts(search, searchRound(ctx, search), count);
	const { items, notes } = reportFailures(ctx, failures, search, options);
	const all = [...posts.map((json) => ({ json })), ...items, ...notes.map(noteItem)];
	return all.length > 0 ? [all] : null;
}

/** The search the parameters describe (in the execution, the first item's), refused when SPEC.md rules it out. */
function validatedSearch(ctx: IPollFunctions | IExecuteFunctions): DataSearch {
	const parameter = (name: string, fallback: unknown): unknown =>
		'getInputData' in ctx ? ctx.getNodeParameter(name, 0, fallback) : ctx.getNodeParameter(name, fallback);
	const search = { term: parameter('term', ''), platforms: parameter('platforms', []) };
	return valid(ctx.getNode(), checkDataSearch({ ...search, termType: parameter('termType', AUTO_DETECT) }));
}

/**
 * Logs failed platforms and fails the poll when every platform failed and no status items are wanted; else they
 * become a status item each, or with Continue With a Warning one warning on the execution.
 */
function reportFailures(
	ctx: IPollFunctions | IExecuteFunctions,
	failures: PlatformFailure[],
	search: DataSearch,
	options: IDataObject,
): { items: INodeExecutionData[]; notes: NodeExecutionHint[] } {
	if (failures.length === 0) return { items: [], notes: [] };
	const lines = failures.map((f) => `${platformLabel(f.platform)}: ${f.message} (${f.code})`).join('; ');
	const emit = options.platformErrors === 'emit';
	if (failures.length >= search.platforms.length && !emit) {
		throw new NodeOperationError(ctx.getNode(), `Every platform failed: ${lines}`, {
			description: 'Check the term and term type for these platforms; the next poll tries again.',
		});
	}
	ctx.logger.warn(`Social Aggregator Data Trigger: some platforms failed, the others went on: ${lines}`);
	if (emit) return { items: failures.map((f) => ({ json: platformFailureItem(f.platform, f, f.attempts) })), notes: [] };
	const message = `Some platforms failed; the others went on: ${lines}. The next poll asks them again.`;
	return { items: [], notes: [{ message, type: 'warning', location: 'outputPane' }] };
}
