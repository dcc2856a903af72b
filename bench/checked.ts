/**
 * B4, checked: the Social Aggregator Trigger against what a user builds instead to check the
 * service's signatures with n8n's own nodes: a Webhook node keeping the raw body, a Crypto node
 * computing the HMAC-SHA256 of that raw body with the secret, and an IF node comparing
 * `sha256=<hex>` with the X-Service-Signature header. On both sides the node after the check
 * (an HTTP Request with the delivery id in its query) is the side effect counted at the service.
 *
 * The stream: `deliveries` signed deliveries, 10% of them sent again later (a retry: the same
 * bytes), and 5% forged ones (a wrong signature), sent by `concurrency` senders. In queue mode the
 * deliveries alternate between webhook processes A and B, and a retry goes to the other one.
 * Counted: deliveries per second until the last execution stopped, forged deliveries acted on,
 * deliveries acted on more than once, and deliveries never acted on.
 */
import { randomUUID } from 'node:crypto';

import { QueueCluster } from '../test/e2e/lib/queue';
import { startBackend } from '../test/e2e/lib/backend';
import { node, webhookPath, workflow, type CredentialRef, type WorkflowSpec } from '../test/e2e/lib/workflow';
import type { FakeService } from '../test/fake-service';
import { deliveryBody, sign } from './lib/deliveries';
import { executionPage, type BenchN8n } from './lib/harness';
import type { N8n } from '../test/e2e/lib/n8n';
import { integer as count, ratio } from './lib/stats';
import { yes, type Row } from './lib/table';
import { HTTP_REQUEST_VERSION } from './workflows';

type Json = Record<string, unknown>;

const MARK = 'bench_delivery';

/** The side effect: one request carrying the delivery id. */
export function marker(idExpression: string, refs: { bearer: CredentialRef; baseUrl: string }) {
	return node(
		'n8n-nodes-base.httpRequest',
		{
			url: `${refs.baseUrl}/account`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpBearerAuth',
			sendQuery: true,
			queryParameters: { parameters: [{ name: MARK, value: idExpression }] },
			options: {},
		},
		{ name: 'Act', typeVersion: HTTP_REQUEST_VERSION, credentials: { httpBearerAuth: refs.bearer } },
	);
}

/** The Trigger (version 2 unless `typeVersion` says otherwise) → Act. */
export function oursChecked(refs: { bearer: CredentialRef; baseUrl: string }, name = 'B4c Social Aggregator Trigger', typeVersion = 2): WorkflowSpec {
	return workflow(name, [marker('={{ $json.event_id }}', refs)], {
		first: node('socialAggregatorTrigger', { events: ['post.created'], options: { allowHttp: true } }, { name: 'On New Posts', typeVersion }),
	});
}

/** What a user builds: Webhook (raw body) → Crypto (HMAC of the raw body) → IF (signature matches) → Act. */
export function handBuilt(refs: { bearer: CredentialRef; baseUrl: string }, secret: string, path: string, name = 'B4c Webhook + Crypto + IF'): WorkflowSpec {
	return workflow(
		name,
		[
			node(
				'n8n-nodes-base.crypto',
				{ action: 'hmac', binaryData: true, binaryPropertyName: 'data', type: 'SHA256', dataPropertyName: 'hmac', secret, encoding: 'hex' },
				{ name: 'HMAC of Raw Body', typeVersion: 1 },
			),
			node(
				'n8n-nodes-base.if',
				{
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
						conditions: [
							{
								id: randomUUID(),
								leftValue: "={{ 'sha256=' + $json.hmac === $json.headers['x-service-signature'] }}",
								rightValue: '',
								operator: { type: 'boolean', operation: 'true', singleValue: true },
							},
						],
						combinator: 'and',
					},
					options: {},
				},
				{ name: 'Signature Valid?', typeVersion: 2.2 },
			),
			marker('={{ $json.body.id }}', refs),
		],
		{
			first: {
				type: 'n8n-nodes-base.webhook',
				name: 'Webhook',
				typeVersion: 2.1,
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: { rawBody: true } },
			},
		},
	);
}

interface Stream {
	bodies: string[];
	/** indexes into bodies, in sending order; an index twice is a retry */
	order: Array<{ index: number; retry: boolean }>;
	forged: Set<number>;
}

