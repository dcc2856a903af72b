/**
 * The Social Aggregator node's own dropdowns: the providers connected accounts come from (read off `GET /platforms`)
 * and the connected social accounts (`GET /social_accounts`, paged), each with a label a user can pick by.
 */
import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { getConnectionProviders, getSocialAccounts } from '../../../../nodes/SocialAggregator/common/accountOptions';
import { scriptedContext, type Answer } from '../../support/context';

const ok = (body: unknown): Answer => ({ statusCode: 200, body });

let contexts = 0;

/** A dropdown's context with its own key: what this process counted of a key's budget is never another test's. */
function loadOptionsContext(answers: Answer[]) {
	const { context, requests } = scriptedContext(answers, `sag_live_loadoptionstest${String(++contexts).padStart(4, '0')}`);
	return { context: context as unknown as ILoadOptionsFunctions, requests };
}

const needs = (provider: string, description = 'Connect an account') => ({ requires_connection: { provider, description } });

describe('getConnectionProviders', () => {
	const platforms = {
		data: [
			{
				platform: 'Instagram',
				display_name: 'Instagram',
				term_types: [
					{ term_type: 'hashtag', display_name: 'Hashtag', requires_connection: null },
					{ term_type: 'tagged', display_name: 'Tagged', ...needs('instagram') },
					{ term_type: 'mentions', display_name: 'Mentions', ...needs('instagram') },
				],
			},
			{
				platform: 'Facebook',
				display_name: 'Facebook',
				term_types: [{ term_type: 'page_posts', display_name: 'Page Posts', ...needs('facebook') }],
			},
			{ platform: 'Threads', term_types: [{ term_type: 'user', name: 'User', ...needs('instagram') }] },
			{ platform: 'Google', display_name: 'Google Reviews', term_types: [{ term_type: 'place', display_name: 'Place', ...needs('Google') }] },
			{ platform: 'Bluesky', term_types: [{ term_type: 'keyword', requires_connection: null }] },
		],
	};

	test('one option per provider, saying which platforms and term types need it', async () => {
		const { context, requests } = loadOptionsContext([ok(platforms)]);
		const options = await getConnectionProviders.call(context);
		expect(options).toEqual([
			{ name: 'facebook', value: 'facebook', description: 'Needed for: Facebook Page Posts' },
			{ name: 'Google', value: 'Google', description: 'Needed for: Google Reviews Place' },
			{ name: 'instagram', value: 'instagram', description: 'Needed for: Instagram Tagged, Instagram Mentions, Threads User' },
		]);
		expect(requests.map((r) => [r.method, r.url])).toEqual([['GET', 'http://127.0.0.1:9/v1/platforms']]);
	});

	test('sorted as a reader sorts, not by character code (lower-case "facebook" before "Google")', async () => {
		const { context } = loadOptionsContext([ok(platforms)]);
		const names = (await getConnectionProviders.call(context)).map((o) => o.name);
		expect(names).toEqual(['facebook', 'Google', 'instagram']);
		expect([...names].sort()).not.toEqual(names);
	});

	test('a term type named twice under a platform is listed once', async () => {
		const answer = {
			data: [
				{
					platform: 'LinkedIn',
					term_types: [
						{ term_type: 'company', display_name: 'Company', ...needs('linkedin') },
						{ term_type: 'company', display_name: 'Company', ...needs('linkedin') },
					],
				},
			],
		};
		const { context } = loadOptionsContext([ok(answer)]);
		expect(await getConnectionProviders.call(context)).toEqual([
			{ name: 'linkedin', value: 'linkedin', description: 'Needed for: LinkedIn Company' },
		]);
	});

	test('the provider read from a connection given by name, or as a bare text', async () => {
		const answer = {
			platforms: [
				{ name: 'TikTok', term_types: [{ type: 'own_posts', requires_connection: { name: 'tiktok' } }] },
				{ name: 'YouTube', term_types: [{ name: 'channel', requires_connection: 'google' }] },
			],
		};
		const { context } = loadOptionsContext([ok(answer)]);
		expect(await getConnectionProviders.call(context)).toEqual([
			{ name: 'google', value: 'google', description: 'Needed for: YouTube channel' },
			{ name: 'tiktok', value: 'tiktok', description: 'Needed for: TikTok own_posts' },
		]);
	});

	test.each([
		['no platform needs a connection', { data: [{ platform: 'Bluesky', term_types: [{ term_type: 'keyword', requires_connection: null }] }] }],
		['a connection without a provider', { data: [{ platform: 'X', term_types: [{ term_type: 'list', requires_connection: { description: 'Sign in' } }] }] }],
		['platforms without term types', { data: [{ platform: 'Reddit' }, 'Vimeo'] }],
		['an empty list', { data: [] }],
		['an answer without a list', { message: 'ok' }],
	])('no options when %s', async (_case, answer) => {
		const { context } = loadOptionsContext([ok(answer)]);
		expect(await getConnectionProviders.call(context)).toEqual([]);
	});

	test('a refused request is the dropdown’s error, with the service’s message', async () => {
		const { context } = loadOptionsContext([{ statusCode: 401, body: { error: { code: 'unauthorized', message: 'Invalid API key' } } }]);
		await expect(getConnectionProviders.call(context)).rejects.toThrow('Invalid API key');
	});
});

