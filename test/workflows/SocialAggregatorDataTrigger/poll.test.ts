import { logLines, triggerHarness, type TriggerHarness, type TriggerMode } from '../harness';
import { SHAPES } from '../../fake-service';
import { credentialsFor, useFakeService } from '../support';

const TYPE = 'n8n-nodes-social-aggregator.socialAggregatorDataTrigger';
const TERM = '#n8nrocks';

// The service's rate limits stay on.
const fake = useFakeService({ port: 0, allowHttpWebhooks: true });

function trigger(options: { mode?: TriggerMode; parameters?: Record<string, unknown> } = {}): TriggerHarness {
	return triggerHarness({
		node: {
			type: TYPE,
			parameters: { term: TERM, platforms: ['Bluesky', 'Twitter'], termType: 'hashtag', options: {}, ...options.parameters },
		},
		credentials: credentialsFor(fake),
		mode: options.mode ?? 'trigger',
	});
}

const dataRequests = () => fake.control.requests.list({ method: 'GET', path: '/data/posts' });
const ids = (posts: Array<Record<string, unknown>>) => posts.map((p) => `${String(p.platform)}:${String(p.platform_id)}`);

async function emitted(harness: TriggerHarness): Promise<Array<Record<string, unknown>>> {
	const result = await harness.poll();
	return result === null ? [] : result[0].map((item) => item.json);
}

beforeEach(() => {
	logLines.length = 0;
});

// In both legal shapes of the service's answers (test/fake-service/README.md, Shapes).
describe.each(SHAPES)('in the %s shape', (shapes) => {
	beforeEach(() => fake.control.setShapes(shapes));

	describe('Social Aggregator Data Trigger against the service', () => {
		test('three polls with posts added between them: every post emitted exactly once, oldest first; a quiet poll emits nothing', async () => {
			const harness = trigger();

			// Activation records what is there without emitting it, with one request for both platforms.
			expect(await harness.poll()).toBeNull();
			expect(dataRequests().map((r) => r.query)).toEqual([{ term: TERM, platforms: 'Bluesky,Twitter', term_type: 'hashtag' }]);

			const all: string[] = [];
			const added1 = [
				...fake.control.data.addPosts('Bluesky', TERM, 3, 'hashtag'),
				...fake.control.data.addPosts('Twitter', TERM, 27, 'hashtag'),
			];
			fake.control.requests.clear();
			const first = await emitted(harness);
			all.push(...ids(first));
			expect(new Set(ids(first))).toEqual(new Set(ids(added1)));
			expect(first).toHaveLength(30);
			const times = first.map((p) => Date.parse(String(p.post_created_at)));
			expect([...times].sort((a, b) => a - b)).toEqual(times);
			// Twitter's 27 new posts span two of its pages; the second page asked for Twitter alone, with its cursor.
			expect(dataRequests().map((r) => r.query.platforms)).toEqual(['Bluesky,Twitter', 'Twitter']);
			expect(dataRequests()[1].query.cursor).toEqual(expect.any(String));

			fake.control.requests.clear();
			expect(await harness.poll()).toBeNull();
			expect(dataRequests()).toHaveLength(1);

			const added2 = [
				...fake.control.data.addPosts('Twitter', TERM, 2, 'hashtag'),
				...fake.control.data.addPosts('Bluesky', TERM, 1, 'hashtag'),
			];
			const second = await emitted(harness);
			all.push(...ids(second));
			expect(new Set(ids(second))).toEqual(new Set(ids(added2)));

			expect(await harness.poll()).toBeNull();
			expect(new Set(all).size).toBe(all.length);
			expect(all).toHaveLength(33);
		});

		test('a failing platform is reported without losing the others, and its posts come once it recovers', async () => {
			const harness = trigger({ parameters: { options: { onPlatformFailure: 'continue' } } });
			await harness.poll();
			const bluesky = fake.control.data.addPosts('Bluesky', TERM, 2, 'hashtag');
			const twitter = fake.control.data.addPosts('Twitter', TERM, 2, 'hashtag');
			fake.control.data.fail('Twitter', { errorCode: 'invalid_term', times: 1, term: TERM });

			const during = await emitted(harness);
			expect(ids(during.filter((p) => p.platform_id))).toEqual(ids(bluesky).reverse());
			expect(during.filter((p) => p.type)).toEqual([
				{ type: 'platform_status', platform: 'Twitter', success: false, error_code: 'invalid_term', message: expect.any(String), failed_attempts: 1 },
			]);
			expect(logLines.some((l) => l.level === 'warn' && l.message.includes('Twitter'))).toBe(true);

			const after = await emitted(harness);
			expect(ids(after)).toEqual(ids(twitter).reverse());
		});

		test('a manual run shows the latest few posts and leaves the memory alone', async () => {
			const manual = trigger({ mode: 'manual', parameters: { options: { testPosts: 4 } } });
			const latest = fake.control.data.addPosts('Twitter', TERM, 4, 'hashtag');
			const shown = await emitted(manual);
			expect(ids(shown)).toEqual(ids(latest).reverse());
			expect(dataRequests()).toHaveLength(1);
			expect(manual.staticData).toEqual({});
		});

		test.each([
			[{ term: '  ' }, 'Term'],
			[{ platforms: ['Bluesky', 'Orkut'] }, 'Orkut'],
			[{ platforms: ['Reddit'], termType: 'hashtag' }, 'Invalid Term Type (platform Reddit): Reddit does not take hashtag terms'],
		])('refuses %j before any request', async (parameters, message) => {
			const harness = trigger({ parameters });
			await expect(harness.poll()).rejects.toThrow(message);
			expect(dataRequests()).toEqual([]);
		});
	});
});

