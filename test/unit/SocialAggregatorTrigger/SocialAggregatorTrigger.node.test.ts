import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { eventList } from '../../../nodes/shared/input';
import type * as TriggerNode from '../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node';
import { applySettings, type Delivery } from '../../../nodes/SocialAggregatorTrigger/delivery';
import type * as InFlightModule from '../../../nodes/SocialAggregatorTrigger/inFlight';
import type * as LookBacksModule from '../../../nodes/SocialAggregatorTrigger/lookBacks';
import { signBody } from '../support/signBody';
import { executeContext, hookContext, parameterAt, WebhookApiStub } from '../support/triggerStub';

const SECRET = 'whsec_unit_secret_9876543210';
const TEST_SECRET = 'whsec_unit_test_secret_0000';

const POSTS = [
	{ id: 11, platform: 'Bluesky', message: 'first', external_created_at: '2026-01-01T10:00:00Z' },
	{ id: 12, platform: 'Bluesky', message: 'second', external_created_at: '2026-01-01T10:05:00Z' },
];

function postCreated(id: string, extra: IDataObject = {}): Delivery {
	return {
		id,
		event: 'post.created',
		occurred_at: '2026-01-01T10:06:00Z',
		data: { feed: { id: 7, name: 'Brand' }, source: { id: 3, platform: 'Bluesky', term: '#brand' }, posts: POSTS, ...extra },
	};
}

interface Sent {
	status?: number;
	body?: unknown;
	headers?: Record<string, string>;
}

function webhookContext(rawBody: Buffer | undefined, headers: IDataObject, opts: { parameters?: IDataObject; staticData?: IDataObject; mode?: string } = {}) {
	const staticData = opts.staticData ?? { subscriptions: { live: { id: '1', secret: SECRET, url: 'https://x/webhook', events: ['post.created'], test: false } } };
	const base = hookContext({ api: new WebhookApiStub(), staticData, parameters: opts.parameters, mode: opts.mode ?? 'webhook' });
	const sent: Sent = {};
	const response = {
		status(code: number) {
			sent.status = code;
			return response;
		},
		json(body: unknown) {
			sent.body = body;
			return response;
		},
		send(body: unknown) {
			sent.body = body;
			return response;
		},
		end() {
			return response;
		},
		setHeader(name: string, value: string) {
			sent.headers = { ...sent.headers, [name.toLowerCase()]: value };
			return response;
		},
	};
	const context = {
		...base.context,
		getRequestObject: () => ({ headers, rawBody, body: rawBody ? JSON.parse(rawBody.toString()) : {} }),
		getResponseObject: () => response,
		getBodyData: () => (rawBody ? JSON.parse(rawBody.toString()) : {}),
		getHeaderData: () => headers,
	} as unknown as IWebhookFunctions;
	return { context, sent, logs: base.logs, staticData };
}

/** The static data webhook() hands its execution: sealed (sealedState.ts), nothing of it in the clear. */
const SEALED = { v: 1, iv: expect.any(String), tag: expect.any(String), data: expect.any(String) };

function signed(delivery: Delivery, secret = SECRET) {
	const raw = Buffer.from(JSON.stringify(delivery));
	return { raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(secret, raw) } };
}

// n8n-workflow holds none of our state: the fresh copies below share the one loaded (and load in milliseconds).
const n8nWorkflow = jest.requireActual<object>('n8n-workflow');
jest.doMock('n8n-workflow', () => n8nWorkflow);

// The memory of deliveries and executions is process-wide: the node and these come from the test's own process.
let node: TriggerNode.SocialAggregatorTrigger;
let finished: typeof InFlightModule.finished;
let takePlace: typeof InFlightModule.takePlace;
let lookBackDue: typeof LookBacksModule.lookBackDue;
let lookingBack: typeof LookBacksModule.lookingBack;

/** The trigger the tests' contexts are: workflow wf-1, node trigger-1. */
const KEY = 'wf-1:trigger-1';

// Each test runs in a fresh process (its modules loaded anew): what one test saw is not another's.
beforeEach(() => {
	jest.isolateModules(() => {
		const fresh = require('../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node') as typeof TriggerNode;
		node = new fresh.SocialAggregatorTrigger();
		({ finished, takePlace } = require('../../../nodes/SocialAggregatorTrigger/inFlight') as typeof InFlightModule);
		({ lookBackDue, lookingBack } = require('../../../nodes/SocialAggregatorTrigger/lookBacks') as typeof LookBacksModule);
	});
	// As if this process had received a delivery a moment ago: the next ones do not look back (tested on its own below).
	lookBackDue(KEY);
});

