/**
 * A generated post through Download Media (property-based, fast-check): each file it can fetch,
 * and a clear error item, naming the post and the URL, for each it cannot; nothing fetched from
 * loopback without Allow Private Network Hosts. FC_SEED and FC_RUNS: see support.ts.
 */
import { Container } from '@n8n/di';
import fc from 'fast-check';
import { BinaryDataService } from 'n8n-core';

import { recordSleeps, useFakeService } from '../../support';
import { feed, NODE, runNode } from '../helpers';
import { oddValue, RUNS, SEED, settings, UNCLEAR, type Json } from './support';

const fake = useFakeService();
recordSleeps();
jest.setTimeout(1_200_000);

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
