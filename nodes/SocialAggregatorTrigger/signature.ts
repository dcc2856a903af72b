import { createHmac, timingSafeEqual } from 'crypto';

/** The length of an HMAC-SHA256 digest in bytes. */
const DIGEST_BYTES = 32;

/** Why a delivery was refused; never carries the secret or a signature value. */
type SignatureFailure =
	| 'missing_header'
	| 'ambiguous_header'
	| 'malformed_signature'
	| 'missing_body'
	| 'missing_secret'
	| 'mismatch';

type SignatureResult = { valid: true; header: string } | { valid: false; reason: SignatureFailure; header?: string };

export type HeaderBag = Record<string, string | string[] | undefined>;

/** A header name the service uses for its signature: `X-<ServiceName>-Signature`. */
const SIGNATURE_HEADER = /^x-.+-signature$/i;

/** The signature header: the configured one (any case), else the one `X-…-Signature`; with several, nothing is guessed. */
function findSignatureHeader(
	headers: HeaderBag,
	configuredName?: string,
): { name: string; value: string } | { error: 'missing_header' | 'ambiguous_header' } {
	const wanted = (configuredName ?? '').trim().toLowerCase();
	const present = Object.keys(headers).filter(
		(name) => (wanted ? name.toLowerCase() === wanted : SIGNATURE_HEADER.test(name)) && firstValue(headers[name]),
	);
	if (present.length === 0) return { error: 'missing_header' };
	if (present.length > 1) {
		// Node lower-cases incoming header names, so two entries can only come from a hand-built bag.
		const distinct = new Set(present.map((n) => n.toLowerCase()));
		if (distinct.size > 1 || !wanted) return { error: 'ambiguous_header' };
	}
	return { name: present[0], value: firstValue(headers[present[0]])! };
}

function firstValue(value: string | string[] | undefined): string | undefined {
	const single = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
	return single === undefined ? undefined : String(single).trim() || undefined;
}

/** The 32 bytes of a signature: `sha256=<hex>`, bare hex, or base64 (standard or URL-safe); else `undefined`. */
function decodeSignature(value: string): Buffer | undefined {
	const text = value.trim().replace(/^sha256[=:]/i, '').trim();
	if (/^[0-9a-f]{64}$/i.test(text)) return Buffer.from(text, 'hex');
	if (/^[A-Za-z0-9+/]{43}=?$/.test(text) || /^[A-Za-z0-9_-]{43}=?$/.test(text)) {
		const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
		return bytes.length === DIGEST_BYTES ? bytes : undefined;
	}
	return undefined;
}

interface VerifyOptions {
	headers: HeaderBag;
	rawBody: Buffer | string | undefined | null;
	/** Secrets of this trigger's subscriptions; a delivery signed with any of them is accepted. */
	secrets: Array<string | undefined>;
	/** The header to read; empty for the one header named `X-…-Signature`. */
	headerName?: string;
}

/** HMAC-SHA256 of the raw body against the header, in constant time; every secret is tried so timing tells nothing. */
export function verifyDelivery(options: VerifyOptions): SignatureResult {
	const secrets = options.secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
	const found = findSignatureHeader(options.headers, options.headerName);
	if ('error' in found) return { valid: false, reason: found.error };
	if (secrets.length === 0) return { valid: false, reason: 'missing_secret', header: found.name };
	const body = options.rawBody;
	if (typeof body !== 'string' && !Buffer.isBuffer(body)) {
		return { valid: false, reason: 'missing_body', header: found.name };
	}
	const actual = decodeSignature(found.value);
	if (!actual) return { valid: false, reason: 'malformed_signature', header: found.name };
	// `actual` has the digest's 32 bytes (decodeSignature answers no other length), as timingSafeEqual needs.
	const matched = secrets.map((secret) => timingSafeEqual(createHmac('sha256', secret).update(body).digest(), actual));
	if (matched.includes(true)) return { valid: true, header: found.name };
	return { valid: false, reason: 'mismatch', header: found.name };
}

/** A sentence for the log about a refused delivery: names the header, never a value. */
export function describeFailure(result: SignatureResult): string {
	if (result.valid) return 'The signature is valid';
	const header = result.header ? ` (header ${result.header})` : '';
	const sentences: Record<SignatureFailure, string> = {
		missing_header: 'The delivery carries no signature header',
		ambiguous_header: 'The delivery carries several X-…-Signature headers; set "Signature Header" in the node options',
		malformed_signature: `The signature is not sha256=<hex>, hex or base64 of 32 bytes${header}`,
		missing_body: 'The raw request body is not available, so the signature cannot be checked',
		missing_secret:
			'No signing secret is stored for this trigger; deactivate and activate the workflow to register it again',
		mismatch: `The signature does not match the body${header}`,
	};
	return sentences[result.reason];
}
