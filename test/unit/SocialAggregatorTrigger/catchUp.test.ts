import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { catchUp, MAX_PAGES_READ, readGap } from '../../../nodes/SocialAggregatorTrigger/catchUp';
import { FeedListStub, ORDERS } from '../support/feedListStub';
import { CatchUpService } from '../support/catchUpService';
import { hookContext, type WebhookApiStub } from '../support/triggerStub';

const T0 = Date.parse('2026-01-10T12:00:00.000Z');
const at = (seconds: number) => T0 + seconds * 1000;
const iso = (seconds: number) => new Date(at(seconds)).toISOString();

/** Posts `from`..`to` of a feed, one a second from second `from`, newest first as the service lists them. */
function feedPosts(feed: number, from: number, to: number): IDataObject[] {
	const posts: IDataObject[] = [];
	for (let n = from; n <= to; n++) posts.push({ id: feed * 1000 + n, created_at: iso(n), message: `post ${n}` });
	return posts.reverse();
}

describe('catchUp against a service', () => {
	const kick = { id: 'kick', at: at(300) };
	const log = () => [
		{ id: 'ok', status: 'succeeded', created_at: iso(5) },
		{ id: 'f1', status: 'failed', created_at: iso(10) },
		{ id: 'f2', status: 'failed', created_at: iso(20) },
		{ id: 'kick', status: 'pending', created_at: iso(300) },
	];

	it('with a delivery log: the failed deliveries sent again, then the posts after the last failure, oldest first, over pages', async () => {
		const service = new CatchUpService(log(), { '1': feedPosts(1, 1, 250), '2': feedPosts(2, 15, 40) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: [] });
		expect(result.redelivered).toBe(2);
		// Each sent again once the log shows the one before sent (its pending entries asked for), oldest first.
		expect(service.requests.filter((r) => r.startsWith('POST') || r === 'GET /webhooks/1/deliveries').slice(1)).toEqual([
			'POST /webhooks/1/deliveries/f1/redeliver',
			'GET /webhooks/1/deliveries',
			'GET /webhooks/1/deliveries',
			'POST /webhooks/1/deliveries/f2/redeliver',
			'GET /webhooks/1/deliveries',
			'GET /webhooks/1/deliveries',
		]);
		const ids = result.deliveries.map((d) => (d.data?.posts as IDataObject[])[0].id);
		// Strictly after second 20 and before second 300: feed 1 posts 21..250, feed 2 posts 21..40, by time.
		expect(ids).toHaveLength(230 + 20);
		expect(ids.filter((id) => Number(id) < 2000)).toEqual(Array.from({ length: 230 }, (_, i) => 1021 + i));
		expect(ids.filter((id) => Number(id) >= 2000)).toEqual(Array.from({ length: 20 }, (_, i) => 2021 + i));
		expect(result.deliveries.map((d) => d.occurred_at)).toEqual([...result.deliveries.map((d) => d.occurred_at)].sort());
		// Feed 1 read over three pages, stopping at the page that reaches the gap's start, and page 1 once more to see
		// that no post was pinned or unpinned meanwhile; feed 2 in one.
		expect(service.requests.filter((r) => r.startsWith('GET /feeds/1/posts'))).toHaveLength(4);
		expect(result.notes).toEqual([]);
	});

	it('a delivery the disabling cut off mid-retry, left pending with its failed attempts: the gap after it read, it and the failed one sent again', async () => {
		const cutOff = [
			{ id: 'ok', status: 'succeeded', attempts: 1, response_status: 200, created_at: iso(5) },
			{ id: 'f1', status: 'failed', attempts: 6, response_status: null, created_at: iso(10) },
			// The 10th failed attempt in a row disabled the subscription during this delivery's retries: never tried again.
			{ id: 'cut', status: 'pending', attempts: 4, response_status: null, next_attempt_at: null, created_at: iso(20) },
			{ id: 'kick', status: 'pending', attempts: 0, response_status: null, created_at: iso(300) },
		];
		const service = new CatchUpService(cutOff, { '1': feedPosts(1, 1, 30) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: [] });
		expect(service.requests.filter((r) => r.startsWith('POST'))).toEqual(['POST /webhooks/1/deliveries/f1/redeliver', 'POST /webhooks/1/deliveries/cut/redeliver']);
		expect(result.redelivered).toBe(2);
		expect(result.deliveries.map((d) => (d.data?.posts as IDataObject[])[0].id)).toEqual(Array.from({ length: 10 }, (_, i) => 1021 + i));
	});

	it('a look back on a subscription that was delivering: one request for the log\'s newest page, nothing else', async () => {
		const busy = Array.from({ length: 250 }, (_, n) => ({ id: `d${n}`, status: n === 3 ? 'failed' : 'succeeded', created_at: iso(n) }));
		const service = new CatchUpService([...busy, { id: 'kick', status: 'pending', created_at: iso(300) }], { '1': feedPosts(1, 1, 30) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: [] });
		expect(result).toEqual({ deliveries: [], redelivered: 0, notes: [] });
		expect(service.requests).toEqual(['GET /webhooks/1/deliveries']);
	});

	it('posts the delivery that looks back carries itself are not read as the gap\'s', async () => {
		const service = new CatchUpService(log(), { '1': feedPosts(1, 1, 30) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: ['1'], delivered: new Set(['1:1029', '1:1030']) });
		expect(result.deliveries.map((d) => (d.data?.posts as IDataObject[])[0].id)).toEqual(Array.from({ length: 8 }, (_, i) => 1021 + i));
	});

	it('a trigger that lets no post.created through: the failed deliveries sent again, no feed read', async () => {
		const service = new CatchUpService(log(), { '1': feedPosts(1, 1, 30) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: [], readPosts: false });
		expect(result).toMatchObject({ deliveries: [], redelivered: 2 });
		expect(service.requests.filter((r) => r.includes('/feeds'))).toEqual([]);
	});

	it('only the chosen feeds are read', async () => {
		const service = new CatchUpService(log(), { '1': feedPosts(1, 1, 30), '2': feedPosts(2, 1, 30) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: ['2'] });
		expect(new Set(result.deliveries.map((d) => (d.data?.feed as IDataObject).id))).toEqual(new Set([2]));
		expect(service.requests).not.toContain('GET /feeds');
	});

	it('a service that keeps no delivery log (404): nothing sent again, nothing read, and a note says why', async () => {
		const service = new CatchUpService(undefined, { '1': feedPosts(1, 1, 30) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: [] });
		expect(result).toEqual({ deliveries: [], redelivered: 0, notes: [expect.stringContaining('keeps no delivery log')] });
		expect(service.requests).toEqual(['GET /webhooks/1/deliveries']);
	});

	it('a gap longer than the span is read from the span\'s start, and a note says so', async () => {
		const service = new CatchUpService(log(), { '1': feedPosts(1, 1, 60) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const spanDays = (1 / 86_400) * 265; // 265 seconds before the kick: second 35
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays, feedIds: ['1'] });
		expect(result.redelivered).toBe(0);
		expect(result.deliveries.map((d) => (d.data?.posts as IDataObject[])[0].id)).toEqual(Array.from({ length: 25 }, (_, i) => 1036 + i));
		expect(result.notes).toEqual([expect.stringContaining('before the catch-up span')]);
	});

	it.each(ORDERS)('%s: every post of the gap once, with a pinned post and 5 posts stored 3 hours after they were published', async (order) => {
		const feed = new FeedListStub(order);
		feed.pin(feed.history(300)[2]);
		const stopped = feed.now;
		const added = [...feed.add(150), ...feed.add(5, 3 * 3_600_000)];
		const gapLog = [
			{ id: 'ok', status: 'succeeded', created_at: new Date(stopped - 60_000).toISOString() },
			{ id: 'f1', status: 'failed', created_at: new Date(stopped).toISOString() },
			{ id: 'kick', status: 'pending', created_at: new Date(feed.now + 1000).toISOString() },
		];
		const service = new CatchUpService(gapLog, { '7': feed.listed() });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, {
			subscriptionId: '1',
			kick: { id: 'kick', at: feed.now + 1000 },
			spanDays: 7,
			feedIds: ['7'],
		});
		expect(result.deliveries.map((d) => (d.data?.posts as IDataObject[])[0].id)).toEqual(added);
		expect(result.notes).toEqual([]);
	});

	const postIds = (deliveries: Array<{ data?: IDataObject }>) => deliveries.map((d) => Number((d.data?.posts as IDataObject[])[0].id));

	it('a gap longer than a look back reads: the posts read are given, the rest read on by the next look back from where it stopped, each once', async () => {
		// 60 pages of posts in the gap of feed 1 (seconds 21..6020), one short feed after it.
		const longLog = [
			{ id: 'f1', status: 'failed', created_at: iso(20) },
			{ id: 'kick', status: 'pending', created_at: iso(7000) },
		];
		const service = new CatchUpService(longLog, { '1': feedPosts(1, 1, 6020), '2': feedPosts(2, 21, 30) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const request = { subscriptionId: '1', kick: { id: 'kick', at: at(7000) }, spanDays: 7, feedIds: [] };
		const first = await catchUp(context as unknown as IExecuteFunctions, request);
		expect(service.requests.filter((r) => r.startsWith('GET /feeds/1/posts'))).toHaveLength(MAX_PAGES_READ);
		expect(first.deliveries).toHaveLength(MAX_PAGES_READ * 100 + 10);
		expect(first.unread).toMatchObject({ feeds: [{ feed: { id: 1 }, held: { nextPage: MAX_PAGES_READ + 1 } }] });
		expect(first.unread?.error).toBeUndefined();
		expect(first.notes).toEqual([]);

		service.requests = [];
		const rest = await readGap(context as unknown as IExecuteFunctions, request, first.unread!);
		// The page read last is read again (to see whether the list moved), then the 11 pages left (the last reaches
		// posts before the gap); the other feed not again.
		expect(service.requests).toEqual(Array.from({ length: 12 }, () => 'GET /feeds/1/posts'));
		expect(rest.unread).toBeUndefined();
		const all = [...first.deliveries, ...rest.deliveries];
		const ofFeed = (feedId: number) => postIds(all.filter((d) => (d.data?.feed as IDataObject).id === feedId)).sort((a, b) => a - b);
		expect(ofFeed(1)).toEqual(Array.from({ length: 6000 }, (_, i) => 1021 + i));
		expect(ofFeed(2)).toEqual(Array.from({ length: 10 }, (_, i) => 2021 + i));
	});

	it('a feed that fails: the feeds read before it are given, it and the rest are left for the next look back with the error', async () => {
		const service = new CatchUpService(log(), { '1': feedPosts(1, 1, 30), '2': feedPosts(2, 1, 30), '3': feedPosts(3, 1, 30) });
		const handle = service.handle.bind(service);
		service.handle = async (options) => {
			if (String(options.url).includes('/feeds/2/posts')) return { statusCode: 400, headers: {}, body: { error: { code: 'bad_request', message: 'Refused' } } };
			return await handle(options);
		};
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: [] });
		expect(postIds(result.deliveries)).toEqual(Array.from({ length: 10 }, (_, i) => 1021 + i));
		expect(result.unread?.feeds?.map((pending) => pending.feed.id)).toEqual([2, 3]);
		expect(result.unread?.error).toBeInstanceOf(Error);
	});

	describe('a look back that meets an error after it found the gap keeps what it found: the next try finishes it', () => {
		const gapIds = Array.from({ length: 10 }, (_, i) => 1021 + i);
		/** The service with one failure injected: `when` answers an error (not retried), once. */
		const failing = (when: (method: string, path: string, posted: number) => boolean, status: number) => {
			const service = new CatchUpService(log(), { '1': feedPosts(1, 1, 30) });
			const handle = service.handle.bind(service);
			let posted = 0;
			let failed = false;
			service.handle = async (options) => {
				const method = String(options.method ?? 'GET');
				const path = new URL(String(options.url)).pathname.replace(/^\/v1/, '');
				if (!failed && when(method, path, posted)) {
					failed = true;
					return { statusCode: status, headers: {}, body: { error: { code: 'server_error', message: 'Unavailable' } } };
				}
				if (method === 'POST') posted++;
				return await handle(options);
			};
			return service;
		};
		const request = { subscriptionId: '1', kick, spanDays: 7, feedIds: ['1'] };

		it('a redelivery answered 5xx (a POST is not retried): it and the rest are sent by the next try, which reads the gap', async () => {
			const service = failing((method, path) => method === 'POST' && path.includes('/f2/'), 503);
			const { context } = hookContext({ api: service as unknown as WebhookApiStub });
			const first = await catchUp(context as unknown as IExecuteFunctions, request);
			expect(first).toMatchObject({ deliveries: [], redelivered: 1, unread: { spans: [{ after: at(20), before: at(300) }], redeliver: ['f2'] } });
			expect(first.unread?.error).toBeInstanceOf(Error);
			service.requests = [];
			const rest = await readGap(context as unknown as IExecuteFunctions, request, first.unread!);
			expect(service.requests.filter((r) => r.startsWith('POST'))).toEqual(['POST /webhooks/1/deliveries/f2/redeliver']);
			expect(rest.redelivered).toBe(1);
			expect(postIds(rest.deliveries)).toEqual(gapIds);
			expect(rest.unread).toBeUndefined();
		});

		it('the log read after the last redelivery fails: the gap stays found, and the next try reads it', async () => {
			const service = failing((method, path, posted) => method === 'GET' && path.endsWith('/deliveries') && posted === 2, 400);
			const { context } = hookContext({ api: service as unknown as WebhookApiStub });
			const first = await catchUp(context as unknown as IExecuteFunctions, request);
			expect(first).toMatchObject({ deliveries: [], redelivered: 2, unread: { spans: [{ after: at(20), before: at(300) }], redeliver: ['f2'] } });
			const rest = await readGap(context as unknown as IExecuteFunctions, request, first.unread!);
			expect(postIds(rest.deliveries)).toEqual(gapIds);
			expect(rest.unread).toBeUndefined();
		});
	});

	it('with Max Age: failed deliveries too old to be accepted are not sent again; the posts each carried are read from the feed, none a delivery that went through carried', async () => {
		// f1 and f2 failed hours before now (Max Age 60 min); ok2 between them went through with posts 16..20.
		const maxAgeLog = [
			{ id: 'ok', status: 'succeeded', created_at: iso(5) },
			{ id: 'f1', status: 'failed', created_at: iso(10) },
			{ id: 'ok2', status: 'succeeded', created_at: iso(20) },
			{ id: 'f2', status: 'failed', created_at: iso(25) },
			{ id: 'kick', status: 'pending', created_at: iso(300) },
		];
		const service = new CatchUpService(maxAgeLog, { '1': feedPosts(1, 1, 40) });
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: [], maxAgeMinutes: 60 });
		expect(service.requests.filter((r) => r.startsWith('POST'))).toEqual([]);
		expect(result.redelivered).toBe(0);
		// f1's posts 6..10, f2's 21..25, the gap's after f2: 26..40.
		expect(postIds(result.deliveries)).toEqual([...[6, 7, 8, 9, 10], ...Array.from({ length: 20 }, (_, i) => 21 + i)].map((n) => 1000 + n));
		expect(result.notes).toEqual([expect.stringContaining('older than Max Age (60 min) were not sent again')]);
	});

	describe.each(['platformPinnedFirst', 'storedPinnedFirst'] as const)('%s: a post pinned or unpinned while the gap is read (the count the same)', (order) => {
		/** A feed with history, one old post pinned (listed first), then 250 posts in the gap; the log around them. */
		const setUp = () => {
			const feed = new FeedListStub(order);
			const history = feed.history(300);
			feed.pin(history[2]);
			const stopped = feed.now;
			const added = feed.add(250);
			const gapLog = [
				{ id: 'f1', status: 'failed', created_at: new Date(stopped).toISOString() },
				{ id: 'kick', status: 'pending', created_at: new Date(feed.now + 1000).toISOString() },
			];
			const service = new CatchUpService(gapLog, { '7': () => feed.listed() });
			const request = { subscriptionId: '1', kick: { id: 'kick', at: feed.now + 1000 }, spanDays: 7, feedIds: ['7'] };
			return { feed, history, added, service, request };
		};

		it('the pinned post unpinned right after page 1 was read: every post of the gap once', async () => {
			const { feed, history, added, service, request } = setUp();
			service.beforeFeedPage = (answered) => answered === 1 && feed.pin(history[2], false);
			const { context } = hookContext({ api: service as unknown as WebhookApiStub });
			const result = await catchUp(context as unknown as IExecuteFunctions, request);
			expect(postIds(result.deliveries)).toEqual(added);
		});

		it('a post of the gap on page 3 pinned right after page 1 was read: every post of the gap once', async () => {
			const { feed, added, service, request } = setUp();
			service.beforeFeedPage = (answered) => answered === 1 && feed.pin(added[20]);
			const { context } = hookContext({ api: service as unknown as WebhookApiStub });
			const result = await catchUp(context as unknown as IExecuteFunctions, request);
			expect(postIds(result.deliveries)).toEqual(added);
		});
	});
});

