/**
 * The node's dropdowns as the editor loads them: n8n-core's own LoadOptionsContext with the
 * node's current parameters, against the fake service over real HTTP.
 */
import type { ILoadOptionsFunctions, INodeListSearchResult, INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { PLATFORM_CATALOG, SEEDED, WEBHOOK_EVENTS } from '../../fake-service';
import { SocialAggregator } from '../../../nodes/SocialAggregator/SocialAggregator.node';
import { loadOptionsContext, useFakeService } from '../support';
import { feed, NODE, workflow } from './helpers';

const fake = useFakeService();
const node = new SocialAggregator();

/** A load-options context for the node with these parameters, as the editor has them. */
function context(parameters: INodeParameters, path: string): ILoadOptionsFunctions {
	return loadOptionsContext(fake, workflow(parameters), NODE, parameters, path);
}

async function load(method: string, parameters: INodeParameters, path: string): Promise<INodePropertyOptions[]> {
	const loader = node.methods.loadOptions[method as keyof typeof node.methods.loadOptions];
	return await loader.call(context(parameters, path));
}

test('the feed locator lists and searches the account’s feeds', async () => {
	const search = node.methods.listSearch.searchFeeds;
	const all: INodeListSearchResult = await search.call(context({ resource: 'feed', operation: 'get' }, 'parameters.feedId'));
	expect(all.results.map((r) => r.value)).toEqual(['1', '2', '3']);
	const found = await search.call(context({ resource: 'feed', operation: 'get' }, 'parameters.feedId'), 'launch');
	expect(found.results).toEqual([{ name: 'Product launch (2)', value: '2' }]);
});

test('platforms and the chosen platform’s term types come from GET /platforms', async () => {
	const base = { resource: 'source', operation: 'create', feedId: feed(SEEDED.feeds.productLaunch) };
	const platforms = await load('getPlatforms', base, 'parameters.platform');
	expect(platforms.map((p) => p.value).sort()).toEqual(PLATFORM_CATALOG.map((p) => p.platform).sort());

	fake.control.requests.clear();
	const termTypes = await load('getTermTypes', { ...base, platform: 'LinkedIn' }, 'parameters.termType');
	expect(fake.control.requests.list().map((r) => [r.method, r.path])).toEqual([['GET', '/platforms']]);
	expect(termTypes.map((t) => t.value)).toEqual(['username', 'hashtag', 'company']);
	expect(termTypes.find((t) => t.value === 'company')?.description).toMatch(/^Needs a connected linkedin account/);
});

test('sources come from the feed chosen in the locator', async () => {
	const sources = await load(
		'getFeedSources',
		{ resource: 'source', operation: 'delete', feedId: feed(SEEDED.feeds.reviews, 'id') },
		'parameters.sourceId',
	);
	expect(sources.map((s) => s.value)).toEqual([String(SEEDED.sources.googleReviews), String(SEEDED.sources.rssBlog)]);
	expect(fake.control.requests.list().map((r) => r.path)).toEqual([`/feeds/${SEEDED.feeds.reviews}/sources`]);
});

test('feeds for multi-selects, providers to connect, connected accounts and webhook events', async () => {
	const feeds = await load('getFeeds', { resource: 'user', operation: 'invite' }, 'parameters.feedIds');
	expect(feeds.map((f) => f.value)).toEqual(['1', '2', '3']);

	const providers = await load('getConnectionProviders', { resource: 'socialAccount', operation: 'createConnectionLink' }, 'parameters.provider');
	const expected = new Set(
		PLATFORM_CATALOG.flatMap((p) => p.term_types.map((t) => t.requires_connection?.provider)).filter((p): p is string => Boolean(p)),
	);
	expect(providers.map((p) => p.value)).toEqual([...expected].sort());

	const accounts = await load('getSocialAccounts', { resource: 'socialAccount', operation: 'disconnect' }, 'parameters.socialAccountId');
	expect(accounts.map((a) => a.value)).toEqual([String(SEEDED.socialAccounts.acmeFacebook), String(SEEDED.socialAccounts.acmeInstagram)]);

	const events = await load('getWebhookEvents', { resource: 'webhook', operation: 'create' }, 'parameters.events');
	expect(events.map((e) => e.value)).toEqual(expect.arrayContaining(WEBHOOK_EVENTS.map((e) => e.name)));
});
