/**
 * Generated answers through both action nodes' one path (property-based, fast-check):
 * whatever a page, a record or a Data API round holds, no TypeError or empty message
 * reaches the user, no item comes out that is not in an answer, no item is missing
 * without an error, no more requests are sent than the pages that hold the items, and
 * every error names the request and the HTTP status; a generated post through Download Media gives
 * each file it can fetch and a clear error item, naming the post and the URL, for each it cannot.
 *
 * Seeded and reproducible: FC_SEED=<n> replays a run, FC_RUNS=<n> changes the count; a
 * failure prints its seed and path.
 */
import { Container } from '@n8n/di';
import fc from 'fast-check';
import { BinaryDataService } from 'n8n-core';

import type { RecordedError } from '../harness';
import { recordSleeps, useFakeService } from '../support';
import { runNode as runDataNode } from '../SocialAggregatorData/helpers';
import { feed, NODE, runNode } from './helpers';

const fake = useFakeService();
recordSleeps();

const SEED = Number(process.env.FC_SEED ?? 20261125);
const RUNS = Number(process.env.FC_RUNS ?? 1000);
const settings = { seed: SEED, numRuns: RUNS, endOnFailure: true };
jest.setTimeout(1_200_000);

type Json = Record<string, unknown>;

/** What a user must never read: an internal failure or a value pasted as it is. */
const UNCLEAR = /TypeError|Cannot read prop|is not a function|is not iterable|\[object Object\]|undefined|NaN/;

function expectClearError(error: RecordedError, request: string): void {
	expect(typeof error.message).toBe('string');
	expect(error.message.trim()).not.toBe('');
	expect(error.message).not.toMatch(UNCLEAR);
	expect(error.message).toContain(request);
	expect(error.message).toMatch(/HTTP \d{3}/);
}

/** Odd values where numbers, lists or objects belong. */
const oddValue = fc.oneof(
	fc.constantFrom(null, true, false, '', ' ', 'x', '3', 0, -1, 1.5, 2 ** 53, 1e308, [], {}, [null], [1, 'a']),
	fc.jsonValue({ maxDepth: 2 }),
);
/** Page counts, some right, most not (at most 5 real pages, so a run stays short). */
const pageCount = fc.constantFrom<unknown>(undefined, null, -1, 0, 1, 2, 3, 4, 5, 1.5, '3', 2 ** 53, 1e308, 10_001);
const totalCount = fc.constantFrom<unknown>(undefined, null, -5, 0, 1, 250, 499, 1e308, 'x');

async function servicePage(feedId: number, page: number): Promise<Json> {
	const response = await fetch(`${fake.url}/feeds/${feedId}/posts?page=${page}&per_page=100`, {
		headers: { Authorization: `Bearer ${fake.control.keys.owner}` },
	});
	return (await response.json()) as Json;
}

