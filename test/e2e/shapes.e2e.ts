/**
 * The service answering in SPEC.md's shapes (the fake's `spec` shape; every other e2e file runs in
 * the default `live` one, test/fake-service/README.md, Shapes), in a real n8n: one workflow runs a
 * representative operation of every resource of both action nodes, one of them where the shapes
 * differ most (Webhook › Get, Platform › Get Many, User › Invite, Data posts and profiles, an error
 * item), and the Social Aggregator Trigger, published before `n8n start`, takes a feed sync's
 * delivery signed in `X-Service-Signature` and runs once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SEEDED } from '../fake-service';
import { e2eSuite, node, pinNewPosts, recordTiming, webhookPath, workflow, type NodeInput } from './lib';

const F = SEEDED.feeds;
const feedById = (value: string | number) => ({ __rl: true, mode: 'id', value: String(value) });
const once = { executeOnce: true };
const sa = (name: string, parameters: Record<string, unknown>, extra: Partial<NodeInput> = {}) =>
	node('socialAggregator', parameters as NodeInput['parameters'], { name, ...once, ...extra });
const data = (name: string, parameters: Record<string, unknown>, extra: Partial<NodeInput> = {}) =>
	node('socialAggregatorData', parameters as NodeInput['parameters'], { name, ...once, ...extra });

const trigger = pinNewPosts('E2E post.created in the spec shape');

/** A representative operation of every resource of both action nodes, each run once. */
function everyResource(baseUrl: string) {
	return workflow('E2E every resource in the spec shape', [
		sa('Account', { resource: 'account', operation: 'get' }),
		sa('Platforms', { resource: 'platform', operation: 'getAll', returnAll: true }),
		sa('Feed', { resource: 'feed', operation: 'get', feedId: feedById(F.brandMentions) }),
		sa('Sources', { resource: 'source', operation: 'getAll', feedId: feedById(F.brandMentions), returnAll: true }),
		sa('Posts', { resource: 'post', operation: 'getAll', feedId: feedById(F.brandMentions), limit: 3 }),
		sa('Analytics', { resource: 'analytics', operation: 'get', feedId: feedById(F.brandMentions) }),
		sa('Invite', {
			resource: 'user',
			operation: 'invite',
			email: 'e2e.spec@acme.example',
			role: 'collaborator',
			feedIds: [String(F.brandMentions)],
			skipInvitationEmail: true,
		}),
		sa('Connection Status', { resource: 'socialAccount', operation: 'getConnectionStatus' }),
		sa('Webhook', { resource: 'webhook', operation: 'get', webhookId: String(SEEDED.webhooks.acmePaused) }),
		sa('Missing Feed', { resource: 'feed', operation: 'get', feedId: feedById(424242) }, { onError: 'continueRegularOutput' }),
		data('Search', { resource: 'post', operation: 'search', term: '#acme', platforms: ['Twitter', 'Bluesky'], limit: 3, output: 'posts' }),
		data('Look Up', { resource: 'profile', operation: 'lookUp', term: 'nasa', platforms: ['Twitter'] }),
		data('Request Key', {
			resource: 'apiKey',
			operation: 'request',
			baseUrlSource: 'parameter',
			baseUrl,
			email: 'e2e.spec.newcomer@example.test',
			clientName: 'n8n e2e',
		}),
	]);
}


