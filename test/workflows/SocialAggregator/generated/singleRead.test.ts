/**
 * A generated answer to a single read (property-based, fast-check): one item, the record the
 * answer held, or an error that names the request and the HTTP status. FC_SEED and FC_RUNS: see
 * support.ts.
 */
import fc from 'fast-check';

import { recordSleeps, useFakeService } from '../../support';
import { feed, runNode } from '../helpers';
import { expectClearError, oddValue, RUNS, SEED, settings, type Json } from './support';

const fake = useFakeService();
recordSleeps();
jest.setTimeout(1_200_000);

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

function SEEDED_FEED(): number {
	return fake.control.seedFeed({ posts: 3 }).feedId;
}
