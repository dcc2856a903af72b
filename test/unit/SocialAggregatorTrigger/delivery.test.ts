import type { IDataObject } from 'n8n-workflow';

import * as signature from '../../../nodes/shared/signature';
import { answerDelivery, MAX_DELIVERY_BYTES, type DeliveryRequest } from '../../../nodes/SocialAggregatorTrigger/delivery';
import { signBody } from '../support/signBody';
import { parameterAt } from '../support/triggerStub';

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
