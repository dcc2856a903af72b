import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';

import {
	getFeeds,
	getFeedSources,
	getPlatforms,
	getTermTypes,
	getWebhookEvents,
	searchFeeds,
	searchPosts,
	searchSources,
	searchWebhooks,
} from '../shared/loadOptions';
import { requestOptionsCollection } from '../shared/requestOptions';
import { getConnectionProviders, getSocialAccounts } from './common/accountOptions';
import { accountDescription } from './resources/account';
import { analyticsDescription } from './resources/analytics';
import { feedDescription } from './resources/feed';
import { platformDescription } from './resources/platform';
import { postDescription } from './resources/post';
import { socialAccountDescription } from './resources/socialAccount';
import { sourceDescription } from './resources/source';
import { userDescription } from './resources/user';
import { webhookDescription } from './resources/webhook';

/**
 * The Integration API, declarative: an operation's routing in resources/<resource>.ts, or in
 * resources/<resource>/<operation>.ts for the larger resources (post, webhook); every operation run by
 * common/routing.ts's operation runner by the package's rules.
 */
export class SocialAggregator implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Social Aggregator',
		name: 'socialAggregator',
		icon: { light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Manage social feeds: sources, posts and moderation, embed codes, analytics, users, connected accounts and webhooks. One-off post lookups on the platforms, which spend credits, are in the Social Aggregator Data node.',
		defaults: { name: 'Social Aggregator' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'socialAggregatorApi', required: true }],
		requestDefaults: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
			headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
			json: true,
		},
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Account', value: 'account' },
					{ name: 'Analytics', value: 'analytics' },
					{ name: 'Feed', value: 'feed' },
					{ name: 'Platform', value: 'platform' },
					{ name: 'Post', value: 'post' },
					{ name: 'Social Account', value: 'socialAccount' },
					{ name: 'Source', value: 'source' },
					{ name: 'User', value: 'user' },
					{ name: 'Webhook', value: 'webhook' },
				],
				default: 'post',
			},
			...accountDescription,
			...analyticsDescription,
			...feedDescription,
			...platformDescription,
			...postDescription,
			...socialAccountDescription,
			...sourceDescription,
			...userDescription,
			...webhookDescription,
			// n8n merges its own request options (batching, timeout, proxy) into this collection.
			requestOptionsCollection,
		],
	};

	methods = {
		listSearch: { searchFeeds, searchPosts, searchSources, searchWebhooks },
		loadOptions: {
			getConnectionProviders,
			getFeedSources,
			getFeeds,
			getPlatforms,
			getSocialAccounts,
			getTermTypes,
			getWebhookEvents,
		},
	};
}
