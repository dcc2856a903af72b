/**
 * The Social Aggregator Data Trigger in a real n8n where a read meets what real searches do, the fake's clock moved
 * rather than waited on:
 *
 * - A username search whose first page always begins with the same post (a pinned post on a profile's timeline):
 *   35 new posts between two polls (more than a page of 20), twice, with 50 posts remembered: all 70 once, the
 *   pinned post never, the poll after each burst 2 requests and a quiet one 1.
 * - A backlog whose cursor expires: a burst of 150 over Max Pages per Poll 2 (pages of 25), the fake's clock moved
 *   past the cursors' lifetime once the first poll has held what it read, 10 more posts meanwhile: every post once,
 *   within a few polls, and no cursor sent twice.
 *
 * The two triggers poll every 10 seconds, five seconds apart; the cases run at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { e2eSuite, everyTenSeconds, node, sleep, UNFINISHED, waitFor, workflow } from './lib';

const MINUTE = 60_000;
const NODE_NAME = 'New Posts';
const PINNED = { term: 'e2epinned', platform: 'Twitter', termType: 'username' };
const EXPIRING = { term: '#e2eexpire', platform: 'Bluesky', termType: 'hashtag' };

type Post = Record<string, unknown>;
const key = (post: Post) => `${String(post.platform)}:${String(post.platform_id)}`;

describe('Social Aggregator Data Trigger over a pinned post and expiring cursors', { concurrency: true }, () => {
	const workflows = { pinned: '', expiring: '' };
	const trigger = (name: string, search: typeof PINNED, options: Record<string, number>, offset: number) =>
		workflow(name, [], {
			first: node(
				'socialAggregatorDataTrigger',
				{ term: search.term, platforms: [search.platform], termType: search.termType, options, pollTimes: everyTenSeconds(offset) },
				{ name: NODE_NAME },
			),
		});
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n, backend }) => {
			const data = backend.fake!.control.data;
			data.configure(PINNED.platform, { term: PINNED.term, termType: PINNED.termType, pinned: true });
			data.configure(EXPIRING.platform, { term: EXPIRING.term, termType: EXPIRING.termType, pageSize: 25, cursorLifetimeMs: 10 * MINUTE });
			workflows.pinned = await n8n.importWorkflow(trigger('E2E pinned post', PINNED, { rememberPerPlatform: 50 }, 0));
			workflows.expiring = await n8n.importWorkflow(trigger('E2E expiring cursor', EXPIRING, { maxPagesPerPoll: 2 }, 5));
			const published = Object.values(workflows);
			for (const id of published) await n8n.publish(id);
			return { published };
		},
	});
	const requestsFor = (term: string) => () =>
		ctx.backend.fake!.control.requests.list({ method: 'GET', path: '/data/posts' }).filter((request) => request.query.term === term);

	/** Every post the workflow's finished executions emitted, with repeats. */
	async function emitted(workflowId: string): Promise<Post[]> {
		// One still running when listed is read at the next look.
		const runs = (await ctx.n8n.executions(workflowId)).filter((run) => !UNFINISHED.includes(run.status));
		for (const run of runs) assert.equal(run.status, 'success', `execution ${run.id} ${run.status}`);
		const items = await Promise.all(runs.map(async ({ id }) => (await ctx.n8n.execution(id)).items(NODE_NAME)));
		return items.flat();
	}

	/** Waits until every one of `expected` was emitted, then checks that each was once and nothing else was. */
	async function exactlyOnce(workflowId: string, expected: Post[], what: string, timeoutMs = 40_000): Promise<void> {
		const wanted = new Set(expected.map(key));
		let seen: string[] = [];
		await waitFor(`${what}: every post emitted`, async () => {
			seen = (await emitted(workflowId)).map(key);
			return [...wanted].every((k) => seen.includes(k));
		}, { timeoutMs, intervalMs: 1000 });
		assert.equal(seen.length - new Set(seen).size, 0, `${what}: emissions repeated a post`);
		assert.deepEqual(seen.filter((k) => !wanted.has(k)).slice(0, 10), [], `${what}: posts emitted that are not new`);
	}

	/** Returns a second after the trigger's next poll began: its polls are 10 s apart and take a fraction of one. */
	async function justAfterAPoll(requests: () => unknown[]): Promise<void> {
		const before = requests().length;
		await waitFor('a poll', () => requests().length > before, { timeoutMs: 25_000, intervalMs: 50 });
		await sleep(1000);
	}

	it('a search whose first page always begins with the same post: 35 new posts twice, each once, that post never', async () => {
		const fake = ctx.backend.fake!;
		const requests = requestsFor(PINNED.term);
		await waitFor('the activation poll', () => requests().length > 0, { timeoutMs: 25_000, intervalMs: 50 });
		const fresh: Post[] = [];
		const costs: number[] = [];
		for (let burst = 0; burst < 2; burst++) {
			await justAfterAPoll(requests);
			const before = requests().length;
			fresh.push(...fake.control.data.addPosts(PINNED.platform, PINNED.term, 35, PINNED.termType));
			await exactlyOnce(workflows.pinned, fresh, `pinned search, burst ${burst + 1}`);
			// The poll that emitted the burst, up to the next poll's first page: page 1 (the pinned post and 19 new),
			// page 2 (16 new, then known ones).
			const nextPoll = () => requests().slice(before).findIndex((request, i) => i > 0 && request.query.cursor === undefined);
			await waitFor('the poll after the burst', () => nextPoll() > 0, { timeoutMs: 25_000, intervalMs: 50 });
			costs.push(nextPoll());
			assert.equal(costs.at(-1), 2, `the poll after 35 new posts sent ${costs.at(-1)} requests`);
		}
		// Quiet polls read page 1 alone and emit nothing, the pinned post above all.
		await justAfterAPoll(requests);
		const before = requests().length;
		await justAfterAPoll(requests);
		assert.equal(requests().length - before, 1, 'a quiet poll sent more than one request');
		await exactlyOnce(workflows.pinned, fresh, 'pinned search, later');
		process.stderr.write(`[e2e] pinned search: ${fresh.length} new posts each once, the pinned post never; requests per burst poll ${costs.join(', ')}\n`);
	});

	it('a backlog whose cursor expires: every post of a burst over Max Pages once within a few polls, no cursor sent twice', async () => {
		const fake = ctx.backend.fake!;
		const requests = requestsFor(EXPIRING.term);
		await justAfterAPoll(requests);
		const burst = fake.control.data.addPosts(EXPIRING.platform, EXPIRING.term, 150, EXPIRING.termType);
		// The poll that meets the burst reads 2 of its 6 pages and holds them.
		const before = requests().length;
		await waitFor('the poll that meets the burst', () => requests().length >= before + 2, { timeoutMs: 25_000, intervalMs: 50 });
		await sleep(1000);
		assert.equal((await ctx.n8n.executions(workflows.expiring)).length, 0, 'the held posts should not be emitted yet');
		fake.control.clock.advance(20 * MINUTE);
		const later = fake.control.data.addPosts(EXPIRING.platform, EXPIRING.term, 10, EXPIRING.termType);
		const moved = requests().length;
		const started = Date.now();
		// Refused, then read afresh: 4 polls of 2 pages (10 s apart) reach the posts known before the burst.
		await exactlyOnce(workflows.expiring, [...burst, ...later], 'expired cursor', 90_000);
		const seconds = Math.round((Date.now() - started) / 1000);
		const cursors = requests().flatMap((request) => (typeof request.query.cursor === 'string' ? [request.query.cursor] : []));
		assert.equal(cursors.length - new Set(cursors).size, 0, 'a cursor was sent twice (the refused one again?)');
		assert.ok(seconds <= 70, `every post came ${seconds} s after the clock moved: more than 6 polls`);
		process.stderr.write(
			`[e2e] expired cursor: ${burst.length + later.length} posts each once, ${requests().length - moved} requests and ${seconds} s after the clock moved\n`,
		);
	});
});