test("a burst larger than the key's rate limit is read over the next polls: none dropped, no page bought twice, no 429", async () => {
	// The service allows 3 requests an "hour" of 3 s and tells it in its X-RateLimit-* headers; the credential says
	// nothing of it (SPEC.md's defaults), so the polls follow what the service tells.
	const HOUR_MS = 3000;
	fake.control.rateLimits.setWindowScale(HOUR_MS / 3_600_000);
	fake.control.rateLimits.set(fake.control.keys.owner, { requestsPerHour: 3, burstPerMinute: null });
	try {
		const harness = triggerHarness({
			node: { type: TYPE, parameters: { term: TERM, platforms: ['Twitter'], termType: 'hashtag', options: { maxPagesPerPoll: 10 } } },
			credentials: credentialsFor(fake),
			mode: 'trigger',
		});
		expect(await harness.poll()).toBeNull();
		const burst = fake.control.data.addPosts('Twitter', TERM, 100, 'hashtag');
		fake.control.requests.clear();

		const all: string[] = [];
		const perPoll: number[] = [];
		for (let poll = 0; poll < 8 && all.length < 100; poll++) {
			const before = dataRequests().length;
			all.push(...ids(await emitted(harness)));
			perPoll.push(dataRequests().length - before);
			// Half the polls come before the "hour" frees up.
			if (poll % 2 === 1) await new Promise((resolve) => setTimeout(resolve, HOUR_MS + 100));
		}
		expect(new Set(all)).toEqual(new Set(ids(burst)));
		expect(all).toHaveLength(100);
		expect(perPoll.every((count) => count <= 3)).toBe(true);
		expect(perPoll).toContain(0);
		expect(dataRequests().map((r) => r.status).filter((status) => status !== 200)).toEqual([]);
		const cursors = dataRequests().map((r) => String(r.query.cursor ?? 'first'));
		expect(new Set(cursors).size).toBe(cursors.length);
		expect(logLines.some((line) => /the key's rate limit allows 0 more requests now/.test(line.message))).toBe(true);
	} finally {
		fake.control.rateLimits.setWindowScale(1);
	}
}, 40_000);
