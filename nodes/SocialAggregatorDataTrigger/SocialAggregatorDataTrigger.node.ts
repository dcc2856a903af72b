import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import { CREDENTIAL_TEST, socialAggregatorApiTest } from '../shared/credentialTest';
import { AUTO_DETECT, checkDataSearch, platformLabel, type DataSearch } from '../shared/dataSearch';
import { dataSearchFields } from '../shared/dataSearchFields';
import { getDataPlatforms } from '../shared/loadOptions';
import { refusalError } from '../shared/refusal';
import { apiRequest } from '../shared/transport';
import type { DataPostsResponse } from '../shared/types';
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
					'Each poll spends Data API credits per platform and page. The first poll after activation only records the posts already there; later polls emit the posts not seen before, oldest first.',
				name: 'creditsNotice',
				type: 'notice',
				default: '',
			},
			...dataSearchFields(),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Failed Platforms',
						name: 'platformErrors',
						type: 'options',
						options: [
							{
								name: 'Log Only',
								value: 'log',
								description: 'Write a warning to the n8n log; the other platforms go on',
							},
							{
								name: 'Emit a Status Item',
								value: 'emit',
								description:
									'Also output an item per failed platform (status "platform_failed", platform, error_code, message)',
							},
						],
						default: 'log',
						description:
							'What happens when platforms fail. With Log Only, a poll where every platform fails is an error.',
					},
					{
						displayName: 'Max Pages per Poll',
						name: 'maxPagesPerPoll',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 20 },
						default: DEFAULT_MAX_PAGES_PER_POLL,
						description:
							'Requests one poll may make. Platforms share each request; a platform stops at the first post it has seen. More new posts than this reads are skipped, oldest first.',
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
		const fetchRound: FetchRound = async (round) =>
			(await apiRequest.call(this, {
				method: 'GET',
				path: '/data/posts',
				qs: {
					term: search.term,
					platforms: round.platforms.join(','),
					...(search.termType ? { term_type: search.termType } : {}),
					...(round.cursor ? { cursor: round.cursor } : {}),
				},
			})) as DataPostsResponse;

		if (this.getMode() === 'manual') {
			const response = await fetchRound({ platforms: search.platforms });
			const failures = (response.meta?.platforms ?? [])
				.filter((s) => !s.success)
				.map((s) => ({
					platform: s.platform,
					code: s.error_code ?? 'platform_error',
					message: s.message ?? s.error_code ?? 'The platform failed',
				}));
			reportFailures(this, failures, search, options);
			const count = Number(options.testPosts ?? DEFAULT_TEST_POSTS);
			const posts = latestPosts(Array.isArray(response.data) ? response.data : [], search.platforms, count);
			const items = [...posts.map((json) => ({ json })), ...statusItems(options, failures)];
			return items.length > 0 ? [items] : null;
		}

		const state = this.getWorkflowStaticData('node') as PollState;
		const result = await pollOnce(search, { search: state.search, seen: state.seen }, fetchRound, {
			maxPages: Number(options.maxPagesPerPoll ?? DEFAULT_MAX_PAGES_PER_POLL),
			rememberPerPlatform: Number(options.rememberPerPlatform ?? DEFAULT_REMEMBER_PER_PLATFORM),
		});
		reportFailures(this, result.failures, search, options);
		if (result.recorded.length > 0) {
			this.logger.info(
				`Social Aggregator Data Trigger: recorded the current posts of ${result.recorded.join(', ')} without emitting them`,
			);
		}
		if (result.truncated.length > 0) {
			this.logger.warn(
				`Social Aggregator Data Trigger: more new posts than ${String(options.maxPagesPerPoll ?? DEFAULT_MAX_PAGES_PER_POLL)} pages on ${result.truncated.join(', ')}; the oldest of them were skipped. Poll more often or raise "Max Pages per Poll".`,
			);
		}
		state.search = result.state.search;
		state.seen = result.state.seen;

		const items = [...result.posts.map((json) => ({ json })), ...statusItems(options, result.failures)];
		return items.length > 0 ? [items] : null;
	}
}

/** The search the parameters describe, refused before any request when SPEC.md rules it out. */
function validatedSearch(ctx: IPollFunctions): DataSearch {
	const checked = checkDataSearch({
		term: ctx.getNodeParameter('term', ''),
		platforms: ctx.getNodeParameter('platforms', []),
		termType: ctx.getNodeParameter('termType', AUTO_DETECT),
	});
	if (!checked.ok) throw refusalError(ctx.getNode(), checked.refusal, undefined, checked.also);
	return checked.value;
}

/** Logs failed platforms; fails the poll when every platform failed and no status items are wanted. */
function reportFailures(
	ctx: IPollFunctions,
	failures: PlatformFailure[],
	search: DataSearch,
	options: IDataObject,
): void {
	if (failures.length === 0) return;
	const lines = failures.map((f) => `${platformLabel(f.platform)}: ${f.message} (${f.code})`);
	if (failures.length >= search.platforms.length && options.platformErrors !== 'emit') {
		throw new NodeOperationError(ctx.getNode(), `Every platform failed: ${lines.join('; ')}`, {
			description: 'Check the term and term type for these platforms; the next poll tries again.',
		});
	}
	ctx.logger.warn(`Social Aggregator Data Trigger: some platforms failed, the others went on: ${lines.join('; ')}`);
}

function statusItems(options: IDataObject, failures: PlatformFailure[]): INodeExecutionData[] {
	if (options.platformErrors !== 'emit') return [];
	return failures.map((f) => ({
		json: { status: 'platform_failed', platform: f.platform, error_code: f.code, message: f.message },
	}));
}
