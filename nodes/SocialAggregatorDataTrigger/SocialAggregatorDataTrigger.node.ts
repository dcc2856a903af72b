import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';

import {
	DEFAULT_TEST_POSTS,
	isManualRun,
	newestPosts,
	onePollAtATime,
	pollOutput,
	replaceSavedState,
	requestsLeftNow,
	savedState,
	triggerLog,
} from '../shared/pollRun';
import { AUTO_DETECT, checkDataSearch, type DataSearch } from '../shared/dataSearch';
import { platformLabel } from '../shared/platforms';
import { dataSearchFields } from '../shared/dataSearchFields';
import { getDataPlatforms } from '../shared/loadOptions';
import { platformFailureItem, requestDataRound } from '../shared/rounds';
import { validOrThrow } from '../shared/refusal';
import {
	DEFAULT_MAX_PAGES_PER_POLL,
	DEFAULT_REMEMBER_PER_PLATFORM,
	newestRound,
	pollOnce,
	type FetchRound,
	type PollResult,
} from './poll';
import type { PlatformFailure, PollState } from './pollMemory';

const NAME = 'Social Aggregator Data Trigger';

export class SocialAggregatorDataTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: NAME,
		name: 'socialAggregatorDataTrigger',
		icon: { light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["term"]}}',
		// n8n's node panel shows this for its one "Social Aggregator Data" entry (action node and trigger)
		description:
			'Search recent posts across platforms, look up profiles and request API keys, or start a workflow on new posts for a term (polled)',
		defaults: { name: NAME },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'socialAggregatorApi', required: true }],
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
						displayName: 'Max Pages per Poll',
						name: 'maxPagesPerPoll',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 20 },
						default: DEFAULT_MAX_PAGES_PER_POLL,
						description:
							'Requests one poll may make. Platforms share each request; a platform stops after a page whose last post it has seen. When there are more new posts than this reads, the next polls read on from there and then emit them all, oldest first (over 100 per platform, in parts); none are skipped.',
					},
					{
						displayName: 'On Platform Failure',
						name: 'onPlatformFailure',
						type: 'options',
						options: [
							{
								name: 'Continue With a Status Item per Failed Platform',
								value: 'continue',
								description:
									'Keep the other platforms’ posts and add an item with the failed platform’s error_code and message',
							},
							{
								name: 'Fail the Poll',
								value: 'fail',
								description:
									'The poll is an error naming the failed platforms and emits nothing; the next poll reads every platform again from where it stood',
							},
						],
						default: 'continue',
						description:
							'What happens when a platform still fails after its retry. The other platforms’ posts are never lost.',
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
		loadOptions: { getDataPlatforms },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const options = (this.getNodeParameter('options', {}) as IDataObject) ?? {};
		const search = validatedSearch(this);
		if (isManualRun(this)) return await manualRun(this, search, options);

		return await onePollAtATime(this, NAME, async () => await scheduledPoll(this, search, options));
	}
}

/** A scheduled poll: reads what is new, reports it, and leaves the memory where the poll ended. */
async function scheduledPoll(ctx: IPollFunctions, search: DataSearch, options: IDataObject): Promise<INodeExecutionData[][] | null> {
	const state = savedState<PollState>(ctx);
	const maxPages = Number(options.maxPagesPerPoll ?? DEFAULT_MAX_PAGES_PER_POLL);
	const log = triggerLog(ctx, NAME);
	const budgetLeft = await requestsLeftNow(ctx);
	if (budgetLeft !== undefined && budgetLeft < maxPages) {
		log.info(
			`the key's rate limit allows ${budgetLeft} more requests now; this poll reads at most that many pages and the next polls read on`,
		);
	}
	const result = await pollOnce(search, state, searchRound(ctx, search), {
		maxPages,
		budgetLeft,
		rememberPerPlatform: Number(options.rememberPerPlatform ?? DEFAULT_REMEMBER_PER_PLATFORM),
	});
	// Before the memory moves on: a poll that fails leaves it where it stood.
	const statuses = reportFailures(ctx, result.failures, search, options);
	logOutcomes(ctx, result, maxPages);
	replaceSavedState(state, result.state);

	// A status item alone starts an execution too, so that the failure shows there.
	return pollOutput([...result.posts.map((json) => ({ json })), ...statuses]);
}

/** What the poll did with platforms that emitted nothing of their own yet: recorded, held, or read afresh. */
function logOutcomes(ctx: IPollFunctions, result: PollResult, maxPages: number): void {
	const log = triggerLog(ctx, NAME);
	if (result.recorded.length > 0) {
		log.info(`recorded the current posts of ${result.recorded.join(', ')} without emitting them`);
	}
	// A backlog that grew past what it may hold emitted its posts and holds none.
	const held = Object.entries(result.held).map(([p, count]) =>
		count > 0 ? `${platformLabel(p)}: ${count} posts held` : `${platformLabel(p)}: the posts read so far emitted now`,
	);
	if (held.length > 0) {
		log.info(
			`more new posts than ${maxPages} pages (Max Pages per Poll): the next poll reads on from where this one stopped and emits the rest oldest first (${held.join(', ')}).`,
		);
	}
	if (result.refused.length > 0) {
		log.warn(
			`the service refused the cursor ${result.refused.map(platformLabel).join(', ')} was read on from (expired): the posts read from it are emitted, and the platform is read afresh from its newest page`,
		);
	}
}

function searchRound(ctx: IPollFunctions, search: DataSearch): FetchRound {
	return async (round) => await requestDataRound(ctx, search, round);
}

/** The latest posts of one page per platform, without touching the memory: what a manual run shows. */
async function manualRun(ctx: IPollFunctions, search: DataSearch, options: IDataObject): Promise<INodeExecutionData[][] | null> {
	const { posts, failures } = await newestPosts(options, async () => await newestRound(search, searchRound(ctx, search)));
	return pollOutput([...posts.map((json) => ({ json })), ...reportFailures(ctx, failures, search, options)]);
}

/** The search the parameters describe, refused when docs/service.md#term-types rules it out. */
function validatedSearch(ctx: IPollFunctions): DataSearch {
	const search = { term: ctx.getNodeParameter('term', ''), platforms: ctx.getNodeParameter('platforms', []) };
	return validOrThrow(ctx.getNode(), checkDataSearch({ ...search, termType: ctx.getNodeParameter('termType', AUTO_DETECT) }));
}

/**
 * What the poll does with failed platforms, as On Platform Failure says: a status item each (Continue), or the poll's
 * error naming them (Fail the Poll).
 */
function reportFailures(
	ctx: IPollFunctions,
	failures: PlatformFailure[],
	search: DataSearch,
	options: IDataObject,
): INodeExecutionData[] {
	if (failures.length === 0) return [];
	const lines = failures.map((f) => `${platformLabel(f.platform)}: ${f.message} (${f.code})`).join('; ');
	if (options.onPlatformFailure === 'fail') {
		const every = failures.length >= search.platforms.length;
		throw new NodeOperationError(ctx.getNode(), `${every ? 'Every platform failed' : 'Some platforms failed'}: ${lines}`, {
			description: 'Check the term and term type for these platforms; the next poll tries again.',
		});
	}
	triggerLog(ctx, NAME).warn(`some platforms failed, the others went on: ${lines}`);
	return failures.map((f) => ({ json: platformFailureItem(f.platform, f, f.attempts) }));
}