test(`a generated page of a Return All (${RUNS} runs, seed ${SEED})`, async () => {
	// Feeds in turn, so that a page still in flight from an earlier run (a list stops at a
	// failed page, the pages sent with it are answered later) is never counted for this one.
	const walls = await Promise.all(
		Array.from({ length: 8 }, async () => {
			const id = fake.control.seedFeed({ posts: 250 }).feedId;
			return { id, real: await Promise.all([1, 2, 3].map((page) => servicePage(id, page))) };
		}),
	);
	let turn = 0;

	const answer = (page: Json) =>
		fc.oneof(
			oddValue,
			fc.record({
				data: fc.oneof(
					oddValue,
					fc.array(fc.oneof(fc.constantFrom(...(page.data as Json[])), oddValue), { maxLength: 6 }),
					fc.constant(page.data),
				),
				meta: fc.oneof(
					oddValue,
					fc.record({ page: fc.constant(1), per_page: fc.constant(100), total_count: totalCount, total_pages: pageCount }, { requiredKeys: [] }),
				),
			}, { requiredKeys: [] }),
		);

	await fc.assert(
		fc.asyncProperty(
			fc.integer({ min: 1, max: 3 }).chain((page) => fc.tuple(fc.constant(page), answer(walls[0].real[page - 1]))),
			async ([page, generated]) => {
				const { id: wall, real } = walls[turn++ % walls.length];
				const realPosts = real.flatMap((one) => one.data as Json[]);
				const request = `GET /feeds/${wall}/posts`;
				// Posts the answer took from the first feed are posts of that answer like any other.
				const body = generated;
				fake.control.answers.clear();
				fake.control.answers.add({ path: `/feeds/${wall}/posts`, query: { page: String(page) }, body });
				// A thousand runs in one test would spend the key's hour as the node counts it; the fake here has no limit, and
				// the credential says so (Requests per Hour 0: nothing is planned).
				const run = await runNode(fake, { resource: 'post', operation: 'getAll', feedId: feed(wall), returnAll: true, simplify: false }, { credential: { requestsPerHour: 0 } });
				if (run.error) await settle();
				const mine = run.requests.filter((r) => r.path === `/feeds/${wall}/posts`);
				const requested = [...new Set(mine.map((r) => Number(r.query.page)))];
				// No more pages than hold posts: 3 here, or as many (at most 5) as a usable page 1 says;
				// only a garbled answer is asked again (a JSON string is taken for one).
				expect(requested.length).toBeLessThanOrEqual(5);
				for (const asked of requested) {
					const times = mine.filter((r) => Number(r.query.page) === asked).length;
					expect(times).toBeLessThanOrEqual(asked === page && typeof body === 'string' ? 6 : 1);
				}
				if (run.error) {
					expectClearError(run.error, request);
					expect(run.items).toEqual([]);
					return;
				}
				const out = run.items.map((item) => item.json);
				// Nothing that no answer held, and no item twice.
				const injected = Array.isArray((body as Json)?.data) ? ((body as Json).data as unknown[]) : [];
				for (const item of out) {
					const known = [...realPosts, ...injected].some((candidate) => JSON.stringify(candidate) === JSON.stringify(item));
					expect(known).toBe(true);
				}
				// Records without an ID have no identity to repeat; the others come once.
				const ids = out.map((item) => item.id).filter((id) => id !== undefined);
				expect(new Set(ids).size).toBe(ids.length);
				// Every post of a page answered as the service holds it is there.
				for (const asked of requested.filter((p) => p !== page && p <= 3)) {
					for (const post of real[asked - 1].data as Json[]) expect(ids).toContain(post.id);
				}
			},
		),
		settings,
	);
});

test(`a generated answer to a single read (${RUNS} runs, seed ${SEED})`, async () => {
	const feedId = SEEDED_FEED();
	await fc.assert(
		fc.asyncProperty(fc.oneof(oddValue, fc.record({ data: oddValue }), fc.record({ data: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 })) })), async (body) => {
			fake.control.answers.clear();
			fake.control.answers.add({ path: '/feeds/:id', body, count: 'always' });
			const run = await runNode(fake, { resource: 'feed', operation: 'get', feedId: feed(feedId) });
			// A body that is not a JSON object is asked again, as a garbled one is.
			expect(run.requests.length).toBe(typeof body === 'string' && body.trim() !== '' ? 6 : 1);
			if (run.error) {
				expectClearError(run.error, `GET /feeds/${feedId}`);
				return;
			}
			// One item, the record the answer held (as JSON carries it: -0 arrives as 0).
			expect(run.items.map((item) => item.json)).toEqual([JSON.parse(JSON.stringify((body as Json).data))]);
		}),
		settings,
	);
});

const MEDIA_RUNS = Math.min(RUNS, 200);

