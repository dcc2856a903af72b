import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

const ENDS_IN_V1 = 'enter the address the API itself answers at, ending in /v1 (for example https://api.example.com/v1)';

/** Hosts on this machine, the only ones the key may reach over plain http (a local stand-in for the service). */
function isLoopback(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
	return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * A request as n8n hands it to `authenticate`: its own options, or the older request form (the HTTP Request node
 * with this credential), which names the address `uri` and redirects `followRedirect`/`followAllRedirects`.
 */
type AnyRequest = IHttpRequestOptions & { uri?: unknown; followRedirect?: boolean; followAllRedirects?: boolean };

/** The address a request goes to, as n8n's HTTP client joins `baseURL` and `url` (or `uri`); undefined when it is none. */
function requestTarget(request: AnyRequest): URL | undefined {
	const address = request.url ?? request.uri;
	try {
		return new URL(String(address), request.baseURL || undefined);
	} catch {
		return undefined;
	}
}

/** Why the key must not go with this request, or undefined when it may. */
function keyRefusal(apiKey: string, baseUrl: string, request: AnyRequest): string | undefined {
	if (apiKey === '') return 'The API Key is empty: paste the key from the Developer page of the dashboard.';
	// The HTTP client refuses such a header with a message that blames the address.
	if ([...apiKey].some((char) => char === '\r' || char === '\n' || char === '\0' || char.codePointAt(0)! > 0xff)) {
		return 'The API Key holds a line break or a character a request header cannot carry: paste the key again, on one line.';
	}
	// The text is not quoted: a key pasted into the Base URL would be.
	if (!URL.canParse(baseUrl)) return `The Base URL is not a web address: ${ENDS_IN_V1}.`;
	const base = new URL(baseUrl);
	if (base.protocol !== 'https:' && !(base.protocol === 'http:' && isLoopback(base.hostname))) {
		return `The Base URL ${base.origin} does not use https, and the API key travels only over https (plain http only to a service on this machine): ${ENDS_IN_V1}.`;
	}
	const target = requestTarget(request);
	// Every request with this credential goes to the Base URL's host: the key is sent nowhere else.
	if (target?.origin !== base.origin) {
		return `The API key is sent only to the Base URL's address (${base.origin}), not to ${target?.origin ?? 'a request without a web address'}.`;
	}
	return undefined;
}

export class SocialAggregatorApi implements ICredentialType {
	name = 'socialAggregatorApi';

	displayName = 'Social Aggregator API';

	icon: Icon = {
		light: 'file:socialAggregator.svg',
		dark: 'file:socialAggregator.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-social-aggregator/n8n-nodes-social-aggregator#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'A permanent key from the Developer page of the dashboard, or a temporary key issued by the API Key operations of the Social Aggregator Data node',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/v1',
			description:
				'The address of the API up to and including the version prefix /v1 (a trailing slash is fine). It must use https, unless the service runs on this machine.',
		},
		{
			displayName: 'Requests per Hour',
			name: 'requestsPerHour',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 300,
			description:
				"The key's rate limit: 300 by default, 60 before the email is confirmed, more on paid plans. A Return All that needs more requests than are left this hour is refused after its first page instead of failing half-way. 0: unknown, nothing is planned.",
		},
		{
			displayName: 'Burst per Minute',
			name: 'burstPerMinute',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 60,
			description: "The most requests the key may send in one minute (60 by default). 0: no burst limit.",
		},
	];

	/**
	 * The key goes only over https (or to this machine), only to the Base URL's host, and never follows a
	 * redirect: a 3xx comes back as an answer, so a Base URL that redirects cannot hand the key to another host.
	 * A refusal is thrown before the key is added; n8n shows its message (the credential test included).
	 */
	async authenticate(credentials: ICredentialDataDecryptedObject, request: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		const apiKey = String(credentials.apiKey ?? '');
		const refusal = keyRefusal(apiKey, String(credentials.baseUrl ?? '').trim(), request);
		if (refusal !== undefined) throw new Error(refusal);
		const authenticated: AnyRequest = {
			...request,
			headers: { ...request.headers, Authorization: `Bearer ${apiKey}` },
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			// The older request form follows a GET's redirects unless told not to.
			followRedirect: false,
			followAllRedirects: false,
		};
		return authenticated;
	}

	/**
	 * n8n's credential test: `GET /account` through n8n's own HTTP client (its proxy settings and SSRF
	 * protection apply). n8n shows a rule's fixed message for the answer's status; the service's own words and
	 * a redirect's Location cannot be shown.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{String($credentials.baseUrl || "").trim().replace(/\\/+$/, "")}}',
			url: '/account',
			method: 'GET',
			headers: { Accept: 'application/json' },
			json: true,
		},
		rules: [
			...[401, 403].map((value) => ({
				type: 'responseCode' as const,
				properties: {
					value,
					message: `The service refused the API key (HTTP ${value} from GET /account): paste the key again; a temporary key lasts 2 or 12 hours, a revoked one no longer works.`,
				},
			})),
			...[301, 302, 303, 307, 308].map((value) => ({
				type: 'responseCode' as const,
				properties: {
					value,
					message: `The Base URL answers GET /account with a redirect (HTTP ${value}), which the API key does not follow: ${ENDS_IN_V1}.`,
				},
			})),
			{
				type: 'responseCode',
				properties: { value: 404, message: `The Base URL has no GET /account (HTTP 404): ${ENDS_IN_V1}.` },
			},
			{
				type: 'responseCode',
				properties: {
					value: 429,
					message: "The service accepted the key but refuses more requests for now (HTTP 429, the key's rate limit): try again in a minute.",
				},
			},
			...[500, 502, 503, 504].map((value) => ({
				type: 'responseCode' as const,
				properties: {
					value,
					message: `The service at the Base URL failed (HTTP ${value}): try again later, and check the Base URL if it lasts.`,
				},
			})),
		],
	};
}
