/**
 * Every node's resources in a real n8n: workflows that chain at least one operation of every
 * resource of the Social Aggregator node (Account, Platform, Feed, Source, Post, Analytics,
 * User, Social Account, Webhook) and of the Social Aggregator Data node (Post search, Profile
 * look-up, API key request, status and approval), imported with one `n8n import:workflow` and
 * run with one `n8n execute-batch` against the fake service. The outputs are asserted, and
 * so is what the service was left with. The triggers have their own files (trigger, poll).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { KEY_PREFIX, PLATFORM_CATALOG, SEEDED, type FakeService } from '../fake-service';
import { e2eSuite, node, recordTiming, workflow, type BatchRun, type NodeInput, type WorkflowSpec } from './lib';

const F = SEEDED.feeds;

/** A feed resource locator, by ID (an expression or a number). */
const feedById = (value: string | number) => ({ __rl: true, mode: 'id', value: String(value) });
const once = { executeOnce: true };
const sa = (name: string, parameters: Record<string, unknown>, extra: Partial<NodeInput> = {}) =>
	node('socialAggregator', parameters as NodeInput['parameters'], { name, ...extra });
const data = (name: string, parameters: Record<string, unknown>, extra: Partial<NodeInput> = {}) =>
	node('socialAggregatorData', parameters as NodeInput['parameters'], { name, ...extra });

const NEW_COLLABORATOR = 'e2e.collaborator@acme.example';

/** Posts of the seeded feed picked for Post › Download Media: one with an image, one with a video, one whose image is broken. */
interface MediaPosts {
	image: { id: number; url: string };
	video: { id: number; url: string };
	broken: { id: number; url: string };
}

/** The stand-in serves media from http://127.0.0.1: a private host, which Download Media refuses unless allowed. */
const fromStandIn = { allowPrivateNetwork: true };

/** Download Media, then the file's bytes as base64 in `json.data` (Extract From File, keeping the item's JSON and binary). */
const downloadAndRead = (label: string, postId: number, media: string, extra: Partial<NodeInput> = {}) => [
	sa(
		`Download ${label}`,
		{ resource: 'post', operation: 'downloadMedia', feedId: feedById(F.brandMentions), postId: String(postId), media, downloadOptions: fromStandIn },
		extra,
	),
	node(
		'n8n-nodes-base.extractFromFile',
		{ operation: 'binaryToPropery', binaryPropertyName: 'data', destinationKey: 'data', options: { keepSource: 'both' } },
		{ name: `Read ${label}`, typeVersion: 1.1 },
	),
];
const WEBHOOK_URL = 'https://hooks.acme.example/e2e';