describe('webhook()', () => {
	it('emits one item per post with its feed, source and event id', async () => {
		const { raw, headers } = signed(postCreated('dlv_1'));
		const { context } = webhookContext(raw, headers);
		const result = await node.webhook.call(context);
		expect(result.workflowData?.[0].map((i) => i.json)).toEqual(
			POSTS.map((post) => ({
				...post,
				feed: { id: 7, name: 'Brand' },
				source: { id: 3, platform: 'Bluesky', term: '#brand' },
				event: 'post.created',
				event_id: 'dlv_1',
				occurred_at: '2026-01-01T10:06:00Z',
			})),
		);
	});

	it('answers a delivery that starts the workflow with JSON naming it, beside the items', async () => {
		const { raw, headers } = signed(postCreated('dlv_ack'));
		const { context } = webhookContext(raw, headers);
		const result = await node.webhook.call(context);
		expect(result.webhookResponse).toEqual({ received: true, id: 'dlv_ack' });
		expect(result.workflowData?.[0]).toHaveLength(2);
		// n8n sends that answer only when the webhook description sets responseData to an empty text.
		expect(node.description.webhooks?.[0].responseData).toBe('');
	});

	it('declares version 2 alone, which n8n serves without evaluating an expression per request', () => {
		// n8n's parseRequestBody evaluates `$parameter["options"]["binaryData"]` for every request to a
		// webhook node saved at typeVersion 1, taking an expression isolate; above 1 it evaluates none.
		expect(node.description.version).toBe(2);
	});

	it('reads the body itself when n8n left it unread (version 2, a content type n8n does not parse)', async () => {
		const { raw, headers } = signed(postCreated('dlv_unread'));
		const { context } = webhookContext(undefined, { ...headers, 'content-type': 'application/octet-stream' });
		const request: { headers: IDataObject; rawBody?: Buffer; readRawBody(): Promise<void> } = {
			headers: { ...headers, 'content-type': 'application/octet-stream' },
			async readRawBody() {
				this.rawBody = raw;
			},
		};
		(context as unknown as { getRequestObject: unknown }).getRequestObject = () => request;
		const result = await node.webhook.call(context);
		expect(result.webhookResponse).toEqual({ received: true, id: 'dlv_unread' });
		expect(result.workflowData?.[0]).toHaveLength(2);
	});

	it('answers 413 to a delivery whose Content-Length passes 5 MB, leaving its body unread', async () => {
		const { raw, headers } = signed(postCreated('dlv_huge'));
		const { context, sent, logs } = webhookContext(undefined, headers);
		const readRawBody = jest.fn(async () => undefined);
		const request = { headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(6 * 1024 * 1024) }, readRawBody };
		(context as unknown as { getRequestObject: unknown }).getRequestObject = () => request;
		const result = await node.webhook.call(context);
		expect(sent).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
		expect(result).toEqual({ noWebhookResponse: true });
		expect(readRawBody).not.toHaveBeenCalled();
		expect(logs.some((l) => l.level === 'warn' && l.message.includes('413'))).toBe(true);
		// The same delivery with its true length is read and starts the workflow.
		request.headers['content-length'] = String(raw.length);
		readRawBody.mockImplementation(async () => void Object.assign(request, { rawBody: raw }));
		expect((await node.webhook.call(context)).workflowData?.[0]).toHaveLength(2);
	});

	it('with Max Age set, answers 422 to a delivery that occurred longer ago and starts nothing; without it, takes it', async () => {
		const maxAge = node.description.properties.find((p) => p.name === 'options')?.options?.find((o) => 'name' in o && o.name === 'maxAge');
		expect(maxAge).toMatchObject({ displayName: 'Max Age (Minutes)', type: 'number', default: 0 });
		const { raw, headers } = signed(postCreated('dlv_old'));
		const old = webhookContext(raw, headers, { parameters: { events: ['post.created'], output: 'eachPost', options: { maxAge: 60 } } });
		const result = await node.webhook.call(old.context);
		expect(old.sent).toMatchObject({ status: 422, body: { error: { code: 'stale_delivery' } } });
		expect(result.workflowData).toBeUndefined();
		expect(old.logs.some((l) => l.level === 'warn' && l.message.includes('dlv_old') && l.message.includes('Max Age (60 min)'))).toBe(true);
		const taken = webhookContext(raw, headers, { parameters: { events: ['post.created'], output: 'eachPost', options: {} } });
		expect((await node.webhook.call(taken.context)).workflowData?.[0]).toHaveLength(2);
	});

	it('reads its parameters without evaluating them; with a setting given as an expression it emits the delivery whole', async () => {
		const delivery = postCreated('dlv_raw');
		const { raw, headers } = signed(delivery);
		const { context } = webhookContext(raw, headers, { parameters: { options: { feedIds: '={{ $vars.feeds }}' } } });
		const reads: unknown[] = [];
		const read = context.getNodeParameter.bind(context) as (n: string, f: unknown, o?: unknown) => unknown;
		(context as unknown as { getNodeParameter: unknown }).getNodeParameter = (name: string, fallback: unknown, options?: unknown) => {
			reads.push(options);
			return read(name, fallback, options);
		};
		const result = await node.webhook.call(context);
		expect(reads.length).toBeGreaterThan(0);
		expect(reads.every((options) => (options as { rawExpressions?: boolean })?.rawExpressions === true)).toBe(true);
		expect(result.workflowData?.[0].map((i) => i.json)).toEqual([delivery]);
		expect(result.webhookResponse).toEqual({ received: true, id: 'dlv_raw' });
	});

	it('emits the delivery as one item when asked', async () => {
		const delivery = postCreated('dlv_1');
		const { raw, headers } = signed(delivery);
		const { context } = webhookContext(raw, headers, { parameters: { output: 'eachDelivery' } });
		const result = await node.webhook.call(context);
		expect(result.workflowData?.[0].map((i) => i.json)).toEqual([delivery]);
	});

	it.each([
		['a tampered body', () => {
			const { raw, headers } = signed(postCreated('dlv_1'));
			return { raw: Buffer.from(raw.toString().replace('first', 'fIrst')), headers };
		}],
		['a wrong secret', () => signed(postCreated('dlv_1'), 'whsec_wrong_secret_123')],
		['a missing header', () => ({ raw: signed(postCreated('dlv_1')).raw, headers: { 'content-type': 'application/json' } })],
		['a truncated signature', () => {
			const { raw, headers } = signed(postCreated('dlv_1'));
			return { raw, headers: { ...headers, 'x-service-signature': headers['x-service-signature'].slice(0, 40) } };
		}],
		['another delivery’s signature', () => {
			const other = signed(postCreated('dlv_2'));
			return { raw: signed(postCreated('dlv_1')).raw, headers: other.headers };
		}],
	])('answers 401 to %s, emits nothing and logs no secret', async (_label, make) => {
		const { raw, headers } = make();
		const { context, sent, logs, staticData } = webhookContext(raw, headers);
		const result = await node.webhook.call(context);
		expect(result).toEqual({ noWebhookResponse: true });
		expect(sent.status).toBe(401);
		expect(JSON.stringify(sent.body)).not.toContain(SECRET);
		expect(logs.some((l) => l.level === 'warn' && l.message.includes('401'))).toBe(true);
		expect(JSON.stringify(logs)).not.toContain(SECRET);
		const signature = (headers as IDataObject)['x-service-signature'];
		if (typeof signature === 'string') expect(JSON.stringify(logs)).not.toContain(signature.slice(7, 30));
		expect(staticData.recentDeliveries).toBeUndefined();
	});

	it('answers 401 when no secret is stored', async () => {
		const { raw, headers } = signed(postCreated('dlv_1'));
		const { context, sent } = webhookContext(raw, headers, { staticData: {} });
		expect(await node.webhook.call(context)).toEqual({ noWebhookResponse: true });
		expect(sent.status).toBe(401);
	});


	it('never writes static data, whether it emits, ignores or refuses a delivery', async () => {
		const cases: Array<[Buffer, IDataObject, IDataObject]> = [
			[signed(postCreated('w1')).raw, signed(postCreated('w1')).headers, {}],
			[signed(postCreated('w2', { test: true })).raw, signed(postCreated('w2', { test: true })).headers, { options: { includeTestDeliveries: false } }],
			[signed(postCreated('w3')).raw, { 'content-type': 'application/json' }, {}],
		];
		for (const [raw, headers, parameters] of cases) {
			const writes: string[] = [];
			const data = { subscriptions: { live: { id: '1', secret: SECRET, url: 'https://x/webhook', events: ['post.created'], test: false } } };
			const watched = new Proxy(data as IDataObject, {
				set(target, key, value) {
					writes.push(String(key));
					return Reflect.set(target, key, value);
				},
				deleteProperty(target, key) {
					writes.push(String(key));
					return Reflect.deleteProperty(target, key);
				},
			});
			const { context } = webhookContext(raw, headers, { parameters, staticData: watched });
			await node.webhook.call(context);
			expect(writes).toEqual([]);
		}
	});

	it('verifies a delivery with the secret this process just registered, before n8n attaches the static data', async () => {
		const api = new WebhookApiStub();
		const url = 'https://n8n.example.com/webhook-test/abc/webhook';
		const hook = hookContext({ api, url, mode: 'manual', activation: 'manual', parameters: { options: {} } });
		await node.webhookMethods.default.create.call(hook.context as never);
		const secret = api.secrets.get(1)!;
		const { raw, headers } = signed(postCreated('dlv_early', { test: true }), secret);
		// n8n has not attached the static data yet: the webhook sees none.
		const { context } = webhookContext(raw, headers, { staticData: {}, mode: 'manual' });
		expect((await node.webhook.call(context)).workflowData?.[0][0].json).toMatchObject({ event_id: 'dlv_early', test: true });
		// Once removed, the copy is gone too.
		await node.webhookMethods.default.delete.call(hook.context as never);
		const late = webhookContext(raw, headers, { staticData: {}, mode: 'manual' });
		expect(await node.webhook.call(late.context)).toEqual({ noWebhookResponse: true });
		expect(late.sent.status).toBe(401);
	});

	it('verifies a test-mode delivery with the test subscription’s secret', async () => {
		const staticData = {
			subscriptions: {
				live: { id: '1', secret: SECRET, url: 'https://x/webhook', events: ['post.created'], test: false },
				test: { id: '2', secret: TEST_SECRET, url: 'https://x/webhook-test', events: ['post.created'], test: true },
			},
		};
		const { raw, headers } = signed(postCreated('dlv_t', { test: true }), TEST_SECRET);
		const { context } = webhookContext(raw, headers, { staticData, mode: 'manual', parameters: { options: { includeTestDeliveries: false } } });
		const result = await node.webhook.call(context);
		// The editor asked for this test delivery: it is shown even with test deliveries off.
		expect(result.workflowData?.[0][0].json).toMatchObject({ test: true, event_id: 'dlv_t' });
	});

	it('a test delivery to the live trigger runs the workflow marked test, and looks back; with test deliveries off, it only looks back', async () => {
		// Beside the signal, the static data this process read, sealed, for an execution that runs without it (a worker).
		const look = (id: string) => ({ json: { socialAggregatorCatchUp: { id, occurred_at: expect.any(String), test: true }, socialAggregatorState: SEALED } });
		const on = signed(postCreated('kick_on', { test: true }));
		const withTest = await node.webhook.call(webhookContext(on.raw, on.headers).context);
		expect(withTest.workflowData?.[0]).toEqual([{ json: expect.objectContaining({ test: true, event_id: 'kick_on' }) }, { json: expect.objectContaining({ test: true }) }, look('kick_on')]);
		expect(withTest.webhookResponse).toEqual({ received: true, id: 'kick_on' });
		const off = signed(postCreated('kick_off', { test: true }));
		const only = await node.webhook.call(webhookContext(off.raw, off.headers, { parameters: { options: { includeTestDeliveries: false } } }).context);
		expect(only.workflowData).toEqual([[look('kick_off')]]);
		expect(only.webhookResponse).toEqual({ received: true, ignored: 'test deliveries are turned off' });
	});

	it('the first delivery this process receives that starts the workflow, and the first after 5 quiet minutes, look back; those between do not; none with catch-up off', async () => {
		const now = jest.spyOn(Date, 'now');
		try {
			const lookedBack = async (id: string, parameters: IDataObject = {}) => {
				const { raw, headers } = signed(postCreated(id));
				const result = await node.webhook.call(webhookContext(raw, headers, { parameters }).context);
				return result.workflowData?.[0].some((item) => 'socialAggregatorCatchUp' in item.json) ?? false;
			};
			const start = Date.parse('2026-02-01T10:00:00Z');
			now.mockReturnValue(start);
			jest.isolateModules(() => {
				node = new (require('../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node') as typeof TriggerNode).SocialAggregatorTrigger();
			});
			expect(await lookedBack('first')).toBe(true);
			now.mockReturnValue(start + 4 * 60_000);
			expect(await lookedBack('second')).toBe(false);
			now.mockReturnValue(start + 8 * 60_000);
			expect(await lookedBack('third')).toBe(false);
			now.mockReturnValue(start + 13 * 60_000);
			expect(await lookedBack('after quiet', { options: { catchUpDays: 0 } })).toBe(false);
			now.mockReturnValue(start + 19 * 60_000);
			expect(await lookedBack('after quiet again')).toBe(true);
		} finally {
			now.mockRestore();
		}
	});

	it('a delivery the filters ignore still looks back when one is due, emitting only the signal, none of its posts', async () => {
		jest.isolateModules(() => {
			node = new (require('../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node') as typeof TriggerNode).SocialAggregatorTrigger();
		});
		const cases: Array<[Delivery, IDataObject]> = [
			[postCreated('other_feed'), { options: { feedIds: ['8'] } }],
			[{ id: 'other_event', event: 'social_account.expired', occurred_at: '2026-01-01T10:06:00Z', data: {} }, { events: ['post.created'] }],
		];
		for (const [delivery, parameters] of cases) {
			// Each the first this process receives for its trigger (a workflow of its own).
			const { raw, headers } = signed(delivery);
			const { context } = webhookContext(raw, headers, { parameters });
			(context as unknown as { getWorkflow: unknown }).getWorkflow = () => ({ id: `wf-${String(delivery.id)}`, active: true });
			const result = await node.webhook.call(context);
			expect(result.workflowData).toEqual([
				[{ json: { socialAggregatorCatchUp: { id: delivery.id, occurred_at: '2026-01-01T10:06:00Z' }, socialAggregatorState: SEALED } }],
			]);
			expect(result.webhookResponse).toMatchObject({ received: true, ignored: expect.any(String) });
		}
	});

	it('ignores test deliveries when turned off, other feeds and unselected events, answering 200', async () => {
		const cases: Array<[Delivery, IDataObject, string]> = [
			[postCreated('a', { test: true }), { options: { includeTestDeliveries: false, catchUpDays: 0 } }, 'test deliveries are turned off'],
			[postCreated('b'), { options: { feedIds: ['8', '9'] } }, 'feed 7 is not selected'],
			[{ id: 'c', event: 'social_account.expired', data: {} }, {}, 'event social_account.expired is not selected'],
		];
		for (const [delivery, parameters, reason] of cases) {
			const { raw, headers } = signed(delivery);
			const { context } = webhookContext(raw, headers, { parameters });
			expect(await node.webhook.call(context)).toEqual({ webhookResponse: { received: true, ignored: reason } });
		}
	});

	it('reads a configured signature header', async () => {
		const { raw, headers } = signed(postCreated('dlv_h'));
		const moved = { 'content-type': 'application/json', 'x-custom-sig': headers['x-service-signature'], 'x-other-signature': 'junk' };
		const { context } = webhookContext(raw, moved, { parameters: { options: { signatureHeader: 'X-Custom-Sig' } } });
		expect((await node.webhook.call(context)).workflowData?.[0]).toHaveLength(2);
	});
});

