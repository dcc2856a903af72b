/**
 * A generated Data API round through the Data node (property-based, fast-check): no item that no
 * answer held, a failed platform's status item says why, and an error names the request and the
 * HTTP status. FC_SEED and FC_RUNS: see support.ts.
 */
import fc from 'fast-check';

import { recordSleeps, useFakeService } from '../../support';
import { runNode as runDataNode } from '../../SocialAggregatorData/helpers';
import { expectClearError, oddValue, RUNS, SEED, settings, UNCLEAR, type Json } from './support';

const fake = useFakeService();
recordSleeps();
jest.setTimeout(1_200_000);

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
