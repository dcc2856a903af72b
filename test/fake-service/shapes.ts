/**
 * The two legal shapes of the service's answers (README.md, "Shapes"): `live`, what the service's published
 * API reference and its own n8n node show (SERVICE-NOTES.md, the default), and `spec`, SPEC.md's form. One
 * switch for the whole stand-in; a test about one shape asks for it, every layer runs both.
 */
import type { Reply } from './router';
import { isPlainObject } from './util';

export type Shapes = 'live' | 'spec';

export const SHAPES: readonly Shapes[] = ['live', 'spec'];

export const DEFAULT_SHAPES: Shapes = 'live';

/** The delivery signature header: `X-<ServiceName>-Signature` live, SPEC.md's spelling in `spec`. */
export const SIGNATURE_HEADERS: Record<Shapes, string> = {
	live: 'X-SocialAggregator-Signature',
	spec: 'X-Service-Signature',
};

export function parseShapes(value: unknown): Shapes {
	if (value === 'live' || value === 'spec') return value;
	throw new Error(`the shapes are "live" or "spec", not ${JSON.stringify(value)}`);
}

/**
 * An error answer in the live form: `details` and `action` null where SPEC.md's envelope has `{}` or no
 * action. Answers that carry no `error` object (a route the live service lacks) stay as they are.
 */
export function liveErrorReply(reply: Reply): Reply {
	const body = reply.body;
	if (reply.status < 400 || !isPlainObject(body) || !isPlainObject(body.error)) return reply;
	const error = { ...body.error };
	if (!isPlainObject(error.details) || Object.keys(error.details).length === 0) error.details = null;
	if (error.action === undefined) error.action = null;
	return { ...reply, body: { ...body, error } };
}