describe('delivery helpers', () => {
	it('gives other events one item and an empty post.created none', () => {
		const expiring: Delivery = { id: 'e', event: 'social_account.expiring', data: { provider: 'facebook' } };
		const eachPost = (delivery: Delivery) => applySettings(delivery, { events: [], output: 'eachPost', options: {} }, false).items;
		expect(eachPost(expiring)).toEqual([expiring]);
		expect(eachPost(postCreated('x', { posts: [] }))).toEqual([]);
		expect(eachPost(postCreated('x', { posts: [], test: true }))).toHaveLength(1);
	});

	it('lets events without a feed through a feed filter', () => {
		const ignored = (delivery: Delivery, events: string[]) =>
			applySettings(delivery, { events, output: 'eachPost', options: { feedIds: '1' } }, false).ignored;
		expect(ignored({ id: 'x', event: 'social_account.expired', data: {} }, ['social_account.expired'])).toBeUndefined();
		expect(ignored({ id: 'x', event: 'post.created', data: { feed_id: 1 } }, [])).toBeUndefined();
	});

	it('merges chosen and typed events', () => {
		expect(eventList(['b', 'a'], 'c, a ,,').sort()).toEqual(['a', 'b', 'c']);
		expect(eventList(undefined, undefined)).toEqual([]);
	});
});