/** `n` deliveries, 10% retried later (the same bytes), 5% forged, in a fixed pseudo-random order. */
export function deliveryStream(post: Json, n: number): Stream {
	const forgedCount = Math.round(n * 0.05);
	const bodies = Array.from({ length: n + forgedCount }, () => deliveryBody(post));
	const forged = new Set(Array.from({ length: forgedCount }, (_, i) => n + i));
	let seed = 42;
	const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
	const order: Stream['order'] = [];
	for (let index = 0; index < bodies.length; index++) order.push({ index, retry: false });
	// forged ones spread over the stream
	order.sort(() => random() - 0.5);
	const retries = Array.from({ length: Math.round(n * 0.1) }, () => Math.floor(random() * n));
	for (const index of retries) {
		const first = order.findIndex((entry) => entry.index === index);
		const at = Math.min(order.length, first + 1 + Math.floor(random() * 200));
		order.splice(at, 0, { index, retry: true });
	}
	return { bodies, order, forged };
}

export interface CheckedResult {
	sent: number;
	perSecond: number;
	forgedActed: number;
	duplicates: number;
	missing: number;
	notAnswered: number;
	/** sends tried again after the connection failed */
	resent: number;
}

/** Sends a stream to `urls` (delivery i to urls[i % n], a retry to the next) and counts what was acted on. */
export async function sendStream(
	n8n: N8n,
	fake: FakeService,
	workflowId: string,
	urls: string[],
	stream: Stream,
	secret: string,
	concurrency: number,
): Promise<CheckedResult> {
	fake.control.requests.clear();
	const target = (index: number, retry: boolean) => urls[(index + (retry ? 1 : 0)) % urls.length];
	let next = 0;
	let notAnswered = 0;
	let resent = 0;
	const started = Date.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < stream.order.length) {
				const { index, retry } = stream.order[next++];
				const body = stream.bodies[index];
				const signature = stream.forged.has(index) ? sign(`${secret}-forged`, body) : sign(secret, body);
				// A connection that fails is tried again with the same bytes, as the service does.
				let status: number | undefined;
				for (let attempt = 0; attempt < 3 && status === undefined; attempt++) {
					try {
						const response = await fetch(target(index, retry), {
							method: 'POST',
							headers: { 'content-type': 'application/json', 'X-Service-Signature': signature },
							body,
						});
						await response.arrayBuffer();
						status = response.status;
					} catch {
						resent++;
					}
				}
				if (status !== 200 && !(stream.forged.has(index) && status === 401)) notAnswered++;
			}
		}),
	);
	// Until every execution has stopped and the count holds for a second.
	let last = -1;
	let lastStop = started;
	for (let stable = 0; stable < 4; ) {
		await new Promise((resolve) => setTimeout(resolve, 250));
		const page = await executionPage(n8n, workflowId, 100);
		const unfinished = page.results.some((execution) => !execution.stoppedAt || ['new', 'running'].includes(execution.status));
		if (!unfinished && page.count === last) stable++;
		else stable = 0;
		last = page.count;
		const stops = page.results.map((execution) => Date.parse(execution.stoppedAt ?? '')).filter(Number.isFinite);
		if (stops.length > 0) lastStop = Math.max(lastStop, ...stops);
	}
	const acted = new Map<string, number>();
	for (const request of fake.control.requests.list({ method: 'GET', path: '/account' })) {
		const id = (request.query as Record<string, unknown>)[MARK];
		if (typeof id === 'string') acted.set(id, (acted.get(id) ?? 0) + 1);
	}
	const idOf = (index: number) => (JSON.parse(stream.bodies[index]) as { id: string }).id;
	let forgedActed = 0;
	let duplicates = 0;
	let missing = 0;
	stream.bodies.forEach((_, index) => {
		const times = acted.get(idOf(index)) ?? 0;
		if (stream.forged.has(index)) forgedActed += times > 0 ? 1 : 0;
		else if (times === 0) missing++;
		else if (times > 1) duplicates++;
	});
	const seconds = (lastStop - started) / 1000;
	return { sent: stream.order.length, perSecond: stream.order.length / seconds, forgedActed, duplicates, missing, notAnswered, resent };
}

