/**
 * A burst in a real n8n, twice: under n8n's default settings, and under the settings that make every
 * webhook cheaper. Each time 5,000 validly signed deliveries, 8 at a time, to the Social Aggregator
 * Trigger (node version 2) and the same burst to n8n's plain Webhook node in the same n8n, in
 * rounds of 250 alternating side by side, each workflow ending in the same side effect (an HTTP
 * Request carrying the delivery id, counted at the service). The benchmark's burst driver
 * (`bench/burst.ts`) sends and times the rounds. What must hold, compared within each run:
 * every delivery acted on once; no delivery answered 5xx (a 503 would count towards the failures
 * after which the service disables the subscription); no execution still running 60 s after a
 * round's last answer, none failed; n8n's peak memory during the Trigger's rounds within 1.5x of
 * the Webhook node's (after each side's first 1,000); the Trigger's last 1,000 against its second
 * 1,000 at least 0.87x of what the Webhook node's last 1,000 did against its second (so that n8n's
 * first minutes and the machine's own drift during the run, which move both sides, do not count;
 * the Trigger remembers 1,000 deliveries at the start of the one and 4,000 at the start of the
 * other). The Trigger's rate over the whole burst against the Webhook
 * node's is printed, not held to a bound: its check in n8n's database costs a tenth to a fifth of
 * the Webhook node's rate (bench/README.md, "Webhook performance").
 *
 * Why rounds of 250, not blocks of 1,000: these machines are shared, and the rate of a block of
 * 1,000 changes by up to a fifth from one to the next with nothing else changed (seen: Trigger
 * blocks of 11.7/s and then 9.8/s, the Webhook node's on either side at 10.9/s). Timed over four
 * rounds spread across several minutes, one such minute weighs on the first or last 1,000 a quarter
 * as much.
 *
 * The cheaper settings, the same for both sides (bench/README.md, "Webhook performance"):
 * successful executions not kept (`EXECUTIONS_DATA_SAVE_ON_SUCCESS=none`; failed ones are), and
 * isolates taken only for expressions (`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE`). Under the default
 * settings (the default engine, successful executions saved) n8n also takes an expression isolate for
 * the webhook phase of every trigger but its own Webhook node, which no node can avoid.
 * `E2E_BURST_SETTINGS=default` or `cheaper` runs one of the two; `E2E_BURST`, `E2E_BURST_BLOCK` (the
 * first and last span compared) and `E2E_BURST_ROUND` shrink them for a quick look.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { actedOnCounts, combined, describeBlock, plainMarked, sendBlock, type BurstBlock } from '../../bench/burst';
import { marker, oursChecked, subscriptionSecret } from '../../bench/checked';
import { sign } from '../../bench/lib/deliveries';
import { e2eSuite, recordTiming, sleep, waitFor, webhookPath } from './lib';
import { node, workflow, type CredentialRef, type WorkflowSpec } from './lib/workflow';

const BURST = Number(process.env.E2E_BURST ?? 5000);
const BLOCK = Number(process.env.E2E_BURST_BLOCK ?? 1000);
const ROUND = Number(process.env.E2E_BURST_ROUND ?? 250);
const CONCURRENCY = 8;
const PLAIN_PATH = 'e2e-burst-plain';
/** Every status of an execution that did not end well: what a burst must not leave behind. */
const NOT_SUCCEEDED = ['new', 'running', 'waiting', 'error', 'crashed', 'canceled', 'unknown'];

interface BurstSettings {
	name: 'default' | 'cheaper';
	title: string;
	env: Record<string, string>;
}

