/**
 * Every operation of the Social Aggregator node, run as workflow JSON through n8n-core
 * against the fake service over real HTTP: what the service received (method, path, query,
 * body) and what the node output; in both legal shapes of the service's answers
 * (test/fake-service/README.md, Shapes).
 */
import { PLATFORM_CATALOG, SEEDED, SHAPES } from '../../fake-service';
import { useFakeService, type NodeRun } from '../support';
import { feed, runNode, sent } from './helpers';

const fake = useFakeService();

/** The run succeeded; its output JSON, each item paired with input item 0. */
function outputOf(run: NodeRun) {
	expect(run.error).toBeUndefined();
	for (const item of run.items) expect(item.pairedItem).toEqual({ item: 0 });
	return run.items.map((item) => item.json);
}

const F = SEEDED.feeds;
const P = SEEDED.firstPostId;

describe.each(SHAPES)('in the %s shape', (shapes) => {
	const live = shapes === 'live';
	beforeEach(() => fake.control.setShapes(shapes));

	describe('Account', () => {
		test('Get reads GET /account and outputs the account', async () => {
			const run = await runNode(fake, { resource: 'account', operation: 'get' });
			expect(run.requests.map(sent)).toEqual([{ method: 'GET', path: '/account', query: {}, body: undefined }]);
			const [account] = outputOf(run);
			expect(run.items).toHaveLength(1);
			expect(account).toMatchObject({ id: SEEDED.accounts.acme, name: 'Acme Media', plan: 'team', role: 'owner' });
		});
	});

	describe('Platform', () => {
		test('Get Many with a limit outputs that many platforms, term types and connection needs included', async () => {
			const run = await runNode(fake, { resource: 'platform', operation: 'getAll', limit: 5 });
			expect(run.requests.map(sent)).toEqual([{ method: 'GET', path: '/platforms', query: {}, body: undefined }]);
			const platforms = outputOf(run);
			expect(platforms.map((p) => p.platform)).toEqual(PLATFORM_CATALOG.slice(0, 5).map((p) => p.platform));
			const facebook = platforms.find((p) => p.platform === 'Facebook');
			expect(facebook?.term_types).toEqual(
				expect.arrayContaining([
					expect.objectContaining({ term_type: 'page', requires_connection: expect.objectContaining({ provider: 'facebook' }) }),
					// Live, a term type without connection needs says false; the published contract's form is null (docs/service.md#platforms).
					expect.objectContaining({ term_type: 'hashtag', requires_connection: live ? false : null }),
				]),
			);
		});

		test('Get Many with Return All outputs every platform from one request', async () => {
			const run = await runNode(fake, { resource: 'platform', operation: 'getAll', returnAll: true });
			expect(run.requests).toHaveLength(1);
			expect(outputOf(run).map((p) => p.platform)).toEqual(PLATFORM_CATALOG.map((p) => p.platform));
		});
	});

	describe('Feed', () => {
		test('Create posts the name and sync interval', async () => {
			const run = await runNode(fake, {
				resource: 'feed',
				operation: 'create',
				name: 'Launch wall',
				additionalFields: { syncInterval: 30 },
			});
			expect(run.requests.map(sent)).toEqual([
				{ method: 'POST', path: '/feeds', query: {}, body: { name: 'Launch wall', sync_interval: 30 } },
			]);
			expect(run.requests[0].status).toBe(201);
			const [created] = outputOf(run);
			expect(created).toMatchObject({ name: 'Launch wall', sync_interval: 30, posts_count: 0 });
			expect(typeof created.id).toBe('number');
		});

		test('Create with the plan default sends sync_interval null; without options only the name', async () => {
			const withDefault = await runNode(fake, {
				resource: 'feed',
				operation: 'create',
				name: 'Default sync',
				additionalFields: { syncInterval: 0 },
			});
			expect(withDefault.requests.map((r) => r.body)).toEqual([{ name: 'Default sync', sync_interval: null }]);
			expect(outputOf(withDefault)[0]).toMatchObject({ name: 'Default sync', sync_interval: null });

			const plain = await runNode(fake, { resource: 'feed', operation: 'create', name: 'Plain' });
			expect(plain.requests.map((r) => r.body)).toEqual([{ name: 'Plain' }]);
		});

		test('Get reads the feed chosen in the locator (list mode and ID mode)', async () => {
			for (const locator of [feed(F.productLaunch), feed(F.productLaunch, 'id')]) {
				const run = await runNode(fake, { resource: 'feed', operation: 'get', feedId: locator });
				expect(run.requests.map(sent)).toEqual([
					{ method: 'GET', path: `/feeds/${F.productLaunch}`, query: {}, body: undefined },
				]);
				expect(outputOf(run)).toEqual([expect.objectContaining({ id: F.productLaunch, name: 'Product launch' })]);
			}
		});

		test('Get Many with Return All and Include Sources pages at per_page=100', async () => {
			const run = await runNode(fake, {
				resource: 'feed',
				operation: 'getAll',
				returnAll: true,
				options: { includeSources: true },
			});
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: '/feeds', query: { include: 'sources', page: '1', per_page: '100' }, body: undefined },
			]);
			const feeds = outputOf(run);
			expect(feeds.map((f) => f.id)).toEqual([F.brandMentions, F.productLaunch, F.reviews]);
			expect(feeds[0].sources).toHaveLength(5);
		});

		test('Get Many with a limit asks for that many', async () => {
			const run = await runNode(fake, { resource: 'feed', operation: 'getAll', limit: 2 });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: '/feeds', query: { page: '1', per_page: '2' }, body: undefined },
			]);
			expect(outputOf(run).map((f) => f.name)).toEqual(['Brand mentions', 'Product launch']);
		});

		test('Update patches only the fields given', async () => {
			const run = await runNode(fake, {
				resource: 'feed',
				operation: 'update',
				feedId: feed(F.reviews, 'id'),
				updateFields: { name: 'Reviews only', syncInterval: 1440 },
			});
			expect(run.requests.map(sent)).toEqual([
				{ method: 'PATCH', path: `/feeds/${F.reviews}`, query: {}, body: { name: 'Reviews only', sync_interval: 1440 } },
			]);
			expect(outputOf(run)).toEqual([expect.objectContaining({ id: F.reviews, name: 'Reviews only', sync_interval: 1440 })]);
		});

		test('Delete sends DELETE and outputs { deleted: true, id }', async () => {
			const run = await runNode(fake, { resource: 'feed', operation: 'delete', feedId: feed(F.reviews) });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'DELETE', path: `/feeds/${F.reviews}`, query: {}, body: undefined },
			]);
			expect(run.requests[0].status).toBe(204);
			expect(outputOf(run)).toEqual([{ deleted: true, id: F.reviews }]);

			const after = await runNode(fake, { resource: 'feed', operation: 'get', feedId: feed(F.reviews) });
			expect(after.error).toMatchObject({ httpCode: '404' });
		});

		test('Get Embed Code outputs the snippets', async () => {
			const run = await runNode(fake, { resource: 'feed', operation: 'getEmbedCode', feedId: feed(F.brandMentions) });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: `/feeds/${F.brandMentions}/embed`, query: {}, body: undefined },
			]);
			const [embed] = outputOf(run);
			expect(Object.keys(embed).sort()).toEqual(['feed_url', 'iframe', 'javascript', 'wordpress_php', 'wordpress_shortcode']);
			expect(embed.javascript).toContain('<script');
		});
	});

	describe('Source', () => {
		test('Create posts platform, term, term type, name and options', async () => {
			const run = await runNode(fake, {
				resource: 'source',
				operation: 'create',
				feedId: feed(F.productLaunch),
				platform: 'Bluesky',
				termType: 'username',
				term: 'acme-news.bsky.social',
				options: { name: 'Acme news', sourceOptions: '{"include_replies": false}' },
			});
			expect(run.requests.map(sent)).toEqual([
				{
					method: 'POST',
					path: `/feeds/${F.productLaunch}/sources`,
					query: {},
					body: {
						platform: 'Bluesky',
						term_type: 'username',
						term: 'acme-news.bsky.social',
						name: 'Acme news',
						options: { include_replies: false },
					},
				},
			]);
			expect(outputOf(run)).toEqual([
				expect.objectContaining({
					platform: 'Bluesky',
					term: 'acme-news.bsky.social',
					term_type: 'username',
					name: 'Acme news',
					options: { include_replies: false },
				}),
			]);
		});

		test('Get Many outputs one item per source of the feed', async () => {
			const run = await runNode(fake, { resource: 'source', operation: 'getAll', feedId: feed(F.brandMentions), returnAll: true });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: `/feeds/${F.brandMentions}/sources`, query: { page: '1', per_page: '100' }, body: undefined },
			]);
			expect(outputOf(run).map((s) => s.id)).toEqual([1, 2, 3, 4, 5]);
		});

		test('Delete removes the source chosen from the feed', async () => {
			const run = await runNode(fake, {
				resource: 'source',
				operation: 'delete',
				feedId: feed(F.brandMentions),
				sourceId: String(SEEDED.sources.redditAcme),
			});
			expect(run.requests.map(sent)).toEqual([
				{ method: 'DELETE', path: `/feeds/${F.brandMentions}/sources/${SEEDED.sources.redditAcme}`, query: {}, body: undefined },
			]);
			expect(outputOf(run)).toEqual([{ deleted: true, id: SEEDED.sources.redditAcme }]);
		});
	});

	describe('Post', () => {
		test('Get Many sends status, search, source filter and the dates, and outputs matching posts', async () => {
			const run = await runNode(
				fake,
				{
					resource: 'post',
					operation: 'getAll',
					feedId: feed(F.brandMentions),
					returnAll: true,
					simplify: false,
					filters: {
						status: 'public',
						search: 'acme',
						sources: [String(SEEDED.sources.twitterAcme), String(SEEDED.sources.instagramAcme)],
						after: '2025-05-01T00:00:00',
						before: '2025-06-01T00:00:00',
					},
				},
				{ timezone: 'Europe/Berlin' },
			);
			expect(run.requests.map(sent)).toEqual([
				{
					method: 'GET',
					path: `/feeds/${F.brandMentions}/posts`,
					query: {
						status: 'public',
						search: 'acme',
						filter: '1,2',
						// Midnight in Berlin (CEST, UTC+2), as instants.
						starting_at: '2025-04-30T22:00:00.000Z',
						ending_at: '2025-05-31T22:00:00.000Z',
						page: '1',
						per_page: '100',
					},
					body: undefined,
				},
			]);
			const posts = outputOf(run);
			expect(posts.length).toBeGreaterThan(0);
			for (const post of posts) {
				expect(post.moderation_status).toBe('public');
				expect([1, 2]).toContain(post.source_id);
				const at = Date.parse(String(post.external_created_at));
				expect(at).toBeGreaterThanOrEqual(Date.parse('2025-04-30T22:00:00.000Z'));
				expect(at).toBeLessThanOrEqual(Date.parse('2025-05-31T22:00:00.000Z'));
			}
		});

		test('Get outputs the post', async () => {
			const run = await runNode(fake, { resource: 'post', operation: 'get', feedId: feed(F.brandMentions), postId: String(P) });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: `/feeds/${F.brandMentions}/posts/${P}`, query: {}, body: undefined },
			]);
			expect(outputOf(run)).toEqual([expect.objectContaining({ id: P, feed_id: F.brandMentions })]);
		});

		test('Delete soft-deletes, and Approve brings the post back as public', async () => {
			const deleted = await runNode(fake, { resource: 'post', operation: 'delete', feedId: feed(F.brandMentions), postId: String(P) });
			expect(deleted.requests.map(sent)).toEqual([
				{ method: 'DELETE', path: `/feeds/${F.brandMentions}/posts/${P}`, query: {}, body: undefined },
			]);
			expect(outputOf(deleted)).toEqual([{ deleted: true, id: P }]);
			expect(fake.control.getPost(P)).toMatchObject({ deleted: true });

			const approved = await runNode(fake, { resource: 'post', operation: 'approve', feedId: feed(F.brandMentions), postId: String(P) });
			expect(approved.requests.map(sent)).toEqual([
				{ method: 'POST', path: `/feeds/${F.brandMentions}/posts/${P}/approve`, query: {}, body: undefined },
			]);
			expect(outputOf(approved)).toEqual([expect.objectContaining({ id: P, moderation_status: 'public' })]);
			expect(fake.control.getPost(P)).toMatchObject({ deleted: false, moderation_status: 'public' });
		});

		test.each([
			['reject', { moderation_status: 'rejected' }],
			['pin', { pinned: true }],
			['unpin', { pinned: false }],
		])('%s posts to the action and outputs the changed post', async (operation, change) => {
			const run = await runNode(fake, { resource: 'post', operation, feedId: feed(F.brandMentions), postId: String(P + 1) });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'POST', path: `/feeds/${F.brandMentions}/posts/${P + 1}/${operation}`, query: {}, body: undefined },
			]);
			expect(outputOf(run)).toEqual([expect.objectContaining({ id: P + 1, ...change })]);
			expect(fake.control.getPost(P + 1)).toMatchObject(change);
		});

		test('Search Across Feeds sends q and outputs posts of several feeds', async () => {
			const run = await runNode(fake, { resource: 'post', operation: 'search', query: 'acme', limit: 300 });
			const pages = run.requests.map(sent);
			expect(pages[0]).toEqual({ method: 'GET', path: '/search/posts', query: { q: 'acme', page: '1', per_page: '100' }, body: undefined });
			const posts = outputOf(run);
			expect(posts.length).toBeGreaterThan(100);
			expect(pages).toHaveLength(Math.min(3, Math.ceil(posts.length / 100)));
			expect(new Set(posts.map((p) => p.feed_id)).size).toBeGreaterThan(1);
			expect(new Set(posts.map((p) => `${String(p.feed_id)}:${String(p.id)}`)).size).toBe(posts.length);
		});
	});

	describe('Analytics', () => {
		test('Get sends the picked dates as YYYY-MM-DD', async () => {
			const run = await runNode(fake, {
				resource: 'analytics',
				operation: 'get',
				feedId: feed(F.brandMentions),
				startDate: '2025-05-01T00:00:00',
				endDate: '2025-05-31T00:00:00',
			});
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: `/feeds/${F.brandMentions}/analytics`, query: { start: '2025-05-01', end: '2025-05-31' }, body: undefined },
			]);
			const [analytics] = outputOf(run);
			expect(analytics.period).toEqual({ start: '2025-05-01', end: '2025-05-31' });
			expect(analytics.summary).toEqual(expect.objectContaining({ total_posts: expect.any(Number), page_views: expect.any(Number) }));
			expect(analytics.top_posts).toEqual(expect.any(Array));
		});

		test('Get without dates sends the last 30 days, today included, in the workflow time zone', async () => {
			const timezone = 'Pacific/Kiritimati';
			const today = new Intl.DateTimeFormat('en-CA', { timeZone: timezone }).format(new Date());
			const start = new Date(Date.parse(`${today}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10);
			const run = await runNode(fake, { resource: 'analytics', operation: 'get', feedId: feed(F.brandMentions) }, { timezone });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: `/feeds/${F.brandMentions}/analytics`, query: { start, end: today }, body: undefined },
			]);
			expect(outputOf(run)[0].period).toEqual({ start, end: today });
		});
	});

	describe('User', () => {
		test('Invite posts email, role, feeds and the email switch', async () => {
			const run = await runNode(fake, {
				resource: 'user',
				operation: 'invite',
				email: 'new.person@acme.example',
				role: 'collaborator',
				feedIds: [String(F.brandMentions), String(F.productLaunch)],
				skipInvitationEmail: true,
			});
			expect(run.requests.map(sent)).toEqual([
				{
					method: 'POST',
					path: '/users',
					query: {},
					body: {
						email: 'new.person@acme.example',
						role: 'collaborator',
						feed_ids: [F.brandMentions, F.productLaunch],
						skip_invitation_email: true,
					},
				},
			]);
			// The live invite answer has no role; the node outputs the answer as it came.
			expect(outputOf(run)).toEqual([
				expect.objectContaining({
					email: 'new.person@acme.example',
					...(live ? {} : { role: 'collaborator' }),
					feed_ids: [F.brandMentions, F.productLaunch],
					invitation_pending: true,
				}),
			]);
			expect(fake.control.emails().filter((e) => e.to === 'new.person@acme.example')).toEqual([]);
		});

		test('Delete removes the user', async () => {
			const id = SEEDED.users.acmeCollaboratorNoFeeds;
			const run = await runNode(fake, { resource: 'user', operation: 'delete', userId: String(id) });
			expect(run.requests.map(sent)).toEqual([{ method: 'DELETE', path: `/users/${id}`, query: {}, body: undefined }]);
			expect(outputOf(run)).toEqual([{ deleted: true, id }]);
			expect(fake.control.users(SEEDED.accounts.acme).map((u) => u.id)).not.toContain(id);
		});

		test('Create Sign-In Token, for a feed or for the dashboard', async () => {
			const id = SEEDED.users.acmeCollaborator;
			const forFeed = await runNode(fake, {
				resource: 'user',
				operation: 'createSignInToken',
				userId: String(id),
				options: { feedId: String(F.brandMentions) },
			});
			expect(forFeed.requests.map(sent)).toEqual([
				{ method: 'POST', path: `/users/${id}/sign_in_token`, query: {}, body: { feed_id: F.brandMentions } },
			]);
			const [token] = outputOf(forFeed);
			expect(token).toEqual({ sign_in_token: expect.any(String), sign_in_url: expect.any(String), expires_at: expect.any(String) });
			expect(fake.control.consumeSignInToken(String(token.sign_in_url))).toEqual({ userId: id, feedId: F.brandMentions });

			const dashboard = await runNode(fake, { resource: 'user', operation: 'createSignInToken', userId: String(id) });
			expect(dashboard.requests.map(sent)).toEqual([
				{ method: 'POST', path: `/users/${id}/sign_in_token`, query: {}, body: undefined },
			]);
			expect(outputOf(dashboard)[0].sign_in_url).toEqual(expect.any(String));
		});

		test('Assign Feed puts the feed on the user', async () => {
			const id = SEEDED.users.acmeCollaboratorNoFeeds;
			const run = await runNode(fake, { resource: 'user', operation: 'assignFeed', userId: String(id), feedId: feed(F.productLaunch) });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'PUT', path: `/users/${id}/feeds/${F.productLaunch}`, query: {}, body: undefined },
			]);
			expect(outputOf(run)).toEqual([expect.objectContaining({ id, feed_ids: [F.productLaunch] })]);
		});
	});

	describe('Social Account', () => {
		test('Get Connection Status outputs one item per platform that needs a connection', async () => {
			const run = await runNode(fake, { resource: 'socialAccount', operation: 'getConnectionStatus' });
			expect(run.requests.map(sent)).toEqual([{ method: 'GET', path: '/social_accounts/status', query: {}, body: undefined }]);
			const statuses = outputOf(run);
			expect(statuses).toEqual(
				expect.arrayContaining([
					{ platform: 'Facebook', provider: 'facebook', connected: true, allows_multiple: true },
					expect.objectContaining({ provider: 'linkedin', connected: false }),
				]),
			);
		});

		test('Get Many pages the connected accounts', async () => {
			const run = await runNode(fake, { resource: 'socialAccount', operation: 'getAll', returnAll: true });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: '/social_accounts', query: { page: '1', per_page: '100' }, body: undefined },
			]);
			expect(outputOf(run).map((a) => a.id)).toEqual([SEEDED.socialAccounts.acmeFacebook, SEEDED.socialAccounts.acmeInstagram]);
		});

		test('Create Connection Link posts the provider and outputs the link', async () => {
			const run = await runNode(fake, { resource: 'socialAccount', operation: 'createConnectionLink', provider: 'linkedin' });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'POST', path: '/social_accounts/connect_url', query: {}, body: { provider: 'linkedin' } },
			]);
			const [link] = outputOf(run);
			expect(link).toEqual({ url: expect.any(String), provider: 'linkedin', expires_at: expect.any(String) });
			expect(fake.control.openConnectionLink(String(link.url))).toMatchObject({ provider: 'linkedin' });
		});

		test('Disconnect deletes the social account', async () => {
			const id = SEEDED.socialAccounts.acmeInstagram;
			const run = await runNode(fake, { resource: 'socialAccount', operation: 'disconnect', socialAccountId: String(id) });
			expect(run.requests.map(sent)).toEqual([{ method: 'DELETE', path: `/social_accounts/${id}`, query: {}, body: undefined }]);
			expect(outputOf(run)).toEqual([{ deleted: true, id }]);
			expect(fake.control.socialAccounts(SEEDED.accounts.acme).map((a) => a.id)).toEqual([SEEDED.socialAccounts.acmeFacebook]);
		});
	});

	describe('Webhook', () => {
		test('Create posts the URL and the chosen and typed events, and outputs the secret once', async () => {
			const run = await runNode(fake, {
				resource: 'webhook',
				operation: 'create',
				url: 'https://hooks.example.com/n8n',
				events: ['post.created'],
				options: { otherEvents: 'social_account.expired, post.created' },
			});
			expect(run.requests.map(sent)).toEqual([
				{
					method: 'POST',
					path: '/webhooks',
					query: {},
					body: { url: 'https://hooks.example.com/n8n', subscribed_events: ['post.created', 'social_account.expired'] },
				},
			]);
			const [webhook] = outputOf(run);
			expect(webhook).toMatchObject({
				url: 'https://hooks.example.com/n8n',
				subscribed_events: ['post.created', 'social_account.expired'],
				status: 'active',
			});
			expect(webhook.secret).toBe(fake.control.webhooks.secret(Number(webhook.id)));
		});

		test(`Get outputs the subscription${live ? ', found in GET /webhooks when GET /webhooks/{id} answers 404' : ''}`, async () => {
			const run = await runNode(fake, { resource: 'webhook', operation: 'get', webhookId: String(SEEDED.webhooks.acmePaused) });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: `/webhooks/${SEEDED.webhooks.acmePaused}`, query: {}, body: undefined },
				...(live ? [{ method: 'GET', path: '/webhooks', query: { page: '1', per_page: '100' }, body: undefined }] : []),
			]);
			const [webhook] = outputOf(run);
			expect(webhook).toMatchObject({ id: SEEDED.webhooks.acmePaused, status: 'paused' });
			expect(webhook).not.toHaveProperty('secret');
		});

		test('Get of a subscription that does not exist is the 404 error, with Continue On Fail an error item', async () => {
			const run = await runNode(fake, { resource: 'webhook', operation: 'get', webhookId: '999' }, { onError: 'continueRegularOutput' });
			// A 404 cannot tell a missing route from a missing subscription: the list is asked in both shapes.
			expect(run.requests.map((r) => [r.path, r.status])).toEqual([
				['/webhooks/999', 404],
				['/webhooks', 200],
			]);
			expect(run.items).toHaveLength(1);
			expect(run.items[0].json).toMatchObject({
				// The live 404 has no error object to read a message from.
				error: live ? 'The service answered HTTP 404 to GET /webhooks/999' : 'Webhook not found',
				details: { httpCode: '404', ...(live ? {} : { code: 'not_found' }) },
			});
		});

		test('Get Many pages the subscriptions', async () => {
			const run = await runNode(fake, { resource: 'webhook', operation: 'getAll', limit: 1 });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'GET', path: '/webhooks', query: { page: '1', per_page: '1' }, body: undefined },
			]);
			expect(outputOf(run).map((w) => w.id)).toEqual([SEEDED.webhooks.acmeActive]);
		});

		test('Update patches status, URL and events', async () => {
			const run = await runNode(fake, {
				resource: 'webhook',
				operation: 'update',
				webhookId: String(SEEDED.webhooks.acmePaused),
				updateFields: { status: 'active', url: 'https://hooks.example.com/new', events: ['post.created'] },
			});
			expect(run.requests.map(sent)).toEqual([
				{
					method: 'PATCH',
					path: `/webhooks/${SEEDED.webhooks.acmePaused}`,
					query: {},
					body: { status: 'active', url: 'https://hooks.example.com/new', subscribed_events: ['post.created'] },
				},
			]);
			expect(outputOf(run)).toEqual([
				expect.objectContaining({ status: 'active', url: 'https://hooks.example.com/new', subscribed_events: ['post.created'] }),
			]);
		});

		test('Delete removes the subscription', async () => {
			const id = SEEDED.webhooks.acmeActive;
			const run = await runNode(fake, { resource: 'webhook', operation: 'delete', webhookId: String(id) });
			expect(run.requests.map(sent)).toEqual([{ method: 'DELETE', path: `/webhooks/${id}`, query: {}, body: undefined }]);
			expect(outputOf(run)).toEqual([{ deleted: true, id }]);
		});

		test('Re-Enable sets a disabled subscription active again, without its secret', async () => {
			const id = SEEDED.webhooks.acmeActive;
			fake.control.webhooks.setStatus(id, 'disabled');
			const run = await runNode(fake, { resource: 'webhook', operation: 'reEnable', webhookId: String(id), catchUp: false });
			expect(run.requests.map(sent)).toEqual([{ method: 'PATCH', path: `/webhooks/${id}`, query: {}, body: { status: 'active' } }]);
			expect(outputOf(run)).toEqual([expect.objectContaining({ id, status: 'active' })]);
			expect(outputOf(run)[0]).not.toHaveProperty('secret');
		});

		test('Re-Enable with Catch Up (the default) then asks for the test delivery a trigger catches up on', async () => {
			const id = SEEDED.webhooks.acmeActive;
			fake.control.webhooks.setStatus(id, 'disabled');
			const run = await runNode(fake, { resource: 'webhook', operation: 'reEnable', webhookId: String(id) });
			expect(run.requests.map(sent)).toEqual([
				{ method: 'PATCH', path: `/webhooks/${id}`, query: {}, body: { status: 'active' } },
				{ method: 'POST', path: `/webhooks/${id}/test`, query: {}, body: undefined },
			]);
			expect(outputOf(run)).toEqual([expect.objectContaining({ id, status: 'active', catchUpRequested: true })]);
			expect(fake.control.webhooks.deliveries({ webhookId: id }).map((d) => JSON.parse(d.body).data.test)).toEqual([true]);

			// The subscription is active whatever the test request meets: its failure is told, not thrown.
			fake.control.webhooks.setStatus(id, 'disabled');
			fake.control.faults.add({ kind: 'error', method: 'POST', path: `/webhooks/${id}/test`, status: 422 });
			const refused = await runNode(fake, { resource: 'webhook', operation: 'reEnable', webhookId: String(id) });
			expect(outputOf(refused)).toEqual([expect.objectContaining({ id, status: 'active', catchUpRequested: false, catchUpError: expect.any(String) })]);
		});

		test('Send Test starts a delivery, for the first event or the one chosen', async () => {
			const id = SEEDED.webhooks.acmePaused;
			const first = await runNode(fake, { resource: 'webhook', operation: 'sendTest', webhookId: String(id) });
			expect(first.requests.map(sent)).toEqual([{ method: 'POST', path: `/webhooks/${id}/test`, query: {}, body: undefined }]);
			expect(first.requests[0].status).toBe(202);
			expect(outputOf(first)).toEqual([{ delivery_id: expect.any(String), event: 'post.created' }]);

			const chosen = await runNode(fake, {
				resource: 'webhook',
				operation: 'sendTest',
				webhookId: String(id),
				testOptions: { event: 'social_account.expired' },
			});
			expect(chosen.requests.map((r) => r.body)).toEqual([{ event: 'social_account.expired' }]);
			expect(outputOf(chosen)[0].event).toBe('social_account.expired');
			expect(fake.control.webhooks.deliveries({ webhookId: id }).map((d) => d.event)).toEqual([
				'post.created',
				'social_account.expired',
			]);
		});
	});
});