describe('getSocialAccounts', () => {
	const page = (data: unknown[], totalPages?: number) => ok({ data, ...(totalPages ? { meta: { page: 1, per_page: 100, total_pages: totalPages } } : {}) });

	test('each account by its platform and user name, with its expiry when it has one', async () => {
		const { context, requests } = loadOptionsContext([
			page([
				{ id: 1, platform: 'Instagram', provider: 'instagram', name: 'Acme Inc', username: 'acme', expires_at: '2026-01-01T00:00:00Z' },
				{ id: 2, provider: 'facebook', name: 'Acme Page', username: '' },
				{ id: 3, platform: 'LinkedIn', email: 'ann@example.com' },
				{ id: 4 },
			]),
		]);
		expect(await getSocialAccounts.call(context)).toEqual([
			{ name: 'Instagram: acme', value: '1', description: 'Expires 2026-01-01T00:00:00Z' },
			{ name: 'facebook: Acme Page', value: '2' },
			{ name: 'LinkedIn: ann@example.com', value: '3' },
			{ name: 'Account: 4', value: '4' },
		]);
		expect(requests[0].url).toBe('http://127.0.0.1:9/v1/social_accounts');
		expect(requests[0].qs).toEqual({ page: 1, per_page: 100 });
	});

	test('accounts without an ID cannot be picked, and an account listed twice is offered once', async () => {
		const { context } = loadOptionsContext([
			page([{ platform: 'X', username: 'ghost' }, { id: '', username: 'blank' }, { id: 5, platform: 'X', username: 'first' }, { id: 5, platform: 'X', username: 'again' }]),
		]);
		expect(await getSocialAccounts.call(context)).toEqual([{ name: 'X: first', value: '5' }]);
	});

	test('every page the answer counts, in order', async () => {
		const { context, requests } = loadOptionsContext([
			page([{ id: 1, platform: 'X', username: 'a' }], 2),
			page([{ id: 2, platform: 'X', username: 'b' }], 2),
		]);
		expect((await getSocialAccounts.call(context)).map((o) => o.value)).toEqual(['1', '2']);
		expect(requests.map((r) => r.qs?.page)).toEqual([1, 2]);
	});

	test('a list under `social_accounts` or `accounts` is read too', async () => {
		const { context } = loadOptionsContext([ok({ data: { social_accounts: [{ id: 8, platform: 'TikTok', username: 'tt' }] } })]);
		expect(await getSocialAccounts.call(context)).toEqual([{ name: 'TikTok: tt', value: '8' }]);
		const other = loadOptionsContext([ok({ accounts: [{ id: 9, provider: 'google', display_name: 'Shop' }] })]);
		expect(await getSocialAccounts.call(other.context)).toEqual([{ name: 'google: Shop', value: '9' }]);
	});

	test('no accounts connected: no options', async () => {
		const { context } = loadOptionsContext([page([])]);
		expect(await getSocialAccounts.call(context)).toEqual([]);
	});
});