function workflows(fakeUrl: string, media: MediaPosts): WorkflowSpec[] {
	return [
		workflow('Account and platforms', [
			sa('Account', { resource: 'account', operation: 'get' }),
			sa('Platforms', { resource: 'platform', operation: 'getAll', returnAll: true }),
		]),
		workflow('Feed and source lifecycle', [
			sa('Create Feed', { resource: 'feed', operation: 'create', name: 'E2E feed', additionalFields: { syncInterval: 30 } }),
			sa('Get Feed', { resource: 'feed', operation: 'get', feedId: feedById("={{ $('Create Feed').item.json.id }}") }),
			sa('Rename Feed', {
				resource: 'feed',
				operation: 'update',
				feedId: feedById("={{ $('Create Feed').item.json.id }}"),
				updateFields: { name: 'E2E feed (renamed)' },
			}),
			sa('Embed Code', { resource: 'feed', operation: 'getEmbedCode', feedId: feedById("={{ $('Create Feed').item.json.id }}") }),
			sa('Add Source', {
				resource: 'source',
				operation: 'create',
				feedId: feedById("={{ $('Create Feed').item.json.id }}"),
				platform: 'Bluesky',
				termType: 'username',
				term: 'e2e.bsky.social',
				options: { name: 'E2E on Bluesky' },
			}),
			sa('List Sources', { resource: 'source', operation: 'getAll', feedId: feedById("={{ $('Create Feed').item.json.id }}"), returnAll: true }),
			sa('Delete Source', {
				resource: 'source',
				operation: 'delete',
				feedId: feedById("={{ $('Create Feed').item.json.id }}"),
				sourceId: "={{ $('Add Source').item.json.id }}",
			}),
			sa('Delete Feed', { resource: 'feed', operation: 'delete', feedId: feedById("={{ $('Create Feed').item.json.id }}") }),
			sa('List Feeds', { resource: 'feed', operation: 'getAll', returnAll: true, options: { includeSources: true } }),
		]),
		workflow('Post moderation', [
			sa('Moderated Posts', {
				resource: 'post',
				operation: 'getAll',
				feedId: feedById(F.brandMentions),
				limit: 1,
				filters: { status: 'moderated' },
				simplify: false,
			}),
			...(['get', 'pin', 'unpin', 'reject', 'approve', 'delete'] as const).map((operation) =>
				sa(`Post ${operation}`, {
					resource: 'post',
					operation,
					feedId: feedById(F.brandMentions),
					postId: "={{ $('Moderated Posts').item.json.id }}",
				}),
			),
			sa('Restore Post', {
				resource: 'post',
				operation: 'approve',
				feedId: feedById(F.brandMentions),
				postId: "={{ $('Moderated Posts').item.json.id }}",
			}),
			sa('Search Posts', { resource: 'post', operation: 'search', query: 'acme', limit: 5 }),
		]),
		workflow('Analytics of May', [
			sa('Analytics', {
				resource: 'analytics',
				operation: 'get',
				feedId: feedById(F.brandMentions),
				startDate: '2025-05-01T00:00:00',
				endDate: '2025-05-31T00:00:00',
			}),
		]),
		workflow('Users', [
			sa('Invite', {
				resource: 'user',
				operation: 'invite',
				email: NEW_COLLABORATOR,
				role: 'collaborator',
				feedIds: [String(F.brandMentions)],
				skipInvitationEmail: true,
			}),
			sa('Assign Feed', { resource: 'user', operation: 'assignFeed', userId: "={{ $('Invite').item.json.id }}", feedId: feedById(F.productLaunch) }),
			sa('Sign-In Token', {
				resource: 'user',
				operation: 'createSignInToken',
				userId: String(SEEDED.users.acmeCollaborator),
				options: { feedId: String(F.brandMentions) },
			}),
			sa('Remove User', { resource: 'user', operation: 'delete', userId: "={{ $('Invite').item.json.id }}" }),
		]),
		workflow('Social accounts', [
			sa('Connection Status', { resource: 'socialAccount', operation: 'getConnectionStatus' }),
			sa('Connected Accounts', { resource: 'socialAccount', operation: 'getAll', returnAll: true }, once),
			sa('Connection Link', { resource: 'socialAccount', operation: 'createConnectionLink', provider: 'linkedin' }, once),
			sa('Disconnect', { resource: 'socialAccount', operation: 'disconnect', socialAccountId: String(SEEDED.socialAccounts.acmeInstagram) }, once),
		]),
		workflow('Webhook lifecycle', [
			sa('Create Webhook', { resource: 'webhook', operation: 'create', url: WEBHOOK_URL, events: ['post.created'] }),
			sa('Get Webhook', { resource: 'webhook', operation: 'get', webhookId: "={{ $('Create Webhook').item.json.id }}" }),
			sa('Pause Webhook', {
				resource: 'webhook',
				operation: 'update',
				webhookId: "={{ $('Create Webhook').item.json.id }}",
				updateFields: { status: 'paused' },
			}),
			sa('Send Test', {
				resource: 'webhook',
				operation: 'sendTest',
				webhookId: "={{ $('Create Webhook').item.json.id }}",
				testOptions: { event: 'post.created' },
			}),
			sa('List Webhooks', { resource: 'webhook', operation: 'getAll', returnAll: true }),
			sa('Delete Webhook', { resource: 'webhook', operation: 'delete', webhookId: "={{ $('Create Webhook').item.json.id }}" }, once),
		]),
		workflow('Data API search and profiles', [
			data('Search', { resource: 'post', operation: 'search', term: '#acme', platforms: ['Twitter', 'Instagram'], limit: 5, output: 'posts' }),
			data('Look Up', { resource: 'profile', operation: 'lookUp', term: 'nasa, esa', platforms: ['Twitter', 'YouTube'], layout: 'groups' }, once),
		]),
		workflow('API key for a new email', [
			data('Request Key', {
				resource: 'apiKey',
				operation: 'request',
				baseUrlSource: 'parameter',
				baseUrl: fakeUrl,
				email: 'e2e.newcomer@example.test',
				clientName: 'n8n e2e',
			}),
		]),
		workflow('API key approved by the owner', [
			data('Request Key', {
				resource: 'apiKey',
				operation: 'request',
				baseUrlSource: 'parameter',
				baseUrl: fakeUrl,
				email: SEEDED.emails.acmeOwner,
				clientName: 'n8n e2e',
			}),
			data('Status', {
				resource: 'apiKey',
				operation: 'getStatus',
				baseUrlSource: 'parameter',
				baseUrl: fakeUrl,
				requestId: "={{ $('Request Key').item.json.request_id }}",
			}),
			// the owner opens the authorization link and approves (the fake approves on GET)
			node(
				'n8n-nodes-base.httpRequest',
				{ method: 'GET', url: "={{ $('Request Key').item.json.authorization_url }}", options: { response: { response: { responseFormat: 'text' } } } },
				{ name: 'Owner Approves', typeVersion: 4.2 },
			),
			data('Wait for Approval', {
				resource: 'apiKey',
				operation: 'waitForApproval',
				baseUrlSource: 'parameter',
				baseUrl: fakeUrl,
				requestId: "={{ $('Request Key').item.json.request_id }}",
				pollInterval: 1,
				timeout: 30,
			}),
		]),
		workflow('Post image', downloadAndRead('Image', media.image.id, 'first')),
		workflow('Post video', downloadAndRead('Video', media.video.id, 'videos')),
		workflow('Post media, one broken, continued', [
			sa(
				'Download Broken',
				{
					resource: 'post',
					operation: 'downloadMedia',
					feedId: feedById(F.brandMentions),
					postId: String(media.broken.id),
					media: 'images',
					downloadOptions: fromStandIn,
				},
				{ onError: 'continueRegularOutput' },
			),
		]),
		workflow('A missing feed, continued', [
			sa('Missing Feed', { resource: 'feed', operation: 'get', feedId: feedById(424242) }, { onError: 'continueRegularOutput' }),
		]),
	].map((spec) => ({ ...spec, name: `E2E ${spec.name}` }));
}