describe('validly signed deliveries of any shape', () => {
	function send(rawText: string, parameters: IDataObject = {}) {
		const raw = Buffer.from(rawText);
		const { context, sent } = webhookContext(raw, { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, raw) }, { parameters });
		return { run: node.webhook.call(context), sent };
	}

	/** The delivery's execution run, as n8n runs it once it has started one: then it counts as handled. */
	async function handled(run: ReturnType<typeof send>['run']) {
		const result = await run;
		if (result.workflowData) await node.execute.call(executeContext(result.workflowData[0].map((item) => item.json)).context);
		return result;
	}

	it('an event that is an object is ignored with its reason (2xx), not a 500; a retry of it is handled again only if it was not handled', async () => {
		const { run, sent } = send('{"id":"d-obj","event":{"toString":1},"data":{"posts":[]}}', { events: ['post.created'] });
		expect(await run).toEqual({ webhookResponse: { received: true, ignored: 'event (none) is not selected' } });
		expect(sent.status).toBeUndefined();
		// It was handled (ignored with a reason), so its retry is a duplicate.
		expect(await send('{"id":"d-obj","event":{"toString":1},"data":{"posts":[]}}', { events: ['post.created'] }).run).toEqual({
			webhookResponse: { received: true, duplicate: true },
		});
	});

	it('numeric ids past 2^53 keep every digit: two deliveries are two, and the items carry the exact id', async () => {
		const body = (id: string) => `{"id":${id},"event":"post.created","data":{"posts":[{"id":1}]}}`;
		const first = await handled(send(body('12345678901234567890')).run);
		const second = await send(body('12345678901234567891')).run;
		expect(first.workflowData?.[0][0].json.event_id).toBe('12345678901234567890');
		expect(second.workflowData?.[0][0].json.event_id).toBe('12345678901234567891');
		expect((await send(body('12345678901234567890')).run).webhookResponse).toEqual({ received: true, duplicate: true });
		// A small numeric id stays a number.
		expect((await send(body('42')).run).workflowData?.[0][0].json.event_id).toBe(42);
	});

	it('an id sent as the text "0123" stays that text, in the item and in the key', async () => {
		const body = (id: string) => `{"id":${id},"event":"post.created","data":{"posts":[{"id":1}]}}`;
		const first = await handled(send(body('"0123"')).run);
		expect(first.workflowData?.[0][0].json.event_id).toBe('0123');
		const whole = await send(body('"0456"'), { output: 'eachDelivery' }).run;
		expect(whole.workflowData?.[0][0].json.id).toBe('0456');
		// The number 123 is another id than the text "0123".
		expect((await handled(send(body('123')).run)).workflowData?.[0][0].json.event_id).toBe(123);
		expect((await send(body('"0123"')).run).webhookResponse).toMatchObject({ received: true, duplicate: true });
	});

	it('a body with the id key twice is read as JSON.parse reads it (the last one), for the key and the item alike', async () => {
		const twice = (last: string) => `{"id":"shared","event":"post.created","data":{"posts":[{"id":1}]},"id":"${last}"}`;
		const first = await send(twice('dlv_b')).run;
		const second = await send(twice('dlv_c')).run;
		expect(first.workflowData?.[0][0].json.event_id).toBe('dlv_b');
		expect(second.workflowData?.[0][0].json.event_id).toBe('dlv_c');
	});

	it('a throwing expression in the options answers a validly signed delivery with a 4xx JSON error, never a 500', async () => {
		const raw = Buffer.from(JSON.stringify(postCreated('dlv_expr')));
		const { context, sent, logs } = webhookContext(raw, { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, raw) });
		// As n8n does when evaluating an expression that throws (an n8n without raw parameter reads evaluates it here).
		const read = context.getNodeParameter.bind(context);
		(context as unknown as { getNodeParameter: unknown }).getNodeParameter = (name: string, fallback: unknown, options?: unknown) => {
			if (name === 'options') throw new Error('Cannot read properties of undefined (reading x)');
			return (read as (n: string, f: unknown, o?: unknown) => unknown)(name, fallback, options);
		};
		const result = await node.webhook.call(context);
		expect(result).toEqual({ noWebhookResponse: true });
		expect(sent.status).toBeGreaterThanOrEqual(400);
		expect(sent.status).toBeLessThan(500);
		expect(sent.body).toMatchObject({ error: { code: expect.any(String) } });
		expect(logs.some((l) => l.level === 'warn' && l.message.includes('dlv_expr'))).toBe(true);
	});
});