export function checkedRows(caseLabel: string, ours: CheckedResult, theirs: CheckedResult, queue: boolean): Row[] {
	const describe = (r: CheckedResult) =>
		`${count(r.forgedActed)} forged acted on, ${count(r.duplicates)} acted on twice, ${count(r.missing)} never, ${count(r.notAnswered)} not answered${r.resent ? `, ${count(r.resent)} resent after a failed connection` : ''}`;
	const relative = ours.perSecond / theirs.perSecond;
	const clean = ours.forgedActed === 0 && ours.duplicates === 0 && ours.missing === 0 && ours.notAnswered === 0;
	return [
		{
			case: caseLabel,
			side: queue ? 'Social Aggregator Trigger (queue mode)' : 'Social Aggregator Trigger',
			requests: count(ours.sent),
			time: `${ours.perSecond.toFixed(1)}/s`,
			result: describe(ours),
			ratio: `${ratio(relative)} of hand-built`,
			target: '≥0.9x, 0 forged, 0 twice',
			met: yes(relative >= 0.9 && clean),
		},
		{
			case: caseLabel,
			side: queue ? 'Webhook + Crypto + IF (queue mode)' : 'Webhook + Crypto + IF',
			requests: count(theirs.sent),
			time: `${theirs.perSecond.toFixed(1)}/s`,
			result: describe(theirs),
			ratio: '1.00x',
			target: '',
			met: '',
		},
	];
}

/**
 * The single-process comparison in the benchmark's running n8n: both workflows imported and published here.
 * With `steadyAfter` above `deliveries`, the Trigger is then given more fresh deliveries (not measured)
 * until it remembers `steadyAfter`, and the comparison runs again: the ratio at steady state.
 */
export async function runChecked(
	ctx: BenchN8n,
	settings: { deliveries: number; deliveryConcurrency: number; progress: (message: string) => void; steadyAfter?: number },
): Promise<Row[]> {
	const refs = { bearer: ctx.bearer, baseUrl: ctx.backend.url };
	const ours = oursChecked(refs);
	const oursId = await ctx.n8n.importWorkflow(ours);
	await ctx.n8n.publish(oursId);
	const oursPath = webhookPath(ours, 'On New Posts');
	await ctx.n8n.waitForWebhook(oursPath);
	const { secret, post } = await subscriptionSecret(ctx.backend.url, ctx.backend.apiKey, ctx.fake, ctx.n8n.webhookUrl(oursPath));
	const theirs = handBuilt(refs, secret, 'bench-b4-checked');
	const theirsId = await ctx.n8n.importWorkflow(theirs);
	await ctx.n8n.publish(theirsId);
	await ctx.n8n.waitForWebhook('bench-b4-checked');
	const oursResult = await sendStream(ctx.n8n, ctx.fake, oursId, [ctx.n8n.webhookUrl(oursPath)], deliveryStream(post, settings.deliveries), secret, settings.deliveryConcurrency);
	settings.progress(`B4 checked, Trigger: ${JSON.stringify(oursResult)}`);
	const theirsResult = await sendStream(ctx.n8n, ctx.fake, theirsId, [ctx.n8n.webhookUrl('bench-b4-checked')], deliveryStream(post, settings.deliveries), secret, settings.deliveryConcurrency);
	settings.progress(`B4 checked, Webhook + Crypto + IF: ${JSON.stringify(theirsResult)}`);
	const label = `${count(settings.deliveries)} signed deliveries + 10% retried + 5% forged, ${settings.deliveryConcurrency} at once`;
	const rows = checkedRows(`B4 checked: ${label}`, oursResult, theirsResult, false);
	const fill = (settings.steadyAfter ?? 0) - settings.deliveries;
	if (fill <= 0) return rows;
	const send = (workflowId: string, url: string, n: number) =>
		sendStream(ctx.n8n, ctx.fake, workflowId, [url], deliveryStream(post, n), secret, settings.deliveryConcurrency);
	settings.progress(`B4 checked: ${fill} more deliveries to the Trigger, so that it remembers ${settings.steadyAfter}`);
	const filled = await send(oursId, ctx.n8n.webhookUrl(oursPath), fill);
	if (filled.missing > 0 || filled.duplicates > 0) throw new Error(`B4 checked: filling the Trigger's memory lost or repeated deliveries: ${JSON.stringify(filled)}`);
	const oursSteady = await send(oursId, ctx.n8n.webhookUrl(oursPath), settings.deliveries);
	settings.progress(`B4 checked at steady state, Trigger: ${JSON.stringify(oursSteady)}`);
	const theirsSteady = await send(theirsId, ctx.n8n.webhookUrl('bench-b4-checked'), settings.deliveries);
	settings.progress(`B4 checked at steady state, Webhook + Crypto + IF: ${JSON.stringify(theirsSteady)}`);
	return [
		...rows,
		...checkedRows(`B4 checked at steady state (the Trigger remembering ${count(settings.steadyAfter ?? 0)}): ${label}`, oursSteady, theirsSteady, false),
	];
}

