import type { IDataObject } from 'n8n-workflow';

import * as signature from '../../../nodes/SocialAggregatorTrigger/signature';
import { answerDelivery, deliveredPosts, emittedItems, takeCatchUpSignal, type DeliveryRequest } from '../../../nodes/SocialAggregatorTrigger/delivery';
import { signBody } from '../support/signBody';
import { parameterAt } from '../support/triggerStub';

/** The most a delivery may hold: 5 MB (docs/security.md). */
const MAX_DELIVERY_BYTES = 5 * 1024 * 1024;

const SECRET = 'whsec_unit_secret_9876543210';

/** A delivery as webhook() hands it over, signed with SECRET unless headers are given. */
function request(text: string, overrides: Partial<DeliveryRequest> & { parameters?: IDataObject } = {}): DeliveryRequest {
	const rawBody = Buffer.from(text);
	const parameters: IDataObject = { events: ['post.created'], output: 'eachPost', options: {}, ...overrides.parameters };
	return {
		headers: { 'x-service-signature': signBody(SECRET, rawBody) },
		rawBody,
		secrets: [undefined, SECRET],
		parameter: (name, fallback) => parameterAt(parameters, name, fallback),
		evaluate: (name, fallback) => parameterAt(parameters, name, fallback),
		manual: false,
		handledBefore: () => false,
		lookBackDue: () => false,
		...overrides,
	};
}

const POST_CREATED = '{"id":"d1","event":"post.created","data":{"feed":{"id":7},"posts":[{"id":1},{"id":2}]}}';

describe('answerDelivery() without n8n', () => {
	it('refuses a bad signature with 401 and a log line that names no secret, remembering nothing', () => {
		const answer = answerDelivery(request(POST_CREATED, { headers: { 'x-service-signature': signBody('whsec_other_1234', POST_CREATED) } }));
		expect(answer).toMatchObject({ status: 401, body: { error: { code: 'invalid_signature' } }, log: { level: 'warn' } });
		expect(answer.remember).toBeUndefined();
		expect(JSON.stringify(answer)).not.toContain(SECRET);
	});

	it('refuses a signed body that is not a JSON object with 400', () => {
		expect(answerDelivery(request('[1,2]'))).toMatchObject({ status: 400, body: { error: { code: 'invalid_body' } } });
	});

	it('gives the items of a new delivery and the id to remember', () => {
		const answer = answerDelivery(request(POST_CREATED));
		expect(answer.status).toBe(200);
		expect(answer.items?.map((item) => item.id)).toEqual([1, 2]);
		expect(answer.remember).toBe('d1');
	});

	it('a post.created with no posts starts nothing and says why; with a look back due, the look back runs', () => {
		const empty = '{"id":"d2","event":"post.created","data":{"feed":{"id":7},"posts":[]}}';
		const answer = answerDelivery(request(empty));
		expect(answer).toMatchObject({ status: 200, body: { received: true, ignored: 'the delivery carries no posts' }, remember: 'd2' });
		expect(answer.items).toBeUndefined();
		const parameters = { options: { catchUpDays: 7 } };
		const lookingBack = answerDelivery(request(empty, { lookBackDue: () => true, parameters }));
		expect(lookingBack).toMatchObject({ status: 200, body: { received: true, id: 'd2' }, items: [], catchUp: { id: 'd2' } });
	});

	it('answers a copy this process handled as a duplicate, and does not remember it again', () => {
		const seen: string[] = [];
		const answer = answerDelivery(request(POST_CREATED, { handledBefore: (id) => (seen.push(id), true) }));
		expect(answer).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
		expect(answer.items).toBeUndefined();
		expect(answer.remember).toBeUndefined();
		expect(seen).toEqual(['d1']);
	});

	it('neither checks nor remembers ids while the editor listens for a test event', () => {
		const answer = answerDelivery(request(POST_CREATED, { manual: true, handledBefore: () => true }));
		expect(answer.items).toHaveLength(2);
		expect(answer.remember).toBeUndefined();
	});

	it('remembers an ignored delivery: it was handled', () => {
		const answer = answerDelivery(request(POST_CREATED, { parameters: { options: { feedIds: '8' } } }));
		expect(answer).toMatchObject({ status: 200, body: { received: true, ignored: 'feed 7 is not selected' }, remember: 'd1' });
		expect(answer.items).toBeUndefined();
	});

	it('answers 422 and remembers nothing when a signed delivery cannot be handled', () => {
		const failing = (name: string, fallback: unknown) => {
			if (name === 'events') throw new Error('expression failed');
			return name === 'options' ? {} : fallback;
		};
		const answer = answerDelivery(request(POST_CREATED, { parameter: failing }));
		expect(answer).toMatchObject({ status: 422, body: { error: { code: 'unusable_delivery' } }, log: { level: 'warn' } });
		expect(answer.remember).toBeUndefined();
	});
});