describe('execute(), where the execution runs', () => {
	it('records a delivery this process received in one write; one received elsewhere takes the tie-break rounds', async () => {
		const { raw, headers } = signed(postCreated('dlv_here'));
		const emitted = await node.webhook.call(webhookContext(raw, headers).context);
		const here = executeContext(emitted.workflowData![0].map((i) => i.json));
		expect((await node.execute.call(here.context))[0]).toHaveLength(2);
		expect(here.calls).toHaveLength(1);

		const elsewhere = executeContext([{ ...POSTS[0], event_id: 'dlv_elsewhere' }]);
		expect((await node.execute.call(elsewhere.context))[0]).toHaveLength(1);
		expect(elsewhere.calls).toHaveLength(3);
		// Its copy, run again after the first finished: passed on no more.
		const again = executeContext([{ ...POSTS[0], event_id: 'dlv_elsewhere' }], { row: elsewhere.row });
		expect((await node.execute.call(again.context))[0]).toEqual([]);
	});

	it('a retry after n8n failed to start the execution (it answered 500) runs; one after the execution ran is answered duplicate', async () => {
		const { raw, headers } = signed(postCreated('dlv_500'));
		// The first call's execution never started: nothing ran execute().
		expect((await node.webhook.call(webhookContext(raw, headers).context)).workflowData?.[0]).toHaveLength(2);
		const retried = await node.webhook.call(webhookContext(raw, headers).context);
		expect(retried.workflowData?.[0]).toHaveLength(2);
		expect(retried.webhookResponse).toEqual({ received: true, id: 'dlv_500' });
		const ran = executeContext(retried.workflowData![0].map((i) => i.json));
		expect((await node.execute.call(ran.context))[0]).toHaveLength(2);
		// Each later copy sees the static data as it was before the first (n8n drops webhook()'s writes): the memory answers.
		for (let i = 0; i < 2; i++) expect(await node.webhook.call(webhookContext(raw, headers).context)).toEqual({ webhookResponse: { received: true, duplicate: true } });
	});

	/**
	 * A service for look backs: a log in which a delivery failed while n8n was away, kick_1 (after the re-enable) went
	 * through, then dlv_2, later; one feed whose posts page holds `feedPosts`. `failing` makes the log or the feed
	 * refuse (a refusal the transport does not retry: the look back fails at once).
	 */
	function lookBackService(records?: Set<string>) {
		const api = new WebhookApiStub();
		api.add('https://x/webhook', ['post.created']);
		const state = { failing: undefined as 'log' | 'feed' | undefined, asked: [] as string[], feedPosts: [] as IDataObject[] };
		const log = [
			{ id: 'failed_1', status: 'failed', created_at: '2026-01-01T09:00:00Z' },
			{ id: 'kick_1', status: 'succeeded', created_at: '2026-01-01T10:06:00Z' },
			{ id: 'dlv_2', status: 'succeeded', created_at: '2026-01-01T10:20:00Z' },
		];
		const list = (data: IDataObject[]) => ({ statusCode: 200, headers: {}, body: { data, meta: { page: 1, per_page: 100, total_count: data.length, total_pages: 1 } } });
		const refused = { statusCode: 400, headers: {}, body: { error: { code: 'bad_request', message: 'Refused' } } };
		const handle = api.handle.bind(api);
		api.handle = async (request) => {
			const path = new URL(String(request.url)).pathname.replace(/^\/v1/, '');
			state.asked.push(`${String(request.method ?? 'GET')} ${path}`);
			if (path === '/feeds') return list([{ id: 7, name: 'Brand' }]);
			if (/^\/feeds\/\d+\/posts$/.test(path)) return state.failing === 'feed' ? refused : list(state.feedPosts);
			if (path.endsWith('/redeliver')) return { statusCode: 202, headers: {}, body: {} };
			if (!path.endsWith('/deliveries')) return await handle(request);
			return state.failing === 'log' ? refused : list(log);
		};
		const staticData: IDataObject = { subscriptions: { live: { id: '1', secret: SECRET, url: 'https://x/webhook', events: ['post.created'], test: false } } };
		/** One execution; `own`: the static data n8n gives it (in queue mode on n8n 2.x, a worker's: none). */
		const run = async (input: IDataObject[], events = ['post.created'], own = staticData) => {
			const base = hookContext({ api, staticData: own, mode: 'webhook' });
			const customData: Record<string, string> = {};
			const context = {
				...base.context,
				getInputData: () => input.map((json) => ({ json })),
				getNodeParameter: (name: string, _index: number, fallback: unknown) => parameterAt({ events, output: 'eachPost', options: {} }, name, fallback),
				customData: { set: (key: string, value: string) => (customData[key] = value) },
				helpers: {
					...base.context.helpers,
					// n8n's records of what was acted on: all new, or kept in `records` across runs.
					checkProcessedAndRecord: async (keys: string[]) => {
						if (!records) return { new: keys, processed: [] };
						const processed = keys.filter((k) => records.has(k));
						for (const k of keys) records.add(k);
						return { new: keys.filter((k) => !processed.includes(k)), processed };
					},
				},
			} as unknown as IExecuteFunctions;
			return { items: (await node.execute.call(context))[0], logs: base.logs, customData };
		};
		const delivery = (id: string, postIds: number[]) => [
			...postIds.map((postId) => ({ id: postId, feed: { id: 7 }, event_id: id })),
			{ socialAggregatorCatchUp: { id, occurred_at: '2026-01-01T10:06:00Z' } },
		];
		return { state, run, delivery, staticData };
	}
	/** This process restarted (n8n deployed again): every module's memory gone, the database (static data, records) kept. */
	const restart = () =>
		jest.isolateModules(() => {
			node = new (require('../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node') as typeof TriggerNode).SocialAggregatorTrigger();
		});
	/** Runs `body` with the clock at `at` (ms). */
	const at = async <T>(time: number, body: () => Promise<T>): Promise<T> => {
		const now = jest.spyOn(Date, 'now').mockReturnValue(time);
		try {
			return await body();
		} finally {
			now.mockRestore();
		}
	};
	const eventIds = (items: Array<{ json: IDataObject }>) => items.map((item) => item.json.event_id);

	it('a look back whose log read fails is owed in the static data: after its wait, a delivery in a restarted process looks back from the first one\'s kick', async () => {
		const { state, run, delivery, staticData } = lookBackService();
		const t0 = Date.now();
		state.failing = 'log';
		const first = await at(t0, async () => await run(delivery('kick_1', [11, 12])));
		expect(eventIds(first.items)).toEqual(['kick_1', 'kick_1']);
		expect(first.customData.catchUp).toMatch(/^put off to the first delivery after .* \(try 2\): /);
		expect(first.logs.some((line) => line.level === 'warn' && /kick_1.*put off/.test(line.message))).toBe(true);
		expect(staticData).toMatchObject({ owedLookBack: { kick: { id: 'kick_1' }, tries: 1, retryAt: t0 } });
		// The next delivery tries again at once, and fails again: now it waits a minute.
		await at(t0 + 1_000, async () => await run([{ id: 12, feed: { id: 7 }, event_id: 'dlv_1b' }]));
		expect(staticData).toMatchObject({ owedLookBack: { kick: { id: 'kick_1' }, tries: 2, retryAt: t0 + 61_000 } });

		// n8n restarts; the service recovers. A delivery within the wait does not look back, and says why.
		restart();
		state.failing = undefined;
		state.asked = [];
		const early = await at(t0 + 30_000, async () => await run([{ id: 13, feed: { id: 7 }, event_id: 'dlv_2' }]));
		expect(eventIds(early.items)).toEqual(['dlv_2']);
		expect(early.customData.catchUp).toMatch(/^put off until .* after 2 failed tries: Refused/);
		expect(state.asked).toEqual([]);
		// One after it looks back from kick_1, the delivery after the re-enable: the failure before it is sent again. From
		// dlv_3, 14 minutes after a delivery that went through, there would be nothing to catch up.
		const later = await at(t0 + 62_000, async () => await run([{ id: 14, feed: { id: 7 }, event_id: 'dlv_3' }]));
		expect(state.asked).toContain('POST /webhooks/1/deliveries/failed_1/redeliver');
		expect(eventIds(later.items)).toEqual(['dlv_3']);
		expect(later.customData.catchUp).toBeUndefined();
		// Done: nothing owed any more.
		expect(staticData.owedLookBack).toBeUndefined();
	});

	it('a look back that keeps failing waits longer each time (the next delivery, then 1, 2, 4 … minutes, at most an hour), each try once', async () => {
		const { state, run, delivery, staticData } = lookBackService();
		state.failing = 'log';
		let now = Date.now();
		await at(now, async () => await run(delivery('kick_1', [11])));
		const waits: number[] = [];
		for (let i = 0; i < 8; i++) {
			const owed = staticData.owedLookBack as { retryAt: number };
			waits.push((owed.retryAt - now) / 60_000);
			now = owed.retryAt;
			state.asked = [];
			await at(now, async () => await run([{ id: 20 + i, feed: { id: 7 }, event_id: `dlv_${i}` }]));
			expect(state.asked.filter((request) => request.endsWith('/deliveries'))).toHaveLength(1);
		}
		expect(waits).toEqual([0, 1, 2, 4, 8, 16, 32, 60]);
	});

	it('one look back per gap: the first deliveries of two processes after a re-enable both ask, one reads the gap', async () => {
		const records = new Set<string>();
		const { state, run, delivery } = lookBackService(records);
		const stored = (id: number) => ({ id, created_at: '2026-01-01T09:30:00Z', external_created_at: '2026-01-01T09:30:00Z' });
		state.feedPosts = [stored(21), stored(20)];
		// Webhook process A's first delivery, and B's half a minute later (another process: its own memory, and a
		// delivery the log does not show yet), each with the signal; both find the gap after failed_1.
		const a = await run(delivery('kick_1', [11]));
		restart();
		const b = await run([{ id: 13, feed: { id: 7 }, event_id: 'dlv_b' }, { socialAggregatorCatchUp: { id: 'dlv_b', occurred_at: '2026-01-01T10:06:30Z' } }]);
		expect(state.asked.filter((request) => request.endsWith('/redeliver'))).toEqual(['POST /webhooks/1/deliveries/failed_1/redeliver']);
		expect([...eventIds(a.items), ...eventIds(b.items)].filter((id) => String(id).startsWith('catch-up:'))).toEqual(['catch-up:7:20', 'catch-up:7:21']);
	});

	it('queue mode, where n8n 2.x queues an execution without the static data: the look back runs in the worker from what the webhook process read, what it owes is saved beside the subscription, and the next delivery runs it', async () => {
		const { state, run, staticData } = lookBackService();
		const stored = (id: number, minute: number) => ({ id, created_at: `2026-01-01T09:${minute}:00Z`, external_created_at: `2026-01-01T09:${minute}:00Z` });
		state.feedPosts = [stored(21, 30), stored(20, 20)];
		state.failing = 'feed';
		/** A delivery at a webhook process, which reads the workflow's static data (`saved`) from n8n's database; its items. */
		const received = async (id: string, saved: IDataObject) => {
			const { raw, headers } = signed(postCreated(id));
			const emitted = await node.webhook.call(webhookContext(raw, headers, { staticData: saved }).context);
			return emitted.workflowData![0].map((item) => item.json);
		};
		// Webhook process A, just started: its first delivery looks back, in a worker whose execution n8n gave no static data.
		restart();
		const worker1: IDataObject = {};
		const handed = await received('kick_1', staticData);
		// The subscription's secret rides in the execution's record in n8n's database: sealed, never in the clear.
		expect(JSON.stringify(handed)).not.toContain(SECRET);
		const first = await run(handed, ['post.created'], worker1);
		expect(state.asked).toContain('POST /webhooks/1/deliveries/failed_1/redeliver');
		expect(eventIds(first.items)).toEqual(['kick_1', 'kick_1']);
		// What the worker saves (n8n writes the execution's static data whole): the look back owed, and the subscription kept.
		expect(worker1).toMatchObject({ subscriptions: staticData.subscriptions, owedLookBack: { kick: { id: 'kick_1' }, tries: 1, gap: {} } });

		// The service recovers; the next delivery, read with the static data as the worker saved it, runs in another worker.
		state.failing = undefined;
		const worker2: IDataObject = {};
		const next = await run(await received('dlv_2', worker1), ['post.created'], worker2);
		expect(eventIds(next.items)).toEqual(['catch-up:7:20', 'catch-up:7:21', 'dlv_2', 'dlv_2']);
		expect(worker2.subscriptions).toEqual(staticData.subscriptions);
		expect(worker2.owedLookBack).toBeUndefined();
		// A delivery while nothing is owed carries nothing of the static data to its execution.
		expect((await received('dlv_3', worker2)).some((json) => Object.keys(json).some((key) => key.startsWith('socialAggregator')))).toBe(false);
	});

	it('queue mode: a credential that cannot be read hands no state and fails no delivery: webhook() emits the posts and the signal, a worker does not look back', async () => {
		const { state, run, staticData } = lookBackService();
		const { raw, headers } = signed(postCreated('kick_nocred'));
		restart();
		const { context, logs } = webhookContext(raw, headers, { staticData });
		(context as unknown as { getCredentials: unknown }).getCredentials = async () => {
			throw new Error('Node does not have any credentials set');
		};
		const emitted = (await node.webhook.call(context)).workflowData![0].map((item) => item.json);
		expect(emitted.some((json) => 'socialAggregatorCatchUp' in json)).toBe(true);
		expect(emitted.some((json) => 'socialAggregatorState' in json)).toBe(false);
		expect(logs.some((line) => line.level === 'warn' && /credential could not be read/.test(line.message))).toBe(true);
		const worker: IDataObject = {};
		const result = await run(emitted, ['post.created'], worker);
		expect(eventIds(result.items)).toEqual(['kick_nocred', 'kick_nocred']);
		expect(state.asked).toEqual([]);
		expect(worker).toEqual({});
	});

	it('queue mode: a handed state the worker cannot open (altered, or sealed with another key) is not read: no look back, nothing written over the static data, a warning', async () => {
		const { state, run, staticData } = lookBackService();
		const { raw, headers } = signed(postCreated('kick_x'));
		restart();
		const emitted = (await node.webhook.call(webhookContext(raw, headers, { staticData }).context)).workflowData![0].map((item) => item.json);
		const hidden = emitted.find((json) => 'socialAggregatorState' in json)!;
		const sealed = hidden.socialAggregatorState as IDataObject;
		const altered = Buffer.from(String(sealed.data), 'base64');
		altered[0] ^= 1;
		hidden.socialAggregatorState = { ...sealed, data: altered.toString('base64') };
		const worker: IDataObject = {};
		const result = await run(emitted, ['post.created'], worker);
		expect(eventIds(result.items)).toEqual(['kick_x', 'kick_x']);
		expect(state.asked).toEqual([]);
		expect(worker).toEqual({});
		expect(result.logs.some((line) => line.level === 'warn' && /could not be opened/.test(line.message))).toBe(true);
	});

	it('a trigger for other events than post.created sends the failed deliveries again and reads no feed', async () => {
		const { state, run, delivery } = lookBackService();
		await run([delivery('kick_1', [])[0]], ['social_account.expiring']);
		expect(state.asked).toContain('POST /webhooks/1/deliveries/failed_1/redeliver');
		expect(state.asked.filter((request) => request.includes('/feeds'))).toEqual([]);
	});

	it('a gap that could not be read once its failed deliveries were sent again is read by the next look back alone; the posts both deliveries carried stay theirs', async () => {
		const { state, run, delivery } = lookBackService();
		const stored = (id: number, minute: number) => ({ id, created_at: `2026-01-01T09:${String(minute).padStart(2, '0')}:00Z`, external_created_at: `2026-01-01T09:${String(minute).padStart(2, '0')}:00Z` });
		// Stored in the gap (09:00 to 10:06): posts 20 and 21, and 11 and 13, which the two deliveries carry themselves.
		state.feedPosts = [stored(21, 30), stored(20, 20), stored(13, 15), stored(11, 10)];
		state.failing = 'feed';
		const t0 = Date.now();
		const first = await at(t0, async () => await run(delivery('kick_1', [11])));
		expect(eventIds(first.items)).toEqual(['kick_1']);
		expect(state.asked).toContain('POST /webhooks/1/deliveries/failed_1/redeliver');
		state.failing = undefined;
		state.asked = [];
		const second = await at(t0 + 1_000, async () => await run(delivery('dlv_2', [13])));
		expect(eventIds(second.items)).toEqual(['catch-up:7:20', 'catch-up:7:21', 'dlv_2']);
		// The log is not read again (it no longer shows the gap), nothing is sent again.
		expect(state.asked.filter((request) => request.includes('/deliveries'))).toEqual([]);
	});

	describe('two deliveries at once after a re-enable: a post a look back reads in the gap, carried by a delivery made since the re-enable', () => {
		const stored = (id: number, at: string) => ({ id, feed: { id: 7 }, created_at: at, external_created_at: at });
		// Post 20 was stored in the gap (after failed_1 at 09:00, before kick_1 at 10:06), and dlv_b carries it: dlv_b
		// was made since the re-enable but reaches n8n after kick_1 looked back. Post 30 is stored after the kick.
		const setUp = () => {
			const records = new Set<string>();
			const { state, run, delivery } = lookBackService(records);
			state.feedPosts = [stored(20, '2026-01-01T10:05:00Z')];
			const item = (id: number, at: string, deliveryId: string) => ({ ...stored(id, at), event: 'post.created', event_id: deliveryId });
			const dlvB = [item(20, '2026-01-01T10:05:00Z', 'dlv_b'), item(30, '2026-01-01T10:07:00Z', 'dlv_b')];
			return { run, delivery, dlvB, item };
		};
		const pinned = (runs: Array<{ items: Array<{ json: IDataObject }> }>) => runs.flatMap((r) => r.items.map((item) => item.json.id)).sort();

		it('the look back first: the delivery passes on only its post stored after the kick', async () => {
			const { run, delivery, dlvB, item } = setUp();
			const first = await run(delivery('kick_1', []));
			expect(first.items.map((i) => i.json.event_id)).toEqual(['catch-up:7:20']);
			const second = await run(dlvB);
			expect(second.items.map((i) => i.json.event_id)).toEqual(['dlv_b']);
			expect(pinned([first, second])).toEqual([20, 30]);
			// Deliveries are still acted on each once: another one carrying post 30 (stored after the kick) passes it on,
			// as one carrying a post of another event or stored long before the kick would.
			expect((await run([item(30, '2026-01-01T10:07:00Z', 'dlv_c')])).items).toHaveLength(1);
			expect((await run([{ ...item(20, '2026-01-01T10:05:00Z', 'dlv_d'), event: 'post.updated' }])).items).toHaveLength(1);
		});

		it('the delivery first (its webhook call after the look back\'s): the look back passes on nothing of it', async () => {
			const { run, delivery, dlvB } = setUp();
			lookingBack(KEY, Date.parse('2026-01-01T10:06:00Z'));
			const first = await run(dlvB);
			expect(first.items.map((item) => item.json.event_id)).toEqual(['dlv_b', 'dlv_b']);
			const second = await run(delivery('kick_1', []));
			expect(second.items).toEqual([]);
			expect(pinned([first, second])).toEqual([20, 30]);
		});
	});

	it('applies settings given as expressions to the delivery webhook() emitted whole', async () => {
		const delivery = postCreated('dlv_late');
		const parameters = { options: { feedIds: '={{ $vars.feeds }}' } };
		const selected = executeContext([delivery], { parameters, evaluated: { options: { feedIds: ['7'] } } });
		const items = (await node.execute.call(selected.context))[0];
		expect(items.map((i) => [i.json.id, i.json.event_id, i.pairedItem])).toEqual([
			[11, 'dlv_late', { item: 0 }],
			[12, 'dlv_late', { item: 0 }],
		]);
		const other = executeContext([postCreated('dlv_other')], { parameters, evaluated: { options: { feedIds: ['8'] } } });
		expect((await node.execute.call(other.context))[0]).toEqual([]);
		// Ignored: nothing to record.
		expect(other.calls).toEqual([]);
	});
});

describe('a burst in one process', () => {
	/** Executions of one trigger in flight before a delivery waits (docs/exactly-once.md). */
	const MAX_IN_FLIGHT = 32;

	it('answers 503 with Retry-After, remembering nothing, while this process runs too many executions of the trigger', async () => {
		finished('wf-1:trigger-1', []);
		for (let i = 0; i < MAX_IN_FLIGHT; i++) await takePlace('wf-1:trigger-1', `busy_${i}`);
		const { raw, headers } = signed(postCreated('dlv_busy'));
		const refused = webhookContext(raw, headers);
		expect(await node.webhook.call(refused.context)).toEqual({ noWebhookResponse: true });
		expect(refused.sent).toMatchObject({ status: 503, headers: { 'retry-after': '5' }, body: { error: { code: 'busy' } } });
		// One finishes: the retry is handled afresh.
		finished('wf-1:trigger-1', ['busy_0']);
		const retried = await node.webhook.call(webhookContext(raw, headers).context);
		expect(retried.workflowData?.[0]).toHaveLength(2);
		// The refused delivery waited 5 s for a place first.
	}, 15_000);
});