export async function subscriptionSecret(baseUrl: string, apiKey: string, fake: FakeService, triggerUrl: string): Promise<{ secret: string; post: Json }> {
	const headers = { Authorization: `Bearer ${apiKey}` };
	const subscriptions = (await (await fetch(`${baseUrl}/webhooks?per_page=100`, { headers })).json()) as { data: Array<{ id: number; url: string }> };
	const subscription = subscriptions.data.find((entry) => entry.url === triggerUrl);
	if (!subscription) throw new Error(`B4: the Trigger did not subscribe ${triggerUrl} with the service`);
	const secret = fake.control.webhooks.secret(subscription.id);
	const post = ((await (await fetch(`${baseUrl}/feeds/1/posts?per_page=1`, { headers })).json()) as { data: Json[] }).data[0];
	return { secret, post };
}

/** The same comparison in queue mode: its own PostgreSQL, Redis, main, 2 workers, webhook processes A and B. */
export async function runCheckedInQueue(settings: { deliveries: number; deliveryConcurrency: number; progress: (message: string) => void }): Promise<Row[]> {
	const backend = await startBackend({ allowHttpWebhooks: true, limits: { enabled: false } });
	const fake = backend.fake!;
	const cluster = await QueueCluster.create({ logLevel: 'info', env: { EXECUTIONS_DATA_PRUNE: 'false' } });
	try {
		const n8n = cluster.n8n;
		n8n.redactor.add(backend.apiKey);
		await n8n.importCredential({ name: 'Social Aggregator (bench)', data: { apiKey: backend.apiKey, baseUrl: backend.url } });
		const bearer = await n8n.importCredential({ name: 'Bearer (bench)', type: 'httpBearerAuth', data: { token: backend.apiKey } });
		const refs = { bearer, baseUrl: backend.url };
		const ours = oursChecked(refs);
		const oursId = await n8n.importWorkflow(ours);
		await n8n.publish(oursId);
		await cluster.startMain({ published: [oursId] });
		await Promise.all([cluster.startProcess('worker', 1), cluster.startProcess('worker', 2), cluster.startProcess('webhook', 1), cluster.startProcess('webhook', 2)]);
		const oursPath = webhookPath(ours, 'On New Posts');
		const { secret, post } = await subscriptionSecret(backend.url, backend.apiKey, fake, cluster.webhookUrl(oursPath, 1));
		// The hand-built side holds the same secret in its Crypto node, as a user would paste it.
		const theirs = handBuilt(refs, secret, 'bench-b4-checked');
		const theirsId = await n8n.importWorkflow(theirs);
		await n8n.publish(theirsId);
		for (const index of [1, 2]) {
			for (const url of [cluster.webhookUrl(oursPath, index), cluster.webhookUrl('bench-b4-checked', index)]) {
				// A webhook process knows a workflow once it answers anything but 404 (an unsigned POST: 401 or 200).
				const deadline = Date.now() + 60_000;
				for (;;) {
					const status = (await fetch(url, { method: 'POST', body: '{}' }).catch(() => undefined))?.status;
					if (status !== undefined && status !== 404) break;
					if (Date.now() > deadline) throw new Error(`${url} never answered`);
					await new Promise((resolve) => setTimeout(resolve, 200));
				}
			}
		}
		await new Promise((resolve) => setTimeout(resolve, 2000));
		const urls = (path: string) => [cluster.webhookUrl(path, 1), cluster.webhookUrl(path, 2)];
		const oursResult = await sendStream(n8n, fake, oursId, urls(oursPath), deliveryStream(post, settings.deliveries), secret, settings.deliveryConcurrency);
		settings.progress(`B4 queue, Trigger: ${JSON.stringify(oursResult)}`);
		const theirsResult = await sendStream(n8n, fake, theirsId, urls('bench-b4-checked'), deliveryStream(post, settings.deliveries), secret, settings.deliveryConcurrency);
		settings.progress(`B4 queue, Webhook + Crypto + IF: ${JSON.stringify(theirsResult)}`);
		return checkedRows(
			`B4 queue mode (main, 2 workers, webhook processes A and B): ${count(settings.deliveries)} signed + 10% retried on the other process + 5% forged, ${settings.deliveryConcurrency} at once`,
			oursResult,
			theirsResult,
			true,
		);
	} finally {
		await cluster.stop();
		await backend.close();
	}
}