test(`a generated post through Download Media (${MEDIA_RUNS} runs, seed ${SEED})`, async () => {
	// Feed 1's first post is read; the answer is the generated post (whose id 7 the errors name).
	const feedId = 1;
	const served = (name: string) => `${fake.origin}/media/${name}`;
	const url = fc.oneof(fc.constantFrom(served('gen_0.jpg'), served('gen_1.mp4'), served('gen_2.jpg'), 'http://127.0.0.1:1/a.jpg', 'ftp://x/y'), oddValue);
	const medium = fc.oneof(oddValue, fc.record({ type: fc.oneof(fc.constantFrom('image', 'video', 'photo'), oddValue), url }, { requiredKeys: [] }));
	const post = fc.record({ id: fc.constant(7), media: fc.oneof(oddValue, fc.array(medium, { maxLength: 4 })), poster: fc.oneof(oddValue, fc.record({ image: url })) });
	const choice = fc.constantFrom('all', 'images', 'videos', 'first');
	await fc.assert(
		// The stand-in serves media on loopback: only with Allow Private Network Hosts can a file come.
		fc.asyncProperty(post, choice, fc.boolean(), fc.boolean(), async (generated, media, includeAvatar, allowPrivateNetwork) => {
			fake.control.reset();
			fake.control.media.serve(true);
			fake.control.answers.add({ path: '/feeds/:id/posts/:post', body: { data: generated }, count: 'always' });
			const parameters = {
				resource: 'post',
				operation: 'downloadMedia',
				feedId: feed(feedId),
				postId: '1001',
				media,
				includeAvatar,
				simplify: false,
				downloadOptions: { allowPrivateNetwork },
			};
			const run = await runNode(fake, parameters, { onError: 'continueRegularOutput' });
			expect(run.error).toBeUndefined();
			const items = run.result.output(NODE);
			expect(items.length).toBeGreaterThan(0);
			for (const item of items) {
				expect(item.pairedItem).toEqual({ item: 0 });
				if (item.binary) {
					// A file: the bytes the fake serves for the medium's URL.
					const answered = (item.json.medium as Json).url as string;
					const bytes = await Container.get(BinaryDataService).getAsBuffer(item.binary.data);
					expect(bytes.equals(fake.control.media.file(answered).bytes)).toBe(true);
				} else if ('error' in item.json) {
					// An error item: it names the post and a URL (or says there is none), and reads clearly.
					expect(item.json.error).toMatch(/^Could not download .+ of post 7 from .+: /);
					expect(item.json.error).not.toMatch(UNCLEAR);
				} else {
					// No medium of the kind asked for: the post alone.
					expect(items).toHaveLength(1);
					expect(item.json.medium).toBeNull();
				}
			}
			if (!allowPrivateNetwork) {
				// Refused before any request: nothing reached the loopback host.
				expect(items.some((item) => item.binary)).toBe(false);
				expect(fake.control.media.requests()).toHaveLength(0);
			}
		}),
		{ ...settings, numRuns: MEDIA_RUNS },
	);
});

test(`a generated Data API round (${RUNS} runs, seed ${SEED})`, async () => {
	const status = fc.oneof(
		oddValue,
		fc.record(
			{
				platform: fc.oneof(fc.constantFrom('Bluesky', 'Tumblr', 'bluesky', ''), oddValue),
				success: fc.oneof(fc.boolean(), oddValue),
				next_cursor: fc.oneof(fc.constant(null), fc.string(), oddValue),
				error_code: fc.oneof(fc.constantFrom('platform_error', 'fetch_timeout', ''), oddValue),
				message: fc.oneof(fc.string(), oddValue),
			},
			{ requiredKeys: [] },
		),
	);
	const post = fc.oneof(oddValue, fc.record({ platform: fc.constantFrom('Bluesky', 'Tumblr'), platform_id: fc.string(), message: fc.string() }));
	const round = fc.oneof(
		oddValue,
		fc.record({ data: fc.oneof(oddValue, fc.array(post, { maxLength: 4 })), meta: fc.oneof(oddValue, fc.record({ platforms: fc.oneof(oddValue, fc.array(status, { maxLength: 3 })) })) }, { requiredKeys: [] }),
	);
	await fc.assert(
		fc.asyncProperty(round, async (body) => {
			fake.control.answers.clear();
			fake.control.answers.add({ path: '/data/posts', body, count: 'always' });
			const run = await runDataNode(fake, {
				resource: 'post',
				operation: 'search',
				term: '#acme',
				platforms: ['Bluesky', 'Tumblr'],
				limit: 5,
				output: 'postsAndStatus',
				simplify: false,
				options: { platformRetries: 1 },
			});
			// At most two rounds (a limit of 5, a retry for a failed platform), each asked up to 6 times when garbled.
			expect(run.searches.length).toBeLessThanOrEqual(typeof body === 'string' && body.trim() !== '' ? 6 : 2);
			const text = JSON.stringify(run.items) + (run.error?.message ?? '');
			expect(text).not.toContain('[object Object]');
			if (run.error) {
				expect(run.error.message.trim()).not.toBe('');
				expect(run.error.message).not.toMatch(UNCLEAR);
				if (!/ failed: /.test(run.error.message)) expectClearError(run.error, 'GET /data/posts');
				return;
			}
			const injected = Array.isArray((body as Json)?.data) ? ((body as Json).data as unknown[]) : [];
			for (const item of run.items.filter((i) => i.json.type !== 'platform_status')) {
				expect(injected.some((candidate) => JSON.stringify(candidate) === JSON.stringify(item.json))).toBe(true);
			}
			for (const item of run.items.filter((i) => i.json.type === 'platform_status' && i.json.success === false)) {
				expect(typeof item.json.message).toBe('string');
				expect(String(item.json.message).trim()).not.toBe('');
				expect(typeof item.json.error_code).toBe('string');
			}
		}),
		settings,
	);
});

async function settle(): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, 50));
}

function SEEDED_FEED(): number {
	return fake.control.seedFeed({ posts: 3 }).feedId;
}
