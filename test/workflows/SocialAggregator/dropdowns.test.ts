/**
 * The node's dropdowns as the editor loads them: n8n-core's own LoadOptionsContext with the
 * node's current parameters, against the fake service over real HTTP.
 */
import type { ILoadOptionsFunctions, INodeListSearchResult, INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { PLATFORM_CATALOG, SEEDED, WEBHOOK_EVENTS } from '../../fake-service';
import { SocialAggregator } from '../../../nodes/SocialAggregator/SocialAggregator.node';
import { DATA_API_TERM_TYPES } from '../../../nodes/shared/constants';
import { expectPickable, loadOptionsContext, useFakeService } from '../support';
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

test('a feed with more sources than one page lists every one of them, page by page', async () => {
	const sources = Array.from({ length: 150 }, (_, i) => ({ platform: 'RSS', term: `https://blog${i}.example/feed`, term_type: 'rss' }));
	const { feedId, sourceIds } = fake.control.seedFeed({ posts: 0, name: 'Many sources', sources });
	fake.control.requests.clear();
	const listed = await load('getFeedSources', { resource: 'source', operation: 'delete', feedId: feed(feedId, 'id') }, 'parameters.sourceId');
	expect(listed.map((s) => s.value)).toEqual(sourceIds.map(String));
	expect(fake.control.requests.list().map((r) => r.query.page)).toEqual(['1', '2']);
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

/**
 * Where the service documents no shape (feed records, social accounts, webhook events), or a
 * field may be missing (display names), the service may answer otherwise than the fake does
 * by default: every dropdown still offers only options that can be picked.
 */
describe('dropdowns stay usable whatever shape the service answers', () => {
	/** The next answer to GET `path` has this body instead of the fake's. */
	const answer = (path: string, body: unknown, count: number | 'always' = 1) => fake.control.answers.add({ path, body, count });
	const pickable = (options: INodePropertyOptions[]) => {
		expectPickable(options);
		return options.map(({ name, value }) => ({ name, value }));
	};
	const feedsParameters = { resource: 'feed', operation: 'get' };

	test('feeds without a name are labelled by id; entries without an id, and stray values, are left out', async () => {
		const search = node.methods.listSearch.searchFeeds;
		const feeds = [{ id: 1 }, { id: 2, name: '' }, { id: 3, name: null }, { id: 4, name: { en: 'x' } }, { name: 'No id' }, null, { id: {} }, 5];
		answer('/feeds', { data: feeds, meta: { page: 1, per_page: 100, total_count: 8, total_pages: 1 } });
		const found = await search.call(context(feedsParameters, 'parameters.feedId'));
		expect(pickable(found.results)).toEqual([1, 2, 3, 4, 5].map((id) => ({ name: `Feed ${id}`, value: String(id) })));
		expect(found.paginationToken).toBeUndefined();

		// The list under `feeds`, no page counts: one page, nothing more to ask for.
		answer('/feeds', { data: { feeds: [{ id: 9, name: 'Wall' }] } });
		expect(await search.call(context(feedsParameters, 'parameters.feedId'), 'wall')).toEqual({
			results: [{ name: 'Wall (9)', value: '9' }],
			paginationToken: undefined,
		});

		// A bare list for the multi-select, then a garbage answer: no options rather than blank ones.
		answer('/feeds', [{ id: 7, title: 'Untitled' }]);
		expect(pickable(await load('getFeeds', { resource: 'user', operation: 'invite' }, 'parameters.feedIds'))).toEqual([{ name: 'Feed 7', value: '7' }]);
		answer('/feeds', { data: 'none', meta: 'none' });
		expect(await load('getFeeds', { resource: 'user', operation: 'invite' }, 'parameters.feedIds')).toEqual([]);
	});

	const sourceCreate = { resource: 'source', operation: 'create', feedId: feed(SEEDED.feeds.productLaunch) };

	test('platforms without display names, term types as bare names, stray entries: only pickable options', async () => {
		const platforms = {
			data: [
				{ platform: 'Bluesky', term_types: ['username', 'hashtag'] },
				{ platform: 'Reddit', display_name: '', term_types: [{ term_type: 'channel' }, { term_type: 'mentions', display_name: null }, null, {}] },
				{ platform: 'LinkedIn', display_name: 'LinkedIn', term_types: [{ term_type: 'company', requires_connection: { provider: 'linkedin' } }] },
				null,
				{ display_name: 'No platform' },
				['Nested'],
			],
		};
		answer('/platforms', platforms, 'always');
		expect(pickable(await load('getPlatforms', sourceCreate, 'parameters.platform'))).toEqual([
			{ name: 'Bluesky', value: 'Bluesky' },
			{ name: 'LinkedIn', value: 'LinkedIn' },
			{ name: 'Reddit', value: 'Reddit' },
		]);
		expect(pickable(await load('getTermTypes', { ...sourceCreate, platform: 'Bluesky' }, 'parameters.termType'))).toEqual([
			{ name: 'username', value: 'username' },
			{ name: 'hashtag', value: 'hashtag' },
		]);
		expect(pickable(await load('getTermTypes', { ...sourceCreate, platform: 'Reddit' }, 'parameters.termType')).map((t) => t.value)).toEqual(['channel', 'mentions']);
		const company = await load('getTermTypes', { ...sourceCreate, platform: 'LinkedIn' }, 'parameters.termType');
		expect(company).toEqual([{ name: 'company', value: 'company', description: 'Needs a connected linkedin account' }]);
		const providers = await load('getConnectionProviders', { resource: 'socialAccount', operation: 'createConnectionLink' }, 'parameters.provider');
		expect(pickable(providers)).toEqual([{ name: 'linkedin', value: 'linkedin' }]);
		expect(providers[0].description).toBe('Needed for: LinkedIn company');
	});

	test('platforms as bare names: the platforms listed, their term types from docs/service.md#term-types; nothing usable: that table', async () => {
		answer('/platforms', { data: ['Bluesky', 'Reddit', 'Threads'] }, 2);
		expect(pickable(await load('getPlatforms', sourceCreate, 'parameters.platform')).map((p) => p.value)).toEqual(['Bluesky', 'Reddit', 'Threads']);
		expect(pickable(await load('getTermTypes', { ...sourceCreate, platform: 'Reddit' }, 'parameters.termType')).map((t) => t.value)).toEqual(['channel', 'mentions']);

		fake.control.answers.clear();
		answer('/platforms', { data: [null, {}, { display_name: 'Nameless', term_types: 'all' }] }, 3);
		const fallback = pickable(await load('getPlatforms', sourceCreate, 'parameters.platform'));
		expect(fallback.map((p) => p.value).sort()).toEqual(Object.keys(DATA_API_TERM_TYPES).sort());
		expect(fallback.find((p) => p.value === 'Twitter')?.name).toBe('X (Twitter)');
		expect(pickable(await load('getTermTypes', { ...sourceCreate, platform: 'Twitter' }, 'parameters.termType')).map((t) => t.value)).toEqual(
			DATA_API_TERM_TYPES.Twitter,
		);
		expect(await load('getConnectionProviders', { resource: 'socialAccount', operation: 'createConnectionLink' }, 'parameters.provider')).toEqual([]);

		// An error is no shape: it still reaches the editor.
		fake.control.injectFault({ path: '/platforms', kind: 'error', status: 401, code: 'unauthorized' });
		await expect(load('getPlatforms', sourceCreate, 'parameters.platform')).rejects.toThrow();
	});

	test('sources without a platform or a term are labelled by what they have; entries without an id are left out', async () => {
		const reviews = { resource: 'source', operation: 'delete', feedId: feed(SEEDED.feeds.reviews, 'id') };
		answer(`/feeds/${SEEDED.feeds.reviews}/sources`, {
			data: [{ id: 10, term: 'ChIJacmeCoffeeBerlin01' }, { id: 11, platform: 'RSS' }, { id: 12, name: 'Blog', term_type: 'rss' }, { platform: 'Google', term: 'no id' }, null, { id: 13 }],
		});
		expect(pickable(await load('getFeedSources', reviews, 'parameters.sourceId'))).toEqual([
			{ name: 'ChIJacmeCoffeeBerlin01', value: '10' },
			{ name: 'RSS: 11', value: '11' },
			{ name: 'Blog', value: '12' },
			{ name: 'Source 13', value: '13' },
		]);
		answer(`/feeds/${SEEDED.feeds.reviews}/sources`, { data: { sources: [{ id: 10, platform: 'Google', term: 'ChIJacmeCoffeeBerlin01', term_type: 'reviews' }] } });
		expect(await load('getFeedSources', reviews, 'parameters.sourceId')).toEqual([
			{ name: 'Google: ChIJacmeCoffeeBerlin01', value: '10', description: 'Term type: reviews' },
		]);
	});

	test('social accounts in other shapes: labelled by platform or provider and a handle, else the id', async () => {
		const disconnect = { resource: 'socialAccount', operation: 'disconnect' };
		answer('/social_accounts', {
			data: [{ id: 5, provider: 'linkedin' }, { id: 6, platform: 'Threads', handle: '@acme' }, { username: 'no id' }, null, { id: 7, display_name: 'Acme Co' }],
		});
		expect(pickable(await load('getSocialAccounts', disconnect, 'parameters.socialAccountId'))).toEqual([
			{ name: 'linkedin: 5', value: '5' },
			{ name: 'Threads: @acme', value: '6' },
			{ name: 'Account: Acme Co', value: '7' },
		]);
		answer('/social_accounts', { social_accounts: [{ id: 8, platform: 'facebook', name: 'Acme', expires_at: '2025-08-01T00:00:00Z' }] });
		expect(await load('getSocialAccounts', disconnect, 'parameters.socialAccountId')).toEqual([
			{ name: 'facebook: Acme', value: '8', description: 'Expires 2025-08-01T00:00:00Z' },
		]);
	});

	test('webhook events named under another field, as bare names or inside an object; nothing usable: the known events', async () => {
		const create = { resource: 'webhook', operation: 'create' };
		const known = WEBHOOK_EVENTS.map((e) => e.name);
		const events = async () => pickable(await load('getWebhookEvents', create, 'parameters.events')).map((e) => e.value);

		answer('/webhook_events', { data: [{ event: 'post.created' }, { event: 'post.moderated', description: 'A post was moderated' }] });
		expect(await events()).toEqual(['post.created', 'post.moderated', 'social_account.expiring', 'social_account.expired']);
		answer('/webhook_events', { data: [{ id: 'feed.synced', description: 'A feed synced' }] });
		expect(await events()).toEqual(['feed.synced', ...known]);
		answer('/webhook_events', { data: ['post.created', 'post.moderated', null, 7.5e400] });
		expect(await events()).toEqual(['post.created', 'post.moderated', 'social_account.expiring', 'social_account.expired']);
		answer('/webhook_events', { data: { events: [{ name: 'post.moderated' }] } });
		expect(await events()).toEqual(['post.moderated', ...known]);

		answer('/webhook_events', { data: [{}, { description: 'Nameless' }, { name: '' }] });
		const fallback = await load('getWebhookEvents', create, 'parameters.events');
		expect(fallback.map((e) => e.value)).toEqual(known);
		expect(fallback.every((e) => typeof e.description === 'string' && e.description.length > 0)).toBe(true);
	});
});