describe('a delivery larger than the cap', () => {
	afterEach(() => jest.restoreAllMocks());

	it('is refused with 413 before any HMAC pass, by its body or by its Content-Length', () => {
		const hmac = jest.spyOn(signature, 'verifyDelivery');
		const padded = (bytes: number) => `{"id":"d_big","event":"post.created","pad":"${'x'.repeat(bytes - 46)}"}`;
		const big = padded(MAX_DELIVERY_BYTES + 1);
		expect(Buffer.byteLength(big)).toBe(MAX_DELIVERY_BYTES + 1);
		const byBody = answerDelivery(request(big));
		const byHeader = answerDelivery(request(POST_CREATED, { headers: { 'x-service-signature': signBody(SECRET, POST_CREATED), 'content-length': String(MAX_DELIVERY_BYTES + 1) } }));
		const unread = answerDelivery(request('', { rawBody: undefined, headers: { 'content-length': '900000000' } }));
		for (const answer of [byBody, byHeader, unread]) {
			expect(answer).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } }, log: { level: 'warn' } });
			expect(answer.items).toBeUndefined();
			expect(answer.remember).toBeUndefined();
		}
		expect(byBody.log?.message).toContain(`${MAX_DELIVERY_BYTES + 1} bytes`);
		expect(hmac).not.toHaveBeenCalled();
		// At the cap a signed delivery is read and checked as any other.
		const atCap = answerDelivery(request(padded(MAX_DELIVERY_BYTES)));
		expect(atCap).toMatchObject({ status: 200, remember: 'd_big' });
		expect(hmac).toHaveBeenCalledTimes(1);
	});
});

describe('Max Age', () => {
	const OCCURRED = '2026-03-01T10:00:00Z';
	const at = (minutesLater: number) => Date.parse(OCCURRED) + minutesLater * 60_000;
	const delivery = (occurredAt: unknown) =>
		JSON.stringify({ id: 'd_age', event: 'post.created', occurred_at: occurredAt, data: { posts: [{ id: 1 }] } });
	const withMaxAge = (maxAge: unknown, receivedAt: number, text = delivery(OCCURRED), more: Partial<DeliveryRequest> = {}) =>
		answerDelivery(request(text, { parameters: { options: { maxAge } }, receivedAt, ...more }));

	it('is off by default: a delivery from years ago starts the workflow', () => {
		expect(answerDelivery(request(delivery('2020-01-01T00:00:00Z')))).toMatchObject({ status: 200, items: [{ id: 1 }] });
		expect(withMaxAge(0, at(60 * 24 * 365))).toMatchObject({ status: 200, items: [{ id: 1 }] });
	});

	it('refuses with 422 a delivery older than Max Age when it arrives, starting and remembering nothing', () => {
		const refused = withMaxAge(60, at(61));
		expect(refused).toMatchObject({ status: 422, body: { error: { code: 'stale_delivery', message: 'The delivery is older than 60 minutes' } } });
		expect(refused.items).toBeUndefined();
		expect(refused.remember).toBeUndefined();
		expect(refused.log).toEqual({
			level: 'warn',
			message: `Social Aggregator Trigger refused delivery d_age with 422: it occurred at ${OCCURRED}, 61 min before it arrived, past Max Age (60 min)`,
		});
		expect(withMaxAge(60, at(59))).toMatchObject({ status: 200, items: [{ id: 1 }], remember: 'd_age' });
		expect(withMaxAge(60, at(60))).toMatchObject({ status: 200 });
		// A clock a little behind the service's: a time ahead of arrival is no age.
		expect(withMaxAge(60, at(-2))).toMatchObject({ status: 200 });
		expect(withMaxAge(0.5, at(1))).toMatchObject({ status: 422 });
	});

	it('refuses a delivery without a readable occurred_at while a Max Age is set', () => {
		for (const occurredAt of [undefined, '', 'yesterday', 1767261600000, 'March 1, 2026']) {
			expect(withMaxAge(60, at(1), delivery(occurredAt))).toMatchObject({ status: 422, body: { error: { code: 'stale_delivery' } } });
		}
	});

	it('checks the signature first, and answers a copy already handled as a duplicate', () => {
		const text = delivery(OCCURRED);
		const forged = { headers: { 'x-service-signature': signBody('whsec_other_1234', text) } };
		expect(withMaxAge(60, at(600), text, forged)).toMatchObject({ status: 401 });
		expect(withMaxAge(60, at(600), text, { handledBefore: () => true })).toMatchObject({ status: 200, body: { duplicate: true } });
	});

	it('given as an expression is evaluated; a value that is no number of minutes is a 422 naming the option', () => {
		const evaluated = (value: unknown) => (name: string, fallback: unknown) => (name === 'options.maxAge' ? value : fallback);
		expect(withMaxAge('={{ 60 }}', at(61), delivery(OCCURRED), { evaluate: evaluated(60) })).toMatchObject({ status: 422, body: { error: { code: 'stale_delivery' } } });
		const invalid = withMaxAge('={{ $json.x }}', at(1), delivery(OCCURRED), { evaluate: evaluated('soon') });
		expect(invalid).toMatchObject({ status: 422, body: { error: { code: 'unusable_delivery' } } });
		expect(invalid.log?.message).toContain('"Max Age (Minutes)" is "soon"');
	});
});

