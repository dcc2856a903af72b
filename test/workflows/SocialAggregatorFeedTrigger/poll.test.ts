import { logLines, triggerHarness, type TriggerHarness, type TriggerMode } from '../harness';
import { SHAPES } from '../../fake-service';
import { credentialsFor, useFakeService } from '../support';

const TYPE = 'n8n-nodes-social-aggregator.socialAggregatorFeedTrigger';

// The service's rate limits stay on.
const fake = useFakeService({ port: 0, allowHttpWebhooks: true });

function trigger(feedIds: number[], options: { mode?: TriggerMode; parameters?: Record<string, unknown> } = {}): TriggerHarness {
	return triggerHarness({
		node: { type: TYPE, parameters: { feedIds: feedIds.map(String), simplify: false, options: {}, ...options.parameters } },
		credentials: credentialsFor(fake),
		mode: options.mode ?? 'trigger',
	});
}

type Post = Record<string, unknown>;
const feedRequests = (feedId?: number) =>
	fake.control.requests.list({ method: 'GET' }).filter((r) => /^\/feeds\/\d+\/posts$/.test(r.path) && (feedId === undefined || r.path === `/feeds/${feedId}/posts`));
const idsOf = (posts: Post[]) => posts.map((p) => Number(p.id));
const ascending = (ids: number[]) => [...ids].sort((a, b) => a - b);

async function emitted(harness: TriggerHarness): Promise<Post[]> {
	const result = await harness.poll();
	return result === null ? [] : result[0].map((item) => item.json);
}

function newFeed(posts = 30): number {
	return fake.control.seedFeed({ posts, sources: [{ platform: 'Twitter', term: '#feedpoll', term_type: 'hashtag' }] }).feedId;
}

/** Posts added to a feed now (a sync), their ids oldest first. */
function addPosts(feedId: number, count: number): number[] {
	return ascending(fake.control.syncFeed(feedId, { newPosts: count }).posts.map((p) => Number(p.id)));
}

beforeEach(() => {
	logLines.length = 0;
});

describe.each(SHAPES)('in the %s shape', (shapes) => {
	beforeEach(() => fake.control.setShapes(shapes));

	test('activation emits nothing; nothing new is one request; 250 new posts come over 3 pages, each once, oldest first; quiet again, page 1 and a sweep page', async () => {
		const feedId = newFeed();
		const harness = trigger([feedId]);
		fake.control.requests.clear();
		expect(await harness.poll()).toBeNull();
		expect(feedRequests()).toHaveLength(1);
		expect(feedRequests()[0].query).toEqual({ page: '1', per_page: '100' });

		fake.control.requests.clear();
		expect(await harness.poll()).toBeNull();
		expect(feedRequests()).toHaveLength(1);

		const added = addPosts(feedId, 250);
		fake.control.requests.clear();
		const burst = await emitted(harness);
		expect(idsOf(burst)).toEqual(added);
		expect(burst.every((p) => p.feed_id === feedId)).toBe(true);
		expect(feedRequests().map((r) => r.query.page)).toEqual(['1', '2', '3']);

		// Quiet again, 280 posts in the late window: page 1 (its count unchanged) and one page of the sweep.
		fake.control.requests.clear();
		expect(await harness.poll()).toBeNull();
		expect(feedRequests().map((r) => r.query.page)).toEqual(['1', '2']);
	});

	test('a post deleted and restored is not emitted again; one added after it is', async () => {
		const feedId = newFeed();
		const harness = trigger([feedId]);
		await harness.poll();
		const [first, second] = addPosts(feedId, 2);
		expect(idsOf(await emitted(harness))).toEqual([first, second]);

		fake.control.setPostStatus(second, 'deleted');
		expect(await harness.poll()).toBeNull();
		fake.control.setPostStatus(second, 'public');
		expect(await harness.poll()).toBeNull();
		const [third] = addPosts(feedId, 1);
		expect(idsOf(await emitted(harness))).toEqual([third]);
	});

	test('two feeds: each read once a poll, each post once, with its feed_id; the status filter is sent', async () => {
		const a = newFeed();
		const b = newFeed();
		const harness = trigger([a, b], { parameters: { status: 'public', simplify: true } });
		fake.control.requests.clear();
		expect(await harness.poll()).toBeNull();
		expect(feedRequests(a)).toHaveLength(1);
		expect(feedRequests(b)).toHaveLength(1);
		expect(feedRequests(b)[0].query).toEqual({ page: '1', per_page: '100', status: 'public' });

		const fromA = addPosts(a, 3);
		const fromB = addPosts(b, 2);
		const posts = await emitted(harness);
		expect(posts.map((p) => [p.feed_id, p.id])).toEqual([...fromA.map((id) => [a, id]), ...fromB.map((id) => [b, id])]);
		// Simplified like Post › Get Many, with the feed named.
		expect(Object.keys(posts[0])).toEqual(expect.arrayContaining(['id', 'feed_id', 'message', 'posted_at', 'poster_name']));
		expect(posts[0]).not.toHaveProperty('ai_moderation_reasoning');

		fake.control.requests.clear();
		expect(await harness.poll()).toBeNull();
		expect(feedRequests()).toHaveLength(2);
	});

	test('Fetch Test Event shows the newest posts, oldest first, and leaves the memory alone', async () => {
		const feedId = newFeed();
		const added = addPosts(feedId, 7);
		const manual = trigger([feedId], { mode: 'manual', parameters: { options: { testPosts: 4 } } });
		fake.control.requests.clear();
		expect(idsOf(await emitted(manual))).toEqual(added.slice(-4));
		expect(feedRequests()).toHaveLength(1);
		expect(manual.staticData).toEqual({});
	});
});

