/**
 * The pipeline itself: a real n8n with the packed package as a community package, the
 * credential known and working, a workflow executed with `n8n execute`, a published webhook
 * answering after `n8n start`, and the Social Aggregator nodes executing against the fake
 * service.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { e2eSuite, node, recordTiming, REPO_ROOT, PACKAGE_NAME, workflow, type WorkflowSpec } from './lib';

/** The node types the package registers: every node its package.json lists. */
function expectedNodeTypes(): string[] {
	const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { n8n: { nodes: string[] } };
	return pkg.n8n.nodes
		.map((entry) => path.basename(entry, '.node.js'))
		.map((className) => `${PACKAGE_NAME}.${className[0].toLowerCase()}${className.slice(1)}`);
}

const ping: WorkflowSpec = workflow(
	'E2E ping webhook',
	[],
	{
		first: {
			type: 'n8n-nodes-base.webhook',
			name: 'Webhook',
			typeVersion: 2,
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path: 'e2e-ping', responseMode: 'onReceived', options: {} },
		},
	},
);
let pingId = '';

describe('real n8n with the packed package', () => {
	const ctx = e2eSuite({
		start: true,
		ownServer: true,
		beforeStart: async ({ n8n }) => {
			pingId = await n8n.importWorkflow(ping);
			await n8n.publish(pingId);
			return { webhooks: ['e2e-ping'] };
		},
	});

	it('loads the package from nodes/node_modules as a community package', async () => {
		const load = ctx.n8n.packageLoad();
		assert.equal(load.loaded, true, load.error);
		const served = await ctx.n8n.packageNodeTypes();
		assert.equal(expectedNodeTypes().length, 5);
		for (const type of expectedNodeTypes()) assert.ok(served.includes(type), `${type} not served; n8n has ${served.join(', ')}`);
	});

	it('knows the credential type socialAggregatorApi', async () => {
		const types = await ctx.n8n.types('credentials');
		const credential = types.find((type) => type.name === 'socialAggregatorApi');
		assert.ok(credential, 'socialAggregatorApi is not among n8n credential types');
	});

	it("passes the credential's own test against the backend, and fails it with a wrong key", async () => {
		assert.deepEqual(await ctx.n8n.testCredential(ctx.credential), { status: 'OK', message: 'Connection successful!' });
		const wrong = await ctx.n8n.importCredential({
			name: 'wrong key',
			data: { apiKey: 'sag_live_not_a_key', baseUrl: ctx.backend.url },
		});
		const result = await ctx.n8n.testCredential(wrong);
		assert.equal(result.status, 'Error');
		// what the status means for the key, not n8n's bare "Unauthorized"
		assert.match(result.message, /^The service refused the API key \(HTTP 401 from GET \/account\)/);
		assert.doesNotMatch(result.message, /sag_live_not_a_key/);
		const badUrl = await ctx.n8n.importCredential({
			name: 'extra path',
			data: { apiKey: ctx.backend.apiKey, baseUrl: `${ctx.backend.url}/feeds` },
		});
		assert.match((await ctx.n8n.testCredential(badUrl)).message, /^The Base URL has no GET \/account \(HTTP 404\): .*ending in \/v1/);
	});

	it('executes a workflow that authenticates with the credential (n8n execute)', async () => {
		const run = await ctx.n8n.run(
			workflow('E2E account through the credential', [
				node(
					'n8n-nodes-base.httpRequest',
					{
						method: 'GET',
						url: `${ctx.backend.url}/account`,
						authentication: 'predefinedCredentialType',
						nodeCredentialType: 'socialAggregatorApi',
						options: {},
					},
					{
						name: 'Account',
						typeVersion: 4.2,
						credentials: { socialAggregatorApi: { id: ctx.credential.id, name: ctx.credential.name } },
					},
				),
			]),
		);
		run.assertSuccess();
		recordTiming('n8n execute (process wall time)', run.wallMs);
		recordTiming('n8n execute (workflow run time)', run.runMs);
		const [account] = run.items('Account');
		assert.ok((account.data as { id?: unknown } | undefined)?.id !== undefined, JSON.stringify(account));
		assert.ok(!run.output.includes(ctx.backend.apiKey), 'the API key appeared in the output');
	});

	it('runs a published webhook workflow on a request', async () => {
		const response = await fetch(ctx.n8n.webhookUrl('e2e-ping'), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ hello: 'e2e' }),
		});
		assert.equal(response.status, 200);
		const [summary] = await ctx.n8n.waitForExecutions(pingId, 1);
		assert.equal(summary.status, 'success');
		const execution = await ctx.n8n.execution(summary.id);
		assert.deepEqual(execution.items('Webhook')[0].body, { hello: 'e2e' });
	});

	it('executes the Social Aggregator node against the fake service', async () => {
		assert.equal(ctx.backend.kind, 'fake-service');
		const run = await ctx.n8n.run(
			workflow('E2E account and feeds', [
				node('socialAggregator', { resource: 'account', operation: 'get' }, { name: 'Account' }),
				node('socialAggregator', { resource: 'feed', operation: 'getAll', returnAll: true }, { name: 'Feeds' }),
			]),
		);
		run.assertSuccess();
		recordTiming('n8n execute with the Social Aggregator node (wall)', run.wallMs);
		recordTiming('n8n execute with the Social Aggregator node (workflow run)', run.runMs);
		const [account] = run.items('Account');
		assert.equal(typeof account.id, 'number', JSON.stringify(account));
		const feeds = run.items('Feeds');
		assert.ok(feeds.length > 1, `expected the seeded feeds, got ${feeds.length}`);
		assert.ok(run.outputItems('Feeds').every((item) => item.pairedItem !== undefined), 'an item without pairedItem');
		assert.ok(!run.output.includes(ctx.backend.apiKey), 'the API key appeared in the output');
	});

	it('executes the Social Aggregator Data node against the fake service', async () => {
		assert.equal(ctx.backend.kind, 'fake-service');
		const run = await ctx.n8n.run(
			workflow('E2E profile lookup', [
				node('socialAggregatorData', { resource: 'profile', operation: 'lookUp', term: 'nasa', platforms: ['twitter'] }, {
					name: 'Look Up',
				}),
			]),
		);
		run.assertSuccess();
		const profiles = run.items('Look Up');
		assert.ok(profiles.length > 0);
		assert.equal(String(profiles[0].platform).toLowerCase(), 'twitter');
	});
});
