import assert from 'node:assert/strict';

import type { Backend } from './backend';
import { waitFor } from './util';

/** Where the stand-in is: an e2e suite's context, or a backend of a test's own (queue mode). */
type WithBackend = { backend: Backend };
type Fake = NonNullable<Backend['fake']>;

/** A GET to the stand-in with the seeded owner's key; 200 asserted. */
export async function ownerGet<T>(ctx: WithBackend, apiPath: string): Promise<T> {
	const response = await fetch(`${ctx.backend.url}${apiPath}`, { headers: { Authorization: `Bearer ${ctx.backend.fake!.control.keys.owner}` } });
	assert.equal(response.status, 200, `GET ${apiPath}: ${response.status}`);
	return (await response.json()) as T;
}

/** A request to the service as the account's owner; its status. */
export async function ownerSend(ctx: WithBackend, method: 'PATCH' | 'POST', apiPath: string, body?: unknown): Promise<number> {
	const response = await fetch(`${ctx.backend.url}${apiPath}`, {
		method,
		headers: { Authorization: `Bearer ${ctx.backend.fake!.control.keys.owner}`, 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	await response.arrayBuffer();
	return response.status;
}

/** The webhook subscription at `url`, as the service lists it (the live service has no GET /webhooks/{id}). */
export async function subscriptionAt(ctx: WithBackend, url: string) {
	const { data } = await ownerGet<{ data: Array<{ id: number; url: string; status: string; consecutive_failures: number }> }>(ctx, '/webhooks?per_page=100');
	return data.find((subscription) => subscription.url === url);
}

/** A post the stand-in stored in a test. */
export interface Made {
	feedId: number;
	postId: number;
	/** Whether the service made a delivery of it (to the subscription asked about). */
	delivered: boolean;
	deliveryId?: string;
}

/** One post in one feed, two seconds after the last: its delivery (if any) was attempted (and retried) when this returns. */
export async function syncOne(fake: Fake, feed: { feedId: number; sourceId: number }, subscriptionId: number): Promise<Made> {
	fake.control.clock.advance(2000);
	const sync = fake.control.syncFeed(feed.feedId, { newPosts: 1, sourceId: feed.sourceId });
	await fake.control.webhooks.settle();
	const ours = fake.control.webhooks.deliveries({ webhookId: subscriptionId }).filter((d) => sync.deliveries.includes(d.id));
	return { feedId: feed.feedId, postId: Number(sync.posts[0].id), delivered: ours.length > 0, deliveryId: ours[0]?.id };
}

/** Attempts the nodes give a read that keeps failing with a 5xx (nodes/shared/retry.ts): the look back gives up after them. */
const READ_ATTEMPTS = 6;

/**
 * Feed pages (`path`, every feed's by default) answering 503 until removed, with `Retry-After` when given (the
 * service's say on how long to wait; none: the nodes' backoff). `givenUp()` waits until a read has spent its attempts.
 */
export function failingFeedPages(fake: Fake, options: { path?: string; retryAfterSeconds?: number } = {}) {
	const headers = options.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(options.retryAfterSeconds) };
	const id = fake.control.faults.add({ path: options.path ?? '/feeds/:id/posts', kind: 'error', status: 503, count: 'always', ...(headers ? { headers } : {}) });
	const hits = () => fake.control.faults.list().find((fault) => fault.id === id)?.hits ?? 0;
	return {
		hits,
		attempts: READ_ATTEMPTS,
		givenUp: async () =>
			await waitFor('the look back given up', () => (hits() >= READ_ATTEMPTS ? true : undefined), { timeoutMs: 90_000, intervalMs: 250 }),
		remove: () => fake.control.faults.remove(id),
	};
}