test('refuses a feed that is not an ID before any request; a missing feed is the service’s error', async () => {
	fake.control.requests.clear();
	await expect(trigger([]).poll()).rejects.toThrow('Choose at least one feed');
	await expect(
		triggerHarness({ node: { type: TYPE, parameters: { feedIds: ['abc'] } }, credentials: credentialsFor(fake), mode: 'trigger' }).poll(),
	).rejects.toThrow('"abc" is not a feed ID');
	expect(feedRequests()).toEqual([]);
	await expect(trigger([987654]).poll()).rejects.toThrow(/not found|404/i);
});

test("a burst the key's rate limit cannot read in one poll is read over the next polls: none dropped, none twice, each poll's oldest first, no 429", async () => {
	// The service allows 3 requests an "hour" of 3 s and tells it in its X-RateLimit-* headers.
	const HOUR_MS = 3000;
	fake.control.rateLimits.setWindowScale(HOUR_MS / 3_600_000);
	fake.control.rateLimits.set(fake.control.keys.owner, { requestsPerHour: 3, burstPerMinute: null });
	try {
		const feedId = newFeed();
		const harness = trigger([feedId]);
		expect(await harness.poll()).toBeNull();
		const burst = addPosts(feedId, 250);
		fake.control.requests.clear();

		const all: number[] = [];
		const perPoll: number[] = [];
		let later: number[] = [];
		for (let poll = 0; poll < 10 && all.length < 255; poll++) {
			const before = feedRequests().length;
			const batch = idsOf(await emitted(harness));
			// Each poll emits what it read, oldest first; the next polls read on below it.
			expect(batch).toEqual([...batch].sort((x, y) => x - y));
			all.push(...batch);
			perPoll.push(feedRequests().length - before);
			// Posts added while the burst is held push the held pages down.
			if (poll === 0) later = addPosts(feedId, 5);
			if (poll % 2 === 1) await new Promise((resolve) => setTimeout(resolve, HOUR_MS + 100));
		}
		expect([...all].sort((x, y) => x - y)).toEqual([...burst, ...later]);
		expect(perPoll.every((count) => count <= 3)).toBe(true);
		expect(perPoll).toContain(0);
		expect(feedRequests().map((r) => r.status).filter((status) => status !== 200)).toEqual([]);
		expect(logLines.some((line) => /more posts to read than this poll may/.test(line.message))).toBe(true);
	} finally {
		fake.control.rateLimits.setWindowScale(1);
		fake.control.rateLimits.clear();
	}
}, 40_000);