describe("both action nodes and the trigger against SPEC.md's shapes, in a real n8n", () => {
	let workflowId = '';
	let actionsId = '';
	const ctx = e2eSuite({
		start: true,
		backend: { shapes: 'spec' },
		beforeStart: async ({ n8n, backend }) => {
			// One import for both; the action nodes run through the started server (no process of their own).
			[workflowId, actionsId] = await n8n.importWorkflows([trigger, everyResource(backend.url)]);
			await n8n.publish(workflowId);
			return { webhooks: [webhookPath(trigger, 'On New Posts')], published: [workflowId] };
		},
	});

	it('runs an operation of every resource of both action nodes', async () => {
		const fake = ctx.backend.fake;
		assert.ok(fake, 'this test needs test/fake-service');
		assert.equal(fake.control.shapes(), 'spec');
		fake.control.requests.clear();
		const started = Date.now();
		const run = await ctx.n8n.runManually(actionsId);
		recordTiming('every resource of both action nodes in the spec shape (manual run, wall)', Date.now() - started);
		assert.equal(run.status, 'success');

		assert.equal(run.items('Account')[0].name, 'Acme Media');
		const facebook = run.items('Platforms').find((p) => p.platform === 'Facebook') as { term_types: Array<Record<string, unknown>> };
		assert.deepEqual(
			facebook.term_types.map((t) => [t.term_type, t.requires_connection === null ? null : (t.requires_connection as { provider: string }).provider]),
			[
				['username', null],
				['hashtag', null],
				['page', 'facebook'],
			],
		);
		assert.equal(run.items('Feed')[0].id, F.brandMentions);
		assert.ok(run.items('Sources').length > 0);
		assert.equal(run.items('Posts').length, 3);
		assert.equal(typeof (run.items('Analytics')[0].summary as { total_posts: number }).total_posts, 'number');
		// SPEC.md's User carries the role.
		assert.deepEqual(
			run.items('Invite').map((u) => [u.email, u.role]),
			[['e2e.spec@acme.example', 'collaborator']],
		);
		assert.ok(run.items('Connection Status').length > 0);
		// GET /webhooks/{id} answers here: one request, no look in the list.
		assert.deepEqual(
			run.items('Webhook').map((w) => [w.id, w.status]),
			[[SEEDED.webhooks.acmePaused, 'paused']],
		);
		const webhookReads = fake.control.requests.list({ method: 'GET' }).filter((r) => r.path.startsWith('/webhooks'));
		assert.deepEqual(
			webhookReads.map((r) => [r.path, r.status]),
			[[`/webhooks/${SEEDED.webhooks.acmePaused}`, 200]],
		);
		// The envelope's details is an object here (null in the live shape): the error item reads the same.
		const [missing] = run.items('Missing Feed') as Array<{ error: string; details: { code: string; httpCode: string } }>;
		assert.equal(missing.details.code, 'not_found');
		assert.equal(missing.details.httpCode, '404');
		const posts = run.items('Search');
		assert.deepEqual([...new Set(posts.map((p) => p.platform))].sort(), ['Bluesky', 'Twitter']);
		assert.equal(posts.length, 6);
		// The flat profile of the spec shape, made one item per profile like the live groups.
		assert.deepEqual(
			run.items('Look Up').map((p) => [p.platform, p.term]),
			[['Twitter', 'nasa']],
		);
		assert.equal(run.items('Request Key')[0].status, 'issued');
	});

	it('the trigger verifies a delivery signed in X-Service-Signature and runs once', async () => {
		const fake = ctx.backend.fake!;
		const url = ctx.n8n.webhookUrl(webhookPath(trigger, 'On New Posts'));
		const sync = fake.control.syncFeed(F.brandMentions, { newPosts: 2, sourceId: SEEDED.sources.twitterAcme });
		await fake.control.webhooks.settle();
		const ours = fake.control.webhooks.deliveries({ event: 'post.created' }).filter((d) => d.url === url);
		assert.equal(ours.length, 1);
		assert.deepEqual(
			ours[0].attempts.map((attempt) => attempt.status),
			[200],
		);
		const executions = await ctx.n8n.waitForExecutions(workflowId, 1);
		assert.equal(executions[0].status, 'success');
		const items = (await ctx.n8n.execution(executions[0].id)).items('On New Posts');
		assert.deepEqual(
			items.map((item) => item.id),
			sync.posts.map((post) => post.id),
		);
		// A forged copy (another secret) is refused: the header read is the one that carries the signature.
		const forged = await fake.control.webhooks.deliver({ url, body: ours[0].body, secret: 'not the secret' });
		assert.equal(forged.status, 401);
		assert.equal((await ctx.n8n.executions(workflowId)).length, 1);
	});
});
