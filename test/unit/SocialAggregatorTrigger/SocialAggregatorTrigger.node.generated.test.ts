/**
 * Generated deliveries through the trigger's webhook(), each validly signed (a signature
 * proves who sent it, not that its shape is right): every one gets a 2xx or a 4xx with a
 * JSON error, never a thrown error (n8n's 500); a delivery is a duplicate only when a
 * delivery with the same id, in the exact text the service sent, was handled before.
 * Seeded: FC_SEED and FC_RUNS as in the workflow layer; a failure prints its seed.
 */
import fc from 'fast-check';
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { SocialAggregatorTrigger } from '../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node';
import { signBody } from '../support/signBody';
import { executeContext, hookContext, WebhookApiStub } from '../support/triggerStub';

const SEED = Number(process.env.FC_SEED ?? 20261125);
const RUNS = Number(process.env.FC_RUNS ?? 1000) * 3;
const SECRET = 'whsec_unit_secret_9876543210';
const node = new SocialAggregatorTrigger();

/** The workflow of the trigger deliveries go to. */
let workflowId = 'wf-1';
let triggers = 0;

/**
 * Each run is a trigger of its own: a process remembers deliveries per trigger, so this one has
 * handled none (loading the modules anew per run, as a fresh process, is ten times as slow).
 */
function newTrigger(): void {
	workflowId = `wf-run-${++triggers}`;
}

async function deliver(raw: Buffer, parameters: IDataObject) {
	const staticData = { subscriptions: { live: { id: '1', secret: SECRET, url: 'https://x/webhook', events: ['post.created'], test: false } } };
	const base = hookContext({ api: new WebhookApiStub(), staticData, parameters, mode: 'webhook', workflowId });
	const sent: { status?: number; body?: unknown } = {};
	const response = {
		status: (code: number) => ((sent.status = code), response),
		json: (body: unknown) => ((sent.body = body), response),
		send: (body: unknown) => ((sent.body = body), response),
		end: () => response,
	};
	const headers = { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, raw) };
	const context = {
		...base.context,
		getRequestObject: () => ({ headers, rawBody: raw, body: {} }),
		getResponseObject: () => response,
		getHeaderData: () => headers,
	} as unknown as IWebhookFunctions;
	const result = await node.webhook.call(context);
	return { result, sent };
}

const odd = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom<unknown>(null, {}, [], '', { toString: 1 }, { valueOf: 'x' }));
const id = fc.oneof(
	fc.string(),
	fc.integer(),
	fc.constantFrom('12345678901234567890', '12345678901234567891', '9007199254740993', '-0', '1e3'),
	odd,
);
const delivery = fc.oneof(
	odd,
	fc.record(
		{
			id,
			event: fc.oneof(fc.constantFrom('post.created', 'social_account.expired'), odd),
			occurred_at: odd,
			data: fc.oneof(odd, fc.record({ feed: odd, source: odd, posts: fc.oneof(odd, fc.array(odd, { maxLength: 3 })), test: odd }, { requiredKeys: [] })),
		},
		{ requiredKeys: [] },
	),
);
/**
 * A delivery as bytes (long digit strings as ids are written as numbers, past 2^53), and
 * whether it carries an id: a non-empty string or a number at the top level.
 */
const bytes = delivery.map((value) => {
	const top = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as IDataObject).id : undefined;
	const hasId = (typeof top === 'string' && top !== '') || (typeof top === 'number' && Number.isFinite(top));
	const text = (JSON.stringify(value) ?? 'null').replace(/^\{"id":"(\d{16,})"/, '{"id":$1');
	return { text, hasId };
});
let checkedDuplicates = 0;

test(`every validly signed delivery gets a 2xx or a 4xx with a JSON error (${RUNS} runs, seed ${SEED})`, async () => {
	await fc.assert(
		fc.asyncProperty(bytes, fc.constantFrom<IDataObject>({}, { events: ['post.created'] }, { output: 'eachDelivery' }, { options: { feedIds: '7' } }), async ({ text, hasId }, parameters) => {
			newTrigger();
			const { result, sent } = await deliver(Buffer.from(text), parameters);
			if (sent.status !== undefined) {
				expect(sent.status).toBeGreaterThanOrEqual(400);
				expect(sent.status).toBeLessThan(500);
				expect(typeof (sent.body as { error?: { message?: unknown } })?.error?.message).toBe('string');
				expect(result).toEqual({ noWebhookResponse: true });
				return;
			}
			const items = result.workflowData?.[0] ?? [];
			for (const item of items) expect(typeof item.json).toBe('object');
			// An execution started runs execute(), where the delivery counts as handled.
			if (result.workflowData) await node.execute.call(executeContext(items.map((item) => item.json), { parameters, workflowId }).context);
			// Handled: the same bytes again are a duplicate exactly when the delivery has an id.
			const again = await deliver(Buffer.from(text), parameters);
			if (!hasId) return;
			checkedDuplicates++;
			expect(again.result).toEqual({ webhookResponse: { received: true, duplicate: true } });
		}),
		{ seed: SEED, numRuns: RUNS, endOnFailure: true },
	);
	// The retry check must have run on a good share of the deliveries.
	expect(checkedDuplicates).toBeGreaterThan(RUNS / 10);
});

test(`two deliveries whose ids differ in the text the service sent are never taken for one (${RUNS} runs, seed ${SEED})`, async () => {
	const digits = fc.stringMatching(/^[1-9]\d{15,22}$/);
	await fc.assert(
		fc.asyncProperty(digits, digits, async (a, b) => {
			fc.pre(a !== b);
			newTrigger();
			const body = (id: string) => Buffer.from(`{"id":${id},"event":"post.created","data":{"posts":[{"id":1}]}}`);
			const first = await deliver(body(a), {});
			const second = await deliver(body(b), {});
			expect(first.result.workflowData?.[0][0].json.event_id).toEqual(Number.isSafeInteger(Number(a)) ? Number(a) : a);
			expect(second.result.workflowData?.[0]).toHaveLength(1);
		}),
		{ seed: SEED, numRuns: RUNS, endOnFailure: true },
	);
});
