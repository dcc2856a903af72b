import { createHmac } from 'crypto';

import { describeFailure, verifyDelivery } from '../../../nodes/SocialAggregatorTrigger/signature';
import { signBody } from '../support/signBody';

const SECRET = 'whsec_test_0123456789abcdef';
const BODY = Buffer.from('{"id":"dlv_1","event":"post.created","occurred_at":"2026-01-01T00:00:00Z","data":{"posts":[]}}');

function hmac(secret: string, body: Buffer | string): Buffer {
	return createHmac('sha256', secret).update(body).digest();
}

/** What verifyDelivery makes of these headers for BODY signed with SECRET. */
function verdict(headers: Record<string, string | undefined>, headerName?: string) {
	return verifyDelivery({ headers, rawBody: BODY, secrets: [SECRET], headerName });
}

describe('the signature as written', () => {
	const digest = hmac(SECRET, BODY);

	it.each([
		['sha256=<hex>', `sha256=${digest.toString('hex')}`],
		['SHA256=<HEX>', `SHA256=${digest.toString('hex').toUpperCase()}`],
		['bare hex', digest.toString('hex')],
		['base64', digest.toString('base64')],
		['base64 without padding', digest.toString('base64').replace(/=+$/, '')],
		['base64url', digest.toString('base64url')],
		['sha256=<base64>', `sha256=${digest.toString('base64')}`],
	])('reads %s', (_label, value) => {
		expect(verdict({ 'x-service-signature': value })).toEqual({ valid: true, header: 'x-service-signature' });
	});

	it.each([
		['truncated hex', `sha256=${digest.toString('hex').slice(0, 63)}`],
		['half the hex', digest.toString('hex').slice(0, 32)],
		['hex that is too long', `${digest.toString('hex')}00`],
		['truncated base64', digest.toString('base64').slice(0, 40)],
		['prefix only', 'sha256='],
		['another algorithm', `sha1=${createHmac('sha1', SECRET).update(BODY).digest('hex')}`],
		['not hex', 'z'.repeat(64)],
	])('refuses %s', (_label, value) => {
		expect(verdict({ 'x-service-signature': value })).toEqual({ valid: false, reason: 'malformed_signature', header: 'x-service-signature' });
	});
});

describe('the signature header', () => {
	const signed = `sha256=${hmac(SECRET, BODY).toString('hex')}`;

	it('is the one X-…-Signature header by default, in any case', () => {
		expect(verdict({ 'content-type': 'application/json', 'x-service-signature': signed })).toEqual({ valid: true, header: 'x-service-signature' });
		expect(verdict({ 'X-Acme-Signature': signed })).toEqual({ valid: true, header: 'X-Acme-Signature' });
	});

	it('is the configured name and nothing else', () => {
		expect(verdict({ 'x-service-signature': 'a', 'x-hub-sig': signed }, 'X-Hub-Sig')).toEqual({ valid: true, header: 'x-hub-sig' });
		expect(verdict({ 'x-service-signature': signed }, 'X-Other')).toEqual({ valid: false, reason: 'missing_header' });
	});

	it('is missing when absent or empty', () => {
		expect(verdict({ 'content-type': 'application/json' })).toEqual({ valid: false, reason: 'missing_header' });
		expect(verdict({ 'x-service-signature': '  ' })).toEqual({ valid: false, reason: 'missing_header' });
		expect(verdict({ 'x-service-signature': '' })).toEqual({ valid: false, reason: 'missing_header' });
		expect(verdict({ 'x-service-signature': undefined })).toEqual({ valid: false, reason: 'missing_header' });
	});

	it('is not guessed between several signature headers', () => {
		expect(verdict({ 'x-service-signature': signed, 'x-other-signature': signed })).toEqual({ valid: false, reason: 'ambiguous_header' });
	});

	it('is none of the headers that only look similar', () => {
		expect(verdict({ signature: signed, 'x-signature': signed, 'x-service-signatures': signed })).toEqual({ valid: false, reason: 'missing_header' });
	});
});

describe('signature comparison', () => {
	it('compares equal-length buffers and refuses other lengths without throwing', () => {
		const a = hmac(SECRET, BODY);
		const signedWith = (signature: Buffer) =>
			verifyDelivery({ headers: { 'x-service-signature': signature.toString('hex') }, rawBody: BODY, secrets: [SECRET] })
				.valid;
		expect(signedWith(Buffer.from(a))).toBe(true);
		const b = Buffer.from(a);
		b[31] ^= 1;
		expect(signedWith(b)).toBe(false);
		expect(signedWith(a.subarray(0, 31))).toBe(false);
	});
});

