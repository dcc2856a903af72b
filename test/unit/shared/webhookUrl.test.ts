import { webhookUrlProblem } from '../../../nodes/shared/webhookUrl';

test('a webhook URL the service can deliver to: https, or http where allowed for a local test service', () => {
	expect(webhookUrlProblem('https://n8n.example/webhook/x', false)).toBeUndefined();
	expect(webhookUrlProblem('http://127.0.0.1:5678/webhook/x', false)).toBe('http');
	expect(webhookUrlProblem('http://127.0.0.1:5678/webhook/x', true)).toBeUndefined();
	expect(webhookUrlProblem('ftp://example/x', true)).toBe('invalid');
	expect(webhookUrlProblem('not a url', true)).toBe('invalid');
});