describe('every resource of both action nodes in a real n8n (execute-batch)', () => {
	const ctx = e2eSuite();
	let batch: BatchRun;
	let media: MediaPosts;
	const run = (name: string) => batch.result(`E2E ${name}`);

	before(
		async () => {
			const fake = ctx.backend.fake!;
			assert.ok(fake, 'these tests need test/fake-service');
			media = await mediaPosts(fake);
			batch = await ctx.n8n.runBatch(workflows(ctx.backend.url, media));
			recordTiming(`n8n execute-batch of ${batch.entries.size} workflows (process wall time)`, batch.wallMs);
			recordTiming(`n8n execute-batch of ${batch.entries.size} workflows (sum of workflow run times)`, batch.runMs);
			const mediaRuns = ['Post image', 'Post video', 'Post media, one broken, continued'].map((name) => batch.result(`E2E ${name}`).runMs);
			recordTiming('the 3 Post › Download Media workflows (sum of their run times)', mediaRuns.reduce((a, b) => a + b, 0));
		},
		{ timeout: 300_000 },
	);

	it('ran every workflow to success, with pairedItem on every item of our nodes', () => {
		const failed = [...batch.entries.values()].filter((entry) => entry.status !== 'success');
		assert.deepEqual(failed.map((entry) => `${entry.name}: ${entry.status} ${entry.error ?? ''}`), []);
		for (const entry of batch.entries.values()) {
			const result = entry.result!;
			for (const nodeName of result.nodesRun) {
				if (nodeName === 'Start') continue;
				for (const item of result.outputItems(nodeName)) assert.notEqual(item.pairedItem, undefined, `${entry.name} / ${nodeName}: an item without pairedItem`);
			}
		}
	});

	it('Account Get and Platform Get Many', () => {
		const result = run('Account and platforms');
		assert.deepEqual(result.items('Account').map((a) => [a.id, a.name, a.plan, a.role]), [[SEEDED.accounts.acme, 'Acme Media', 'team', 'owner']]);
		const platforms = result.items('Platforms');
		assert.deepEqual(platforms.map((p) => p.platform), PLATFORM_CATALOG.map((p) => p.platform));
		const twitter = platforms.find((p) => p.platform === 'Twitter');
		assert.ok(Array.isArray(twitter?.term_types) && twitter.term_types.length > 0, JSON.stringify(twitter));
	});

	it('Feed Create, Get, Update, Get Embed Code, Delete, Get Many; Source Create, Get Many, Delete', () => {
		const result = run('Feed and source lifecycle');
		const [created] = result.items('Create Feed');
		assert.equal(created.name, 'E2E feed');
		assert.equal(created.sync_interval, 30);
		assert.equal(typeof created.id, 'number');
		assert.deepEqual(result.items('Get Feed').map((f) => [f.id, f.name]), [[created.id, 'E2E feed']]);
		assert.deepEqual(result.items('Rename Feed').map((f) => [f.id, f.name]), [[created.id, 'E2E feed (renamed)']]);
		const [embed] = result.items('Embed Code');
		assert.match(String(embed.javascript), /<script/);
		assert.match(String(embed.iframe), /<iframe/);
		const [source] = result.items('Add Source');
		assert.deepEqual([source.platform, source.term_type, source.term, source.name], ['Bluesky', 'username', 'e2e.bsky.social', 'E2E on Bluesky']);
		assert.deepEqual(result.items('List Sources').map((s) => s.id), [source.id]);
		assert.deepEqual(result.items('Delete Source'), [{ deleted: true, id: source.id }]);
		assert.deepEqual(result.items('Delete Feed'), [{ deleted: true, id: created.id }]);
		const feeds = result.items('List Feeds');
		assert.deepEqual(feeds.map((f) => f.id), [F.brandMentions, F.productLaunch, F.reviews]);
		assert.equal((feeds[0].sources as unknown[]).length, 5);
		assert.equal(ctx.backend.fake!.control.requests.list({ method: 'GET', path: `/feeds/${String(created.id)}` }).length, 1);
	});

	it('Post Get Many (filtered), Get, Pin, Unpin, Reject, Approve, Delete, Search Across Feeds', () => {
		const result = run('Post moderation');
		const [post] = result.items('Moderated Posts');
		assert.equal(post.moderation_status, 'moderated');
		assert.equal(post.feed_id, F.brandMentions);
		const state = (node: string) => result.items(node).map((p) => [p.id, p.moderation_status, p.pinned]);
		assert.deepEqual(state('Post get'), [[post.id, 'moderated', post.pinned]]);
		assert.deepEqual(state('Post pin'), [[post.id, 'moderated', true]]);
		assert.deepEqual(state('Post unpin'), [[post.id, 'moderated', false]]);
		assert.deepEqual(state('Post reject'), [[post.id, 'rejected', false]]);
		assert.deepEqual(state('Post approve'), [[post.id, 'public', false]]);
		assert.deepEqual(result.items('Post delete'), [{ deleted: true, id: post.id }]);
		assert.deepEqual(state('Restore Post'), [[post.id, 'public', false]]);
		assert.deepEqual(pick(ctx.backend.fake!.control.getPost(Number(post.id)), ['deleted', 'moderation_status']), {
			deleted: false,
			moderation_status: 'public',
		});
		const found = result.items('Search Posts');
		assert.equal(found.length, 5);
		for (const hit of found) assert.equal(typeof hit.feed_id, 'number');
	});

	it('Analytics Get for a date range', () => {
		const [analytics] = run('Analytics of May').items('Analytics');
		assert.deepEqual(analytics.period, { start: '2025-05-01', end: '2025-05-31' });
		const summary = analytics.summary as Record<string, unknown>;
		assert.equal(typeof summary.total_posts, 'number');
		assert.ok(Number(summary.total_posts) > 0);
		assert.equal(typeof summary.page_views, 'number');
		assert.ok(Array.isArray(analytics.top_posts));
	});

	it('User Invite, Assign Feed, Create Sign-In Token, Delete', () => {
		const result = run('Users');
		const [invited] = result.items('Invite');
		assert.equal(invited.email, NEW_COLLABORATOR);
		// The live invite answer carries no role; the node outputs it as answered (shapes.e2e.ts: SPEC.md's, with the role).
		assert.equal('role' in invited, false);
		assert.deepEqual(invited.feed_ids, [F.brandMentions]);
		const [assigned] = result.items('Assign Feed');
		assert.equal(assigned.id, invited.id);
		assert.deepEqual([...(assigned.feed_ids as number[])].sort(), [F.brandMentions, F.productLaunch]);
		const [token] = result.items('Sign-In Token');
		assert.deepEqual(Object.keys(token).sort(), ['expires_at', 'sign_in_token', 'sign_in_url']);
		assert.match(String(token.sign_in_url), /\/web\/sign_in\//);
		assert.deepEqual(result.items('Remove User'), [{ deleted: true, id: invited.id }]);
		const control = ctx.backend.fake!.control;
		assert.ok(!control.users(SEEDED.accounts.acme).some((user) => user.email === NEW_COLLABORATOR));
		assert.deepEqual(control.consumeSignInToken(String(token.sign_in_url)), { userId: SEEDED.users.acmeCollaborator, feedId: F.brandMentions });
	});

	it('Social Account Get Connection Status, Get Many, Create Connection Link, Disconnect', () => {
		const result = run('Social accounts');
		const statuses = result.items('Connection Status');
		assert.ok(statuses.some((s) => s.provider === 'facebook' && s.connected === true), JSON.stringify(statuses));
		assert.ok(statuses.some((s) => s.provider === 'linkedin' && s.connected === false), JSON.stringify(statuses));
		assert.deepEqual(result.items('Connected Accounts').map((a) => a.id), [SEEDED.socialAccounts.acmeFacebook, SEEDED.socialAccounts.acmeInstagram]);
		const [link] = result.items('Connection Link');
		assert.equal(link.provider, 'linkedin');
		assert.match(String(link.url), /\/web\/connect\//);
		assert.deepEqual(result.items('Disconnect'), [{ deleted: true, id: SEEDED.socialAccounts.acmeInstagram }]);
		assert.deepEqual(ctx.backend.fake!.control.socialAccounts(SEEDED.accounts.acme).map((a) => a.id), [SEEDED.socialAccounts.acmeFacebook]);
	});

	it('Webhook Create (with its secret), Get (without), Update, Send Test, Get Many, Delete', () => {
		const result = run('Webhook lifecycle');
		const [created] = result.items('Create Webhook');
		assert.equal(created.url, WEBHOOK_URL);
		assert.deepEqual(created.subscribed_events, ['post.created']);
		assert.equal(typeof created.secret, 'string');
		assert.ok(String(created.secret).length >= 16);
		for (const nodeName of result.nodesRun.filter((name) => name !== 'Create Webhook')) {
			assert.ok(!JSON.stringify(result.items(nodeName)).includes(String(created.secret)), `${nodeName} output the signing secret`);
		}
		const [got] = result.items('Get Webhook');
		assert.equal(got.id, created.id);
		assert.equal('secret' in got, false, 'Get must not output the secret');
		assert.equal(result.items('Pause Webhook')[0].status, 'paused');
		const [test] = result.items('Send Test');
		assert.equal(test.event, 'post.created');
		assert.equal(typeof test.delivery_id, 'string');
		const listed = result.items('List Webhooks');
		assert.ok(listed.some((w) => w.id === created.id && w.status === 'paused'));
		assert.ok(listed.every((w) => !('secret' in w)), 'Get Many must not output secrets');
		assert.deepEqual(result.items('Delete Webhook'), [{ deleted: true, id: created.id }]);
		const deliveries = ctx.backend.fake!.control.webhooks.deliveries({ webhookId: Number(created.id) });
		assert.deepEqual(deliveries.map((d) => d.id), [test.delivery_id]);
	});

	it('Data: Post Search per platform with a limit; Profile Look Up', () => {
		const result = run('Data API search and profiles');
		const posts = result.items('Search');
		const byPlatform = (platform: string) => posts.filter((p) => p.platform === platform);
		assert.equal(byPlatform('Twitter').length, 5);
		assert.equal(byPlatform('Instagram').length, 5);
		assert.equal(posts.length, 10);
		for (const post of posts) assert.equal(typeof post.platform_id, 'string');
		assert.equal(new Set(posts.map((p) => `${String(p.platform)}:${String(p.platform_id)}`)).size, 10);
		const profiles = result.items('Look Up');
		assert.deepEqual(profiles.map((p) => `${String(p.platform)}:${String(p.term)}`).sort(), ['Twitter:esa', 'Twitter:nasa', 'YouTube:esa', 'YouTube:nasa']);
		// one request per page round: the limit of 5 fits in the first page of both platforms
		assert.equal(ctx.backend.fake!.control.requests.list({ path: '/data/posts' }).length, 1);
	});

	it('Data: API Key Request for a new email issues a key at once', () => {
		const [issued] = run('API key for a new email').items('Request Key');
		assert.equal(issued.status, 'issued');
		assert.equal(issued.mode, 'immediate');
		assert.ok(String(issued.api_key).startsWith(KEY_PREFIX));
	});

	it('Data: API Key Request for a confirmed account, Get Authorization Status, Wait for Approval', () => {
		const result = run('API key approved by the owner');
		const [requested] = result.items('Request Key');
		assert.equal(requested.status, 'pending_authorization');
		assert.equal(requested.mode, 'approval');
		assert.equal('api_key' in requested, false);
		assert.deepEqual(result.items('Status').map((s) => [s.status, s.request_id]), [['pending', requested.request_id]]);
		const [approved] = result.items('Wait for Approval');
		assert.equal(approved.status, 'issued');
		assert.equal(approved.request_id, requested.request_id);
		assert.ok(String(approved.api_key).startsWith(KEY_PREFIX));
	});

	it('Post Download Media: the bytes the stand-in serves for an image and a video, named and typed; a broken URL an error item with Continue On Fail', () => {
		const control = ctx.backend.fake!.control;
		for (const [label, chosen, mimeType] of [
			['Image', media.image, 'image/jpeg'],
			['Video', media.video, 'video/mp4'],
		] as const) {
			const result = run(`Post ${label.toLowerCase()}`);
			const [downloaded] = result.outputItems(`Download ${label}`);
			assert.equal(result.outputItems(`Download ${label}`).length, 1);
			assert.equal(downloaded.json.id, chosen.id);
			assert.equal((downloaded.json.medium as Record<string, unknown>).url, chosen.url);
			assert.equal(downloaded.binary?.data.mimeType, mimeType);
			assert.equal(downloaded.binary?.data.fileName, chosen.url.split('/').pop());
			const [read] = result.items(`Read ${label}`);
			const bytes = Buffer.from(String(read.data), 'base64');
			const served = control.media.file(chosen.url).bytes;
			assert.ok(served.length > 1000);
			assert.ok(bytes.equals(served), `${label}: ${bytes.length} bytes read back, ${served.length} served`);
		}
		const items = run('Post media, one broken, continued').outputItems('Download Broken');
		assert.equal(
			items[0].json.error,
			`Could not download image 1 of post ${media.broken.id} from ${media.broken.url}: the media host answered 404`,
		);
		assert.deepEqual(items[0].pairedItem, { item: 0 });
		assert.equal(items[0].binary, undefined);
		for (const item of items.slice(1)) assert.equal(item.binary?.data.mimeType, 'image/jpeg');
		const requests = control.media.requests();
		assert.ok(requests.length >= 3, JSON.stringify(requests));
		assert.ok(requests.every((request) => !request.carriedApiKey && !request.headers.includes('authorization')), 'a media request carried the API key');
	});

	it('an error of the service becomes the error item of a node that continues', () => {
		const [item] = run('A missing feed, continued').items('Missing Feed');
		assert.equal(typeof item.error, 'string', JSON.stringify(item));
		assert.match(String(item.error), /not found/i);
	});
});

/** With media served on loopback: a post with an image, one with a video, one with images whose first is made to 404. */
async function mediaPosts(fake: FakeService): Promise<MediaPosts> {
	fake.control.media.serve(true);
	const answer = await fetch(`${fake.url}/feeds/${F.brandMentions}/posts?per_page=100`, { headers: { Authorization: `Bearer ${fake.control.keys.owner}` } });
	const posts = ((await answer.json()) as { data: Array<{ id: number; media: Array<{ type: string; url: string }> }> }).data;
	const first = (type: string, skip: number[] = []) => {
		const post = posts.find((p) => !skip.includes(p.id) && p.media[0]?.type === type);
		assert.ok(post, `the seeded feed has no post with a ${type}`);
		return { id: post.id, url: post.media[0].url };
	};
	const image = first('image');
	const broken = first('image', [image.id]);
	fake.control.media.set(broken.url, { status: 404 });
	return { image, video: first('video'), broken };
}

/** The named fields of an object (assert.deepEqual on them shows a readable diff). */
function pick(actual: unknown, keys: string[]): Record<string, unknown> {
	const source = (actual ?? {}) as Record<string, unknown>;
	return Object.fromEntries(keys.map((key) => [key, source[key]]));
}
