/**
 * A generated page of a Return All (property-based, fast-check): whatever a page holds, no
 * TypeError or empty message reaches the user, no item comes out that is not in an answer, no item
 * is missing without an error, no more requests are sent than the pages that hold the items, and
 * every error names the request and the HTTP status. FC_SEED and FC_RUNS: see support.ts.
 */
import fc from 'fast-check';

import { recordSleeps, useFakeService } from '../../support';
import { feed, runNode } from '../helpers';
import { expectClearError, oddValue, RUNS, SEED, settings, type Json } from './support';

const fake = useFakeService();
recordSleeps();
jest.setTimeout(1_200_000);

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
	// failed page, the pages sent with it are answered later) is never counted for this one: a
	// feed comes round again 31 runs later, and each run asks for a page of its own feed.
	const walls = await Promise.all(
		Array.from({ length: 32 }, async () => {
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
				const known = new Set([...realPosts, ...injected].map((candidate) => JSON.stringify(candidate)));
				for (const item of out) expect(known.has(JSON.stringify(item))).toBe(true);
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
