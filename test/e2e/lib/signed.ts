import type { FakeService } from '../../fake-service';

/**
 * Sends `body` to `url` signed as the service signs deliveries of subscription `webhookId`, and
 * returns n8n's answer with its headers (the fake's own sender keeps only the status and body).
 * The fake signs it by sending it to a closed port first.
 */
export async function postSigned(
	fake: FakeService,
	webhookId: number,
	url: string,
	body: string,
): Promise<{ status: number; contentType: string; text: string }> {
	const { signature } = await fake.control.webhooks.deliver({ webhookId, body, url: 'http://127.0.0.1:9/closed' });
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'X-Service-Signature': signature ?? '' },
		body,
	});
	return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}