describe('deliveredPosts', () => {
	it('the posts of items of one post each, or of a delivery whole, as feed:post', () => {
		expect(deliveredPosts([{ id: 5, feed: { id: 7 }, event_id: 'd1' }, { id: '6', feed: { id: 7 } }])).toEqual(new Set(['7:5', '7:6']));
		expect(deliveredPosts([{ id: 'd1', event: 'post.created', data: { feed: { id: 3 }, posts: [{ id: 1 }, { id: 2 }, 'junk'] } }])).toEqual(new Set(['3:1', '3:2']));
		expect(deliveredPosts([{ id: 'd2', event: 'social_account.expired', data: {} }, { id: 9 }])).toEqual(new Set());
	});

	it('a test delivery’s posts are samples, standing in for no post of a gap, whole or one item each', () => {
		expect(deliveredPosts([{ id: 'd3', event: 'post.created', data: { feed: { id: 3 }, posts: [{ id: 1 }], test: true } }])).toEqual(new Set());
		expect(deliveredPosts([{ id: 5, feed: { id: 7 }, event_id: 'd3', test: true }, { id: 6, feed: { id: 7 }, event_id: 'd4' }])).toEqual(new Set(['7:6']));
	});
});

describe('the catch-up signal from webhook() to execute()', () => {
	const signal = { id: 'd1', occurred_at: '2026-01-01T10:06:00Z' };

	it('travels as one item after the delivery\'s, and only when the delivery looks back', () => {
		const items = [{ id: 1 }, { id: 2 }];
		expect(emittedItems({ status: 200, body: {}, items })).toBe(items);
		expect(emittedItems({ status: 200, body: {} })).toBeUndefined();
		const emitted = emittedItems({ status: 200, body: {}, items, catchUp: signal });
		expect(emitted).toHaveLength(3);
		expect(emitted?.slice(0, 2)).toEqual(items);
		// An ignored delivery that looks back starts an execution for the signal alone.
		expect(emittedItems({ status: 200, body: {}, catchUp: signal })).toHaveLength(1);
	});

	it('is taken out in execute(): the deliveries\' items, the signal and where its item was', () => {
		const emitted = emittedItems({ status: 200, body: {}, items: [{ id: 1 }, { id: 2 }], catchUp: signal }) ?? [];
		const received = emitted.map((json) => ({ json }));
		expect(takeCatchUpSignal(received)).toEqual({ items: received.slice(0, 2), signal, signalAt: 2 });
		expect(takeCatchUpSignal(received.slice(0, 2))).toEqual({ items: received.slice(0, 2), signal: undefined, signalAt: -1 });
	});
});
