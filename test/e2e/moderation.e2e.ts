/**
 * Feed moderation in a real n8n: Feed › Create with every moderation setting, read back with
 * Feed › Get; Feed › Update changing each again, read back; what the service received (each
 * setting under its own name and type); and the 422 of a plan without AI moderation, on
 * Update and on Create (whose new feed is deleted again), with the plan and the upgrade link.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { SEEDED } from '../fake-service';
import { e2eSuite, node, workflow, type BatchRun, type NodeInput } from './lib';

const feedById = (value: string | number) => ({ __rl: true, mode: 'id', value: String(value) });
const sa = (name: string, parameters: Record<string, unknown>, extra: Partial<NodeInput> = {}) =>
	node('socialAggregator', parameters as NodeInput['parameters'], { name, ...extra });
const created = "={{ $('Create Feed').item.json.id }}";

const ON_CREATE = {
	queue: true,
	allowedWords: 'acme, launch',
	blockedWords: 'spam, giveaway',
	profanityFilter: true,
	preventDuplicates: true,
	deduplicationStrategy: 'distribute_across_sources',
	aiModeration: true,
	aiHarmfulContentFilter: true,
	aiModerationRules: 'Hide posts that mention competitors.',
	aiSentimentFilter: ['negative'],
};
const ON_UPDATE = {
	queue: false,
	allowedWords: '',
	blockedWords: 'scam',
	profanityFilter: false,
	preventDuplicates: false,
	deduplicationStrategy: 'prioritize_top_source',
	aiModeration: false,
	aiHarmfulContentFilter: false,
	aiModerationRules: 'Keep product reviews.',
	aiSentimentFilter: ['neutral', 'positive'],
};
const SENT_ON_CREATE = {
	queue: true,
	allowed: 'acme,launch',
	disallowed: 'spam,giveaway',
	profanity: true,
	prevent_duplicates: true,
	deduplication_strategy: 'distribute_across_sources',
	ai_moderation: true,
	ai_harmful_content_filter: true,
	ai_moderation_rules: 'Hide posts that mention competitors.',
	ai_sentiment_filter: ['negative'],
};
const SENT_ON_UPDATE = {
	queue: false,
	allowed: '',
	disallowed: 'scam',
	profanity: false,
	prevent_duplicates: false,
	deduplication_strategy: 'prioritize_top_source',
	ai_moderation: false,
	ai_harmful_content_filter: false,
	ai_moderation_rules: 'Keep product reviews.',
	ai_sentiment_filter: ['neutral', 'positive'],
};
/** The record's names for the body's (`queue` → `enabled`, `profanity` → `profanity_filter`). */
function asAnswered(sent: Record<string, unknown>): Record<string, unknown> {
	const { queue, profanity, ...rest } = sent;
	return { enabled: queue, profanity_filter: profanity, ai_moderation_available: true, ...rest };
}

describe('feed moderation in a real n8n (execute-batch)', () => {
	const ctx = e2eSuite();
	let batch: BatchRun;

	before(
		async () => {
			const key = ctx.backend.fake!.control.keys.proOwner;
			const pro = await ctx.n8n.importCredential({ name: 'Pro plan', data: { apiKey: key, baseUrl: ctx.backend.url } });
			const asPro = { credentials: { socialAggregatorApi: { id: pro.id, name: pro.name } } };
			const continues = { onError: 'continueRegularOutput' } as Partial<NodeInput>;
			batch = await ctx.n8n.runBatch([
				workflow('Moderation settings', [
					sa('Create Feed', { resource: 'feed', operation: 'create', name: 'Moderated wall', additionalFields: ON_CREATE }),
					sa('Get Created', { resource: 'feed', operation: 'get', feedId: feedById(created) }),
					sa('Update Feed', { resource: 'feed', operation: 'update', feedId: feedById(created), updateFields: ON_UPDATE }),
					sa('Get Updated', { resource: 'feed', operation: 'get', feedId: feedById(created) }),
				]),
				workflow('AI moderation without the plan', [
					sa(
						'Update Pro Feed',
						{ resource: 'feed', operation: 'update', feedId: feedById(SEEDED.feeds.busy), updateFields: { aiModeration: true } },
						{ ...asPro, ...continues },
					),
					sa(
						'Create Pro Feed',
						{ resource: 'feed', operation: 'create', name: 'AI wall', additionalFields: { aiModeration: true } },
						{ ...asPro, ...continues },
					),
				]),
			]);
		},
		{ timeout: 300_000 },
	);

	it('Create sends every setting under its service name and type in a PATCH of the new feed; Get reads each back', () => {
		const run = batch.result('Moderation settings');
		run.assertSuccess();
		const [feed] = run.items('Create Feed');
		const log = ctx.backend.fake!.control.requests.list({ path: `/feeds/${String(feed.id)}`, method: 'PATCH' });
		assert.deepEqual(log[0].body, SENT_ON_CREATE);
		const posts = ctx.backend.fake!.control.requests.list({ path: '/feeds', method: 'POST', keyId: 'key_acme-owner' });
		assert.deepEqual(posts.map((r) => r.body), [
			{ name: 'Moderated wall' },
		]);
		assert.deepEqual(run.items('Get Created')[0].moderation, asAnswered(SENT_ON_CREATE));
		assert.deepEqual(feed.moderation, asAnswered(SENT_ON_CREATE));
	});

	it('Update sends each setting again, changed; Get reads each back', () => {
		const run = batch.result('Moderation settings');
		const [feed] = run.items('Create Feed');
		const log = ctx.backend.fake!.control.requests.list({ path: `/feeds/${String(feed.id)}`, method: 'PATCH' });
		assert.equal(log.length, 2);
		assert.deepEqual(log[1].body, SENT_ON_UPDATE);
		assert.deepEqual(run.items('Get Updated')[0].moderation, asAnswered(SENT_ON_UPDATE));
	});

	it('AI moderation on a plan without it: an error naming the plan with the upgrade link; Create leaves no feed', () => {
		const run = batch.result('AI moderation without the plan');
		const link = /^Upgrade to the Team plan: http:\/\/127\.0\.0\.1:\d+\/web\/upgrade\?plan=team&token=\w+$/m;
		const [update] = run.items('Update Pro Feed');
		assert.equal(update.error, 'AI moderation is not available on your Pro plan. Upgrade to Team to turn it on.');
		const updateDetails = update.details as Record<string, unknown>;
		assert.equal(updateDetails.code, 'ai_moderation_not_available');
		assert.equal(updateDetails.httpCode, '422');
		assert.match(String(updateDetails.description), link);
		assert.match(String(updateDetails.link), /\/web\/upgrade\?plan=team&token=\w+$/);

		const [create] = run.items('Create Pro Feed');
		assert.match(String(create.error), /^The feed was not created, because setting its moderation failed: AI moderation is not available on your Pro plan/);
		assert.match(String((create.details as Record<string, unknown>).description), link);
		const control = ctx.backend.fake!.control;
		const proWrites = control.requests
			.list({ keyId: 'key_busy-owner' })
			.filter((r) => r.method !== 'GET')
			.map((r) => [r.method, r.path.replace(/\d+$/, 'N'), r.status]);
		assert.deepEqual(proWrites, [
			['PATCH', '/feeds/N', 422],
			['POST', '/feeds', 201],
			['PATCH', '/feeds/N', 422],
			['DELETE', '/feeds/N', 204],
		]);
		assert.equal(control.requests.list({ keyId: 'key_busy-owner', method: 'DELETE' })[0].path.endsWith(String(SEEDED.feeds.busy)), false);
	});
});