const SETTINGS: BurstSettings[] = [
	{ name: 'default', title: "n8n's default settings (default engine, successful executions saved)", env: {} },
	{
		name: 'cheaper',
		title: 'lazy isolates, successful executions not saved',
		env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none', N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	},
];

const CHOSEN = process.env.E2E_BURST_SETTINGS;

for (const settings of SETTINGS.filter((s) => CHOSEN === undefined || CHOSEN === s.name)) {
	describe(`a burst of signed deliveries in one n8n, ${settings.title}`, () => {
		let bearer: CredentialRef;
		let ours: WorkflowSpec;
		let oursId = '';
		let plainId = '';
		const ctx = e2eSuite({
			start: true,
			ownServer: true,
			backend: { limits: { enabled: false } },
			env: settings.env,
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

		it(`takes ${BURST} deliveries 8 at a time to the Trigger as the Webhook node takes them: each acted on once, none answered 5xx, none left running or failed, memory held, rate kept up`, { timeout: 2_400_000 }, async () => {
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
			assert.ok(BURST % BLOCK === 0 && BLOCK % ROUND === 0, 'E2E_BURST must be a multiple of E2E_BURST_BLOCK, and that of E2E_BURST_ROUND');
			const started = Date.now();
			const oursRounds: BurstBlock[] = [];
			const plainRounds: BurstBlock[] = [];
			const roundsPerBlock = BLOCK / ROUND;
			const log = (line: string) => process.stderr.write(`[e2e] burst (${settings.name} settings), ${line}\n`);
			for (let round = 0; round < BURST / ROUND; round++) {
				plainRounds.push(await sendBlock(n8n, plainId, n8n.webhookUrl(PLAIN_PATH), secret, post, ROUND, CONCURRENCY, actedOn));
				oursRounds.push(await sendBlock(n8n, oursId, oursUrl, secret, post, ROUND, CONCURRENCY, actedOn));
				if ((round + 1) % roundsPerBlock === 0) {
					const span = `deliveries ${(round + 1) * ROUND - BLOCK + 1}–${(round + 1) * ROUND}`;
					log(`Webhook node ${span}: ${describeBlock(combined(plainRounds.slice(-roundsPerBlock)))}`);
					log(`Trigger ${span}: ${describeBlock(combined(oursRounds.slice(-roundsPerBlock)))}`);
				}
			}
			recordTiming(`burst of ${BURST} a side, rounds of ${ROUND}, ${settings.name} settings`, Date.now() - started);
			const rates = (rounds: BurstBlock[]) => rounds.map((r) => r.perSecond.toFixed(1)).join(' ');
			log(`deliveries a second round by round: Webhook node ${rates(plainRounds)}; Trigger ${rates(oursRounds)}`);

			// Every delivery acted on exactly once (the side effect counted at the service), none answered 5xx.
			const acted = actedOnCounts(fake);
			for (const [side, rounds] of [
				['Trigger', oursRounds],
				['Webhook node', plainRounds],
			] as const) {
				const { ids, failed, busy } = combined(rounds);
				assert.equal(busy, 0, `${side}: deliveries answered 503`);
				assert.equal(failed, 0, `${side}: deliveries answered neither 200 nor 503`);
				assert.equal(ids.filter((id) => !acted.has(id)).length, 0, `${side}: deliveries never acted on`);
				assert.equal(ids.filter((id) => (acted.get(id) ?? 0) > 1).length, 0, `${side}: deliveries acted on twice`);
			}
			// No execution left running: each round ended with none new or running, within 60 s of its last answer.
			const tail = combined(oursRounds).tailMs;
			assert.ok(tail < 60_000, `the Trigger's last execution of a round ran on ${tail} ms after its last answer`);
			const filter = encodeURIComponent(JSON.stringify({ workflowId: oursId, status: NOT_SUCCEEDED }));
			const leftBehind = (await n8n.rest<{ count: number }>('GET', `/rest/executions?filter=${filter}&limit=1`)).count;
			assert.equal(leftBehind, 0, 'the Trigger left executions behind that did not succeed (failed, or never finished)');
			// Peak memory: a ratio within this run. n8n's RSS in the minutes after its start is above its
			// steady state (seen: 1.2 GiB, then 0.7), and the side that goes first would carry it: each
			// side's first 1,000 is left out of the memory comparison.
			const peak = (rounds: BurstBlock[]) => combined(rounds.slice(rounds.length > roundsPerBlock ? roundsPerBlock : 0)).peakRssKb;
			const memory = peak(oursRounds) / peak(plainRounds);
			// The last 1,000 against an earlier 1,000, each side's own, and the Trigger's against the Webhook
			// node's: a machine that slows down or speeds up during the run moves both sides alike (seen: both
			// at 0.83x to 0.87x of their first 1,000), what the Trigger's memory of deliveries costs moves it
			// alone. The earlier 1,000 is the second where there are three or more: in the first, n8n has just
			// started, and the side that goes first in each round (the Webhook node) carries more of that.
			const reference = BURST / BLOCK >= 3 ? 1 : 0;
			const lastVsEarlier = (rounds: BurstBlock[]) =>
				combined(rounds.slice(-roundsPerBlock)).perSecond /
				combined(rounds.slice(reference * roundsPerBlock, (reference + 1) * roundsPerBlock)).perSecond;
			const slowdown = lastVsEarlier(oursRounds) / lastVsEarlier(plainRounds);
			const span = `${reference * BLOCK + 1}–${(reference + 1) * BLOCK}`;
			const rate = combined(oursRounds).perSecond / combined(plainRounds).perSecond;
			log(
				`peak RSS ${Math.round(peak(oursRounds) / 1024)} MiB against ${Math.round(peak(plainRounds) / 1024)} MiB (${memory.toFixed(2)}x); last ${BLOCK} against deliveries ${span}: Trigger ${lastVsEarlier(oursRounds).toFixed(2)}x, Webhook node ${lastVsEarlier(plainRounds).toFixed(2)}x (the Trigger's ${slowdown.toFixed(2)}x the Webhook node's); Trigger's rate ${rate.toFixed(2)}x the Webhook node's`,
			);
			assert.ok(memory <= 1.5, `n8n's peak memory under the Trigger's burst is ${memory.toFixed(2)}x the Webhook node's (at most 1.5x)`);
			assert.ok(
				slowdown >= 0.87,
				`the Trigger's last ${BLOCK} against its deliveries ${span} went ${slowdown.toFixed(2)}x as fast as the Webhook node's did (at least 0.87x)`,
			);
		});
	});
}

/**
 * The burst after an outage, under n8n's default settings: 2,000 validly signed deliveries dated a day before n8n
 * started (the service's retries, each checked in n8n's database), one in fifty heavy (a thousand posts, or a post of
 * a megabyte: one in five of them the thousand), 8 at a time; a tenth of them were acted on before n8n restarted.
 * None may be answered 5xx (light ones do not wait for heavy ones; no trigger refuses ten in a row), and each is
 * acted on exactly once.
 */
const MIXED = Number(process.env.E2E_BURST_MIXED ?? 2000);

if (CHOSEN === undefined || CHOSEN === 'mixed') {
	describe("a burst after an outage in one n8n, n8n's default settings: old deliveries, some heavy, some acted on before a restart", () => {
		let spec: WorkflowSpec;
		let workflowId = '';
		const ctx = e2eSuite({
			start: true,
			ownServer: true,
			backend: { limits: { enabled: false } },
			beforeStart: async ({ n8n, backend }) => {
				const bearer = await n8n.importCredential({ name: 'Bearer (e2e)', type: 'httpBearerAuth', data: { token: backend.apiKey } });
				// One item per post from the trigger; the side effect once per execution, naming the delivery.
				const act = { ...marker('={{ $json.event_id }}', { bearer, baseUrl: backend.url }), executeOnce: true };
				spec = workflow('E2E mixed burst', [act], {
					first: node('socialAggregatorTrigger', { events: ['post.created'], options: { allowHttp: true } }, { name: 'On New Posts' }),
				});
				workflowId = await n8n.importWorkflow(spec);
				await n8n.publish(workflowId);
				return { webhooks: [webhookPath(spec, 'On New Posts')], published: [workflowId] };
			},
		});

		it(`${MIXED} old deliveries, 1 in 50 heavy, a tenth acted on before a restart: none answered 5xx, each acted on once`, { timeout: 2_400_000 }, async () => {
			const fake = ctx.backend.fake;
			assert.ok(fake, 'this test needs test/fake-service');
			const n8n = ctx.n8n;
			const url = () => n8n.webhookUrl(webhookPath(spec, 'On New Posts'));
			const { secret, post } = await subscriptionSecret(ctx.backend.url, ctx.backend.apiKey, fake, url());
			const dayBefore = new Date(Date.now() - 86_400_000).toISOString();
			// One in fifty heavy: of those, one in five a thousand posts (a thousand items saved with its execution,
			// the slowest kind), the others a post of a megabyte.
			const bodies = Array.from({ length: MIXED }, (_, n) => {
				const heavy = n % 50 === 49;
				const posts = !heavy
					? [post]
					: n % 250 !== 249
						? [{ ...post, message: 'x'.repeat(1024 * 1024) }]
						: Array.from({ length: 1000 }, (_, i) => ({ ...post, id: 900_000 + i }));
				const data = { feed: { id: post.feed_id, name: 'Burst feed' }, source: { id: post.source_id }, posts };
				return JSON.stringify({ id: `dlv_mixed_${n}`, event: 'post.created', occurred_at: dayBefore, data });
			});
			const log = (line: string) => process.stderr.write(`[e2e] mixed burst, ${line}\n`);
			/** Sends `list` 8 at a time; counts answers by status, retrying a 503 after its Retry-After. */
			const send = async (list: string[]) => {
				const statuses = new Map<number, number>();
				let next = 0;
				await Promise.all(
					Array.from({ length: CONCURRENCY }, async () => {
						while (next < list.length) {
							const body = list[next++];
							for (;;) {
								const response = await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json', 'X-Service-Signature': sign(secret, body) }, body });
								await response.arrayBuffer();
								statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
								if (response.status !== 503) break;
								await sleep(1000 * Number(response.headers.get('retry-after') ?? 1));
							}
						}
					}),
				);
				return statuses;
			};
			const ids = bodies.map((body) => (JSON.parse(body) as { id: string }).id);
			const settled = async (wanted: string[], what: string) =>
				await waitFor(
					what,
					async () => {
						const acted = actedOnCounts(fake);
						if (wanted.some((id) => !acted.has(id))) return false;
						const filter = encodeURIComponent(JSON.stringify({ workflowId, status: ['new', 'running'] }));
						return (await n8n.rest<{ count: number }>('GET', `/rest/executions?filter=${filter}&limit=1`)).count === 0;
					},
					{ timeoutMs: 900_000, intervalMs: 1000 },
				);

			// Before the outage: a tenth of them acted on.
			const before = bodies.filter((_, n) => n % 10 === 3);
			assert.deepEqual([...(await send(before)).keys()], [200]);
			await settled(before.map((body) => (JSON.parse(body) as { id: string }).id), 'the deliveries before the restart acted on');
			const port = n8n.port;
			await n8n.stop();
			await n8n.start({ port, webhooks: [webhookPath(spec, 'On New Posts')], published: [workflowId] });

			// After it: all of them, the acted-on tenth among them, in an order mixed once.
			const order = bodies.map((body, n) => ({ body, key: (n * 7919) % bodies.length })).sort((a, b) => a.key - b.key);
			const started = Date.now();
			const statuses = await send(order.map((entry) => entry.body));
			const answered = Date.now() - started;
			await settled(ids, 'every delivery acted on');
			const total = Date.now() - started;
			recordTiming(`mixed burst of ${MIXED} after a restart, default settings`, total);
			log(`answers ${JSON.stringify(Object.fromEntries(statuses))}, all answered in ${(answered / 1000).toFixed(1)} s, all acted on in ${(total / 1000).toFixed(1)} s (${((MIXED / total) * 1000).toFixed(1)}/s)`);
			const fiveHundreds = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
			assert.equal(fiveHundreds, 0, 'deliveries answered 5xx');
			assert.deepEqual([...statuses.keys()], [200], 'every delivery answered 200');
			const acted = actedOnCounts(fake);
			assert.equal(ids.filter((id) => acted.get(id) !== 1).length, 0, `deliveries not acted on exactly once: ${ids.filter((id) => acted.get(id) !== 1).slice(0, 10).join(', ')}`);
			const filter = encodeURIComponent(JSON.stringify({ workflowId, status: NOT_SUCCEEDED }));
			assert.equal((await n8n.rest<{ count: number }>('GET', `/rest/executions?filter=${filter}&limit=1`)).count, 0, 'executions that did not succeed');
		});
	});
}