describe.each([
	{ order: 'newest', statusFilter: 'honoured' },
	{ order: 'newest', statusFilter: 'ignored' },
	{ order: 'oldest', statusFilter: 'honoured' },
	{ order: 'oldest', statusFilter: 'ignored' },
] as const)('a delivery log listed $order first, its status filter $statusFilter (neither is documented)', (shape) => {
	/** 250 deliveries that went through, one a second, then two that failed while n8n was away; the kick after. */
	const busyLog = (): IDataObject[] => [
		...Array.from({ length: 250 }, (_, n) => ({ id: `d${n}`, status: 'succeeded', created_at: iso(n) })),
		{ id: 'f1', status: 'failed', created_at: iso(400) },
		{ id: 'f2', status: 'failed', created_at: iso(410) },
		{ id: 'kick', status: 'pending', created_at: iso(1000) },
	];
	const kick = { id: 'kick', at: at(1000) };
	const logReads = (service: CatchUpService) => service.requests.filter((r) => r === 'GET /webhooks/1/deliveries').length;

	it('a gap after 250 deliveries: both failures sent again, the gap\'s posts read, the log read in a bounded number of pages', async () => {
		const posts = Array.from({ length: 30 }, (_, n) => ({ id: 1000 + n, created_at: iso(405 + n * 10) })).reverse();
		const service = new CatchUpService(busyLog(), { '1': posts });
		service.logShape = shape;
		const { context } = hookContext({ api: service as unknown as WebhookApiStub });
		const result = await catchUp(context as unknown as IExecuteFunctions, { subscriptionId: '1', kick, spanDays: 7, feedIds: ['1'] });
		expect(result.redelivered).toBe(2);
		// Stored after the newest failure (second 410) and before the kick (second 1000).
		expect(result.deliveries.map((d) => (d.data?.posts as IDataObject[])[0].id)).toEqual(Array.from({ length: 59 }, (_, n) => 1001 + n).filter((id) => id < 1030));
		// The whole log once (3 pages), then each redelivery polled from the page it was found on: a few pages each.
		expect(logReads(service)).toBeLessThanOrEqual(3 + 2 * 2 * 3);
	});
});
