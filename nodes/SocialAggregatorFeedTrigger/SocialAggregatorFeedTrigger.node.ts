import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import { feedIdList } from '../shared/input';
import { getFeeds } from '../shared/loadOptions';
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
import { feedPostShape } from '../shared/simplify';
import { apiRequestChecked } from '../shared/transport';
import { isDigits } from '../shared/utils';
import { DEFAULT_LATE_HOURS, feedPageAnswer, type FeedPage, type FeedPost, type FetchFeedPage } from '../shared/feedWalk';
import { DEFAULT_MAX_PAGES_PER_FEED, newestFeedPages, pollFeeds, pollShare, type FeedPollResult, type FeedPollState } from './feedPoll';

const NAME = 'Social Aggregator Feed Trigger';

export class SocialAggregatorFeedTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: NAME,
		name: 'socialAggregatorFeedTrigger',
		icon: { light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{"Feeds " + [].concat($parameter["feedIds"]).join(", ")}}',
		description: 'Start a workflow on new posts of your feeds (polled: no public address needed, no Data API credits)',
		defaults: { name: NAME },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'socialAggregatorApi', required: true }],
		properties: [
			{
				displayName:
					'Each poll emits every post new to each feed, oldest first, whatever its ID and whatever order the service lists it in: a post approved late is emitted at the next poll that lists it. A poll with nothing new costs one or two requests per feed; with new posts, about one more per 100. The first poll after activation only records what each feed shows. Many new posts are read over several pages, and over several polls when Max Pages or the key’s rate limit allows no more now (a poll spends at most half of what the key has left); none are skipped.',
				name: 'pollNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Feed Names or IDs',
				name: 'feedIds',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getFeeds' },
				required: true,
				default: [],
				description:
					'The feeds whose new posts start the workflow. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: '',
				description:
					'Only posts in this moderation state when the poll reads them. A post that comes into it later (approved after newer posts were emitted) is emitted at the next poll, if that is within the Late Posts Window of its collection. Changing it emits nothing twice.',
				options: [
					{ name: 'Any Status', value: '', description: 'Every post as the feed collects it' },
					{ name: 'Moderated', value: 'moderated', description: 'Held back for review' },
					{ name: 'Public', value: 'public', description: 'Shown in the feed' },
					{ name: 'Rejected', value: 'rejected', description: 'Refused by a moderator or the AI moderation' },
				],
			},
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: true,
				description: 'Whether to return a simplified version of each post instead of the raw data',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Late Posts Window (Hours)',
						name: 'lateHours',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: 720 },
						default: DEFAULT_LATE_HOURS,
						description:
							'How long before the service collects a post it may have been published and still be emitted (a source that syncs once a day collects posts up to a day old), and how long after its collection a post may still come into the feed (approved, restored) and be emitted. A wider window repeats nothing.',
					},
					{
						displayName: 'Max Pages per Feed and Poll',
						name: 'maxPagesPerFeed',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 100 },
						default: DEFAULT_MAX_PAGES_PER_FEED,
						description:
							'Pages of 100 posts one poll may read of a feed. When there are more, the poll emits the new posts it read and the next polls read on; none are skipped.',
					},
					{
						displayName: 'Posts in a Manual Run',
						name: 'testPosts',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 100 },
						default: DEFAULT_TEST_POSTS,
						description: 'How many of the newest posts Fetch Test Event shows',
					},
				],
			},
		],
	};

	methods = {
		loadOptions: { getFeeds },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const feedIds = checkedFeedIds(this);
		const status = String(this.getNodeParameter('status', '') ?? '');
		const simplify = this.getNodeParameter('simplify', true) === true;
		const options = (this.getNodeParameter('options', {}) as IDataObject) ?? {};
		const fetchPage = feedPageReader(this, status);
		const toItem = ({ feedId, post }: { feedId: string; post: FeedPost }): INodeExecutionData => {
			const withFeed: IDataObject = { ...post, feed_id: post.feed_id ?? Number(feedId) };
			return { json: simplify ? feedPostShape.simplify(withFeed) : withFeed };
		};

		if (isManualRun(this)) {
			const latest = await newestPosts(options, async (count) => await newestFeedPages(feedIds, fetchPage, count));
			return pollOutput(latest.posts.map(toItem));
		}

		const lateMs = lateWindowMs(this, options.lateHours);
		return await onePollAtATime(this, NAME, async () => {
			const state = savedState<FeedPollState>(this);
			const budgetLeft = pollShare(await requestsLeftNow(this), feedIds.length);
			const result = await pollFeeds(status, feedIds, state, fetchPage, {
				maxPagesPerFeed: Number(options.maxPagesPerFeed ?? DEFAULT_MAX_PAGES_PER_FEED),
				lateMs,
				budgetLeft,
				now: Date.now(),
			});
			logOutcomes(this, result.outcomes);
			replaceSavedState(state, result.state);
			return pollOutput(result.posts.map(toItem));
		});
	}
}

/** What the poll did with a feed that emitted nothing: where it stands recorded, posts held, or not asked. */
function logOutcomes(ctx: IPollFunctions, outcomes: FeedPollResult['outcomes']): void {
	const log = triggerLog(ctx, NAME);
	for (const [feedId, outcome] of Object.entries(outcomes)) {
		if (outcome.kind === 'recorded') {
			log.info(`recorded where feed ${feedId} stands (post ${outcome.mark}) without emitting its posts`);
		} else if (outcome.kind === 'held') {
			log.info(
				`feed ${feedId} has more posts to read than this poll may: ${outcome.posts.length} new posts emitted, the next polls read on`,
			);
		} else if (outcome.kind === 'notAsked') {
			log.info(`the key's rate limit allows too few requests now; feed ${feedId} is read first by the next poll`);
		}
	}
}

/** The feeds chosen, each an ID of digits, at least one: refused before any request. */
function checkedFeedIds(ctx: IPollFunctions): string[] {
	const feedIds = feedIdList(ctx.getNodeParameter('feedIds', []));
	if (feedIds.length === 0) {
		throw new NodeOperationError(ctx.getNode(), 'Choose at least one feed under Feed Names or IDs');
	}
	const wrong = feedIds.find((id) => !isDigits(id));
	if (wrong !== undefined) {
		throw new NodeOperationError(ctx.getNode(), `Feed Names or IDs: "${wrong}" is not a feed ID (digits only)`);
	}
	return feedIds;
}

/** The option Late Posts Window (Hours) in ms: a number of hours from 0, refused before any request otherwise. */
function lateWindowMs(ctx: IPollFunctions, value: unknown): number {
	const hours = value === undefined || value === '' || value === null ? DEFAULT_LATE_HOURS : Number(value);
	if (!Number.isFinite(hours) || hours < 0) {
		throw new NodeOperationError(ctx.getNode(), `Late Posts Window (Hours): ${JSON.stringify(value)} is not a number of hours of 0 or more`);
	}
	return hours * 3_600_000;
}

/** One page of `GET /feeds/{id}/posts`, newest first, its answer checked; every post must carry its integer ID. */
function feedPageReader(ctx: IPollFunctions, status: string): FetchFeedPage {
	return async (feedId, page, perPage): Promise<FeedPage> => {
		const path = `/feeds/${feedId}/posts`;
		const qs: IDataObject = { page, per_page: perPage };
		if (status !== '') qs.status = status;
		return await apiRequestChecked(ctx, { method: 'GET', path, qs }, (body, at) => feedPageAnswer(body, { ...at, page }));
	};
}
