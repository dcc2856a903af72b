import { createHmac } from 'crypto';

/** The header value the service sends for a body: `sha256=<lowercase hex>`. */
export function signBody(secret: string, rawBody: Buffer | string): string {
	return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}
