import type { INodeProperties } from 'n8n-workflow';

/** The service delivers to HTTPS URLs only; this option lets a local test service take plain http. */
export const allowHttpOption: INodeProperties = {
	displayName: 'Allow HTTP URL (Local Testing Only)',
	name: 'allowHttp',
	type: 'boolean',
	default: false,
	description:
		'Whether to register a plain http:// webhook URL. The service normally refuses it; use only with a local test service.',
};

/** What keeps the service from delivering to a URL: not a web address, or plain http where it is not allowed. */
export function webhookUrlProblem(value: string, allowHttp: boolean): 'invalid' | 'http' | undefined {
	const protocol = URL.canParse(value) ? new URL(value).protocol : undefined;
	if (protocol !== 'http:' && protocol !== 'https:') return 'invalid';
	return protocol === 'http:' && !allowHttp ? 'http' : undefined;
}
