/**
 * A burst in a real n8n: 5,000 validly signed deliveries, 8 at a time, to the Social Aggregator
 * Trigger (node version 2) and the same burst to n8n's plain Webhook node in the same n8n, in
 * blocks of 1,000 alternating side by side, each workflow ending in the same side effect (an HTTP
 * Request carrying the delivery id, counted at the service). The benchmark's burst driver
 * (`bench/burst.ts`) sends and times the blocks. What must hold, compared within the run:
 * every delivery acted on once; no execution still running 60 s after a block's last answer;
 * n8n's peak memory during the Trigger's blocks within 1.5x of the Webhook node's (after the first
 * round); the Trigger's last 1,000 processed at least 0.87x as fast as its first 1,000.
 *
 * n8n runs with settings that make every webhook cheaper, the same for both sides (README,
 * "Webhook performance"): successful executions not kept (`EXECUTIONS_DATA_SAVE_ON_SUCCESS=none`;
 * failed ones are), and isolates taken only for expressions (`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE`).
 * `E2E_BURST` and `E2E_BURST_BLOCK` shrink it for a quick look; the must-show is the default.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { actedOnCounts, plainMarked, sendBlock, type BurstBlock } from '../../bench/burst';
import { oursChecked, subscriptionSecret } from '../../bench/checked';
import { e2eSuite, recordTiming, webhookPath } from './lib';
import type { CredentialRef, WorkflowSpec } from './lib/workflow';

const BURST = Number(process.env.E2E_BURST ?? 5000);
const BLOCK = Number(process.env.E2E_BURST_BLOCK ?? 1000);
const CONCURRENCY = 8;
const PLAIN_PATH = 'e2e-burst-plain';

describe('a burst of signed deliveries in one n8n', () => {
	let bearer: CredentialRef;
	let ours: WorkflowSpec;
	let oursId = '';
	let plainId = '';
	const ctx = e2eSuite({
		start: true,
		backend: { limits: { enabled: false } },
		env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none', N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
		beforeStart: async ({ n8n, backend }) => {
			bearer = await n8n.importCredential({ name: 'Bearer (e2e)', type: 'httpBearerAuth', data: { token: backend.apiKey } });
			const refs = { bearer, baseUrl: backend.url };
			ours = oursChecked(refs, 'E2E burst, Social Aggregator Trigger', 2);
			oursId = await n8n.importWorkflow(ours);
			await n8n.publish(oursId);
			plainId = await n8n.importWorkflow(plainMarked(refs, PLAIN_PATH));
			await n8n.publish(plainId);
			return { webhooks: [webhookPath(ours, 'On New Posts'), PLAIN_PATH], published: [oursId, plainId] };
		},
	});

	it(`takes ${BURST} deliveries 8 at a time to the Trigger as the Webhook node takes them: each acted on once, none left running, memory and rate held`, { timeout: 1_800_000 }, async () => {
		const fake = ctx.backend.fake;
		assert.ok(fake, 'this test needs test/fake-service');
		const n8n = ctx.n8n;
		const oursUrl = n8n.webhookUrl(webhookPath(ours, 'On New Posts'));
		const { secret, post } = await subscriptionSecret(ctx.backend.url, ctx.backend.apiKey, fake, oursUrl);
		fake.control.requests.clear();
		const actedOn = (ids: string[]) => {
			const acted = actedOnCounts(fake);
			return ids.filter((id) => acted.has(id)).length;
		};
		const started = Date.now();
		const oursBlocks: BurstBlock[] = [];
		const plainBlocks: BurstBlock[] = [];
		const describeBlock = (b: BurstBlock) =>
			`${b.perSecond.toFixed(1)}/s, ${b.cpuMsPerDelivery.toFixed(1)} ms CPU/delivery, ${b.busy} answered 503 (retried), ${b.failed} failed, at most ${b.maxInFlight} in flight, last execution ${(b.tailMs / 1000).toFixed(1)} s after the last answer, peak RSS ${Math.round(b.peakRssKb / 1024)} MiB`;
		for (let i = 0; i < Math.ceil(BURST / BLOCK); i++) {
			const p = await sendBlock(n8n, plainId, n8n.webhookUrl(PLAIN_PATH), secret, post, BLOCK, CONCURRENCY, actedOn);
			plainBlocks.push(p);
			process.stderr.write(`[e2e] burst, Webhook node block ${i + 1}: ${describeBlock(p)}\n`);
			const o = await sendBlock(n8n, oursId, oursUrl, secret, post, BLOCK, CONCURRENCY, actedOn);
			oursBlocks.push(o);
			process.stderr.write(`[e2e] burst, Trigger block ${i + 1}: ${describeBlock(o)}\n`);
		}
		recordTiming(`burst of ${BURST} a side, blocks of ${BLOCK}`, Date.now() - started);

		// Every delivery acted on exactly once (the side effect counted at the service).
		const acted = actedOnCounts(fake);
		for (const [side, blocks] of [
			['Trigger', oursBlocks],
			['Webhook node', plainBlocks],
		] as const) {
			const ids = blocks.flatMap((b) => b.ids);
			assert.equal(blocks.reduce((sum, b) => sum + b.failed, 0), 0, `${side}: deliveries answered neither 200 nor 503`);
			assert.equal(ids.filter((id) => !acted.has(id)).length, 0, `${side}: deliveries never acted on`);
			assert.equal(ids.filter((id) => (acted.get(id) ?? 0) > 1).length, 0, `${side}: deliveries acted on twice`);
		}
		// No execution left running: each block ended with none new or running, within 60 s of its last answer.
		const tail = Math.max(...oursBlocks.map((b) => b.tailMs));
		assert.ok(tail < 60_000, `the Trigger's last execution of a block ran on ${tail} ms after its last answer`);
		const failed = (await n8n.rest<{ count: number }>('GET', `/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: oursId }))}&limit=1`)).count;
		assert.equal(failed, 0, 'the Trigger left executions behind (successful ones are not kept: these are failed or unfinished)');
		// Peak memory, and the last 1,000 against the first 1,000: ratios within this run. n8n's RSS
		// in the minutes after its start is above its steady state (seen: 1.2 GiB, then 0.7), and the
		// side that goes first would carry it: the first round is left out of the memory comparison.
		const peak = (blocks: BurstBlock[]) => Math.max(...blocks.slice(blocks.length > 1 ? 1 : 0).map((b) => b.peakRssKb));
		const memory = peak(oursBlocks) / peak(plainBlocks);
		const lastVsFirst = oursBlocks.at(-1)!.perSecond / oursBlocks[0].perSecond;
		process.stderr.write(
			`[e2e] burst: peak RSS ${Math.round(peak(oursBlocks) / 1024)} MiB against ${Math.round(peak(plainBlocks) / 1024)} MiB (${memory.toFixed(2)}x); Trigger's last block ${lastVsFirst.toFixed(2)}x as fast as its first\n`,
		);
		assert.ok(memory <= 1.5, `n8n's peak memory under the Trigger's burst is ${memory.toFixed(2)}x the Webhook node's (at most 1.5x)`);
		assert.ok(lastVsFirst >= 0.87, `the Trigger's last block went ${lastVsFirst.toFixed(2)}x as fast as its first (at least 0.87x)`);
	});
});
