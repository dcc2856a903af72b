'use strict';
/**
 * Benchmark only: a community trigger that verifies the HMAC-SHA256 signature over the raw body
 * and emits the body, nothing else (no filter, no de-duplication, no database). Reads its secret
 * without evaluating expressions. It is what n8n itself costs for any community trigger.
 */
const { createHmac, timingSafeEqual } = require('crypto');

class BenchMinimalTrigger {
	constructor() {
		this.description = {
			displayName: 'Bench Minimal Trigger',
			name: 'benchMinimalTrigger',
			group: ['trigger'],
			// 2 as well: n8n evaluates an expression per request to a webhook node of version 1
			version: [1, 2],
			description: 'Verifies a signature and emits the body (benchmark only)',
			defaults: { name: 'Minimal Trigger' },
			inputs: [],
			outputs: ['main'],
			webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: '', path: 'webhook' }],
			properties: [{ displayName: 'Secret', name: 'secret', type: 'string', default: '' }],
		};
	}

	async webhook() {
		const request = this.getRequestObject();
		const secret = String(this.getNodeParameter('secret', '', { rawExpressions: true }));
		const given = Buffer.from(String(request.headers['x-service-signature'] || '').replace(/^sha256=/, ''), 'hex');
		const digest = createHmac('sha256', secret).update(request.rawBody).digest();
		if (given.length !== digest.length || !timingSafeEqual(given, digest)) {
			this.getResponseObject().status(401).json({ error: { code: 'invalid_signature' } });
			return { noWebhookResponse: true };
		}
		const body = JSON.parse(request.rawBody.toString('utf8'));
		return { workflowData: [[{ json: body }]], webhookResponse: { received: true, id: body.id } };
	}
}

module.exports = { BenchMinimalTrigger };