describe('verifyDelivery', () => {
	const headers = (value: string | undefined) => ({ 'content-type': 'application/json', 'x-service-signature': value });

	it('accepts the service format over the raw bytes', () => {
		expect(verifyDelivery({ headers: headers(signBody(SECRET, BODY)), rawBody: BODY, secrets: [SECRET] })).toEqual({
			valid: true,
			header: 'x-service-signature',
		});
		// A string body with the same bytes verifies the same way.
		expect(
			verifyDelivery({ headers: headers(signBody(SECRET, BODY)), rawBody: BODY.toString(), secrets: [SECRET] }).valid,
		).toBe(true);
	});

	it('accepts bare hex and base64', () => {
		const digest = hmac(SECRET, BODY);
		for (const value of [digest.toString('hex'), digest.toString('base64')]) {
			expect(verifyDelivery({ headers: headers(value), rawBody: BODY, secrets: [SECRET] }).valid).toBe(true);
		}
	});

	it('accepts a delivery signed with any of the stored secrets', () => {
		expect(
			verifyDelivery({ headers: headers(signBody(SECRET, BODY)), rawBody: BODY, secrets: [undefined, 'other-secret', SECRET] })
				.valid,
		).toBe(true);
	});

	it('refuses a tampered body', () => {
		const tampered = Buffer.from(BODY.toString().replace('post.created', 'post.createe'));
		expect(verifyDelivery({ headers: headers(signBody(SECRET, BODY)), rawBody: tampered, secrets: [SECRET] })).toEqual({
			valid: false,
			reason: 'mismatch',
			header: 'x-service-signature',
		});
	});

	it('refuses a body that differs only in whitespace (no re-serialisation)', () => {
		const reformatted = JSON.stringify(JSON.parse(BODY.toString()), null, 2);
		expect(verifyDelivery({ headers: headers(signBody(SECRET, BODY)), rawBody: reformatted, secrets: [SECRET] }).valid).toBe(
			false,
		);
	});

	it('refuses a wrong secret, a missing header, a truncated signature and another body’s signature', () => {
		const other = Buffer.from('{"id":"dlv_2"}');
		expect(verifyDelivery({ headers: headers(signBody('wrong-secret', BODY)), rawBody: BODY, secrets: [SECRET] })).toMatchObject({
			valid: false,
			reason: 'mismatch',
		});
		expect(verifyDelivery({ headers: headers(undefined), rawBody: BODY, secrets: [SECRET] })).toMatchObject({
			valid: false,
			reason: 'missing_header',
		});
		expect(
			verifyDelivery({ headers: headers(signBody(SECRET, BODY).slice(0, -2)), rawBody: BODY, secrets: [SECRET] }),
		).toMatchObject({ valid: false, reason: 'malformed_signature' });
		expect(verifyDelivery({ headers: headers(signBody(SECRET, other)), rawBody: BODY, secrets: [SECRET] })).toMatchObject({
			valid: false,
			reason: 'mismatch',
		});
	});

	it('refuses everything when no secret is stored or the raw body is missing', () => {
		expect(verifyDelivery({ headers: headers(signBody(SECRET, BODY)), rawBody: BODY, secrets: [] })).toMatchObject({
			valid: false,
			reason: 'missing_secret',
		});
		expect(verifyDelivery({ headers: headers(signBody('', BODY)), rawBody: BODY, secrets: [''] })).toMatchObject({
			valid: false,
			reason: 'missing_secret',
		});
		expect(verifyDelivery({ headers: headers(signBody(SECRET, BODY)), rawBody: undefined, secrets: [SECRET] })).toMatchObject({
			valid: false,
			reason: 'missing_body',
		});
	});

	it('describes failures without the secret or the signature', () => {
		const value = signBody('wrong-secret', BODY);
		const result = verifyDelivery({ headers: headers(value), rawBody: BODY, secrets: [SECRET] });
		const text = describeFailure(result);
		expect(text).toContain('x-service-signature');
		expect(text).not.toContain(SECRET);
		expect(text).not.toContain(value.slice(7, 20));
		for (const reason of ['missing_header', 'ambiguous_header', 'malformed_signature', 'missing_body', 'missing_secret'] as const) {
			expect(describeFailure({ valid: false, reason })).not.toContain(SECRET);
		}
	});
});
