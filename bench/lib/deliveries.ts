/**
 * B4's client: signed `post.created` deliveries POSTed to an n8n webhook URL by a fixed
 * number of concurrent senders, each waiting for its answer before sending the next, like
 * a service with that many delivery workers. The throughput counts a delivery once n8n has
 * answered it and its execution has finished (n8n's own record of it).
 */
import { createHmac } from 'node:crypto';

import type { N8n } from '../../test/e2e/lib/n8n';
import { executionPage } from './harness';

export interface DeliveryBlock {
	deliveries: number;
	/** answers other than 200 */
	failed: number;
	/** ms from the first send until every delivery was answered */
	answeredMs: number;
	/** ms from the first send until the last execution of the block stopped */
	processedMs: number;
	/** executions the block added, and how many of them succeeded */
	executions: number;
	succeeded: number;
	perSecond: number;
}

export interface DeliveryTarget {
	url: string;
	workflowId: string;
	/** the subscription secret (signs `X-Service-Signature`); plain webhooks get the header too */
	secret: string;
}

let sequence = 0;

/** A `post.created` body as the service sends it, with a delivery id never used before. */
export function deliveryBody(post: Record<string, unknown>): string {
	sequence++;
	return JSON.stringify({
		id: `dlv_bench_${process.pid}_${sequence}`,
		event: 'post.created',
		occurred_at: new Date().toISOString(),
		data: { feed: { id: post.feed_id, name: 'Bench feed' }, source: { id: post.source_id }, posts: [post] },
	});
}

export function sign(secret: string, body: string): string {
	return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Sends `count` signed deliveries at `concurrency` and waits for their executions. */
export async function deliverBlock(
	n8n: N8n,
	target: DeliveryTarget,
	post: Record<string, unknown>,
	{ count, concurrency }: { count: number; concurrency: number },
): Promise<DeliveryBlock> {
	const before = (await executionPage(n8n, target.workflowId, 1)).count;
	const failuresBefore = await failedRuns(n8n, target.workflowId);
	const bodies = Array.from({ length: count }, () => deliveryBody(post));
	const signatures = bodies.map((body) => sign(target.secret, body));
	let next = 0;
	let failed = 0;
	const started = Date.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) {
				const index = next++;
				const response = await fetch(target.url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'X-Service-Signature': signatures[index] },
					body: bodies[index],
				});
				await response.arrayBuffer();
				if (response.status !== 200) failed++;
			}
		}),
	);
	const answeredMs = Date.now() - started;

	// Every delivery that was answered 200 runs the workflow once; wait until the last has stopped.
	const deadline = Date.now() + 300_000;
	for (;;) {
		const page = await executionPage(n8n, target.workflowId, 50);
		const added = page.count - before;
		const unfinished = page.results.some((execution) => !execution.stoppedAt || ['new', 'running'].includes(execution.status));
		if ((added >= count - failed && !unfinished) || Date.now() > deadline) {
			const recent = page.results.slice(0, Math.min(added, page.results.length));
			const lastStop = Math.max(started, ...recent.map((execution) => Date.parse(execution.stoppedAt ?? '')).filter(Number.isFinite));
			const successes = added - ((await failedRuns(n8n, target.workflowId)) - failuresBefore);
			const processedMs = lastStop - started;
			return {
				deliveries: count,
				failed,
				answeredMs,
				processedMs,
				executions: added,
				succeeded: successes,
				perSecond: count / (Math.max(processedMs, answeredMs) / 1000),
			};
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** Executions of a workflow that did not succeed. */
async function failedRuns(n8n: N8n, workflowId: string): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status: ['error', 'crashed', 'canceled'] }));
	return (await n8n.rest<{ count: number }>('GET', `/rest/executions?filter=${filter}&limit=1`)).count;
}
