import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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
		{
			displayName: 'Rate Limit Hour (Seconds)',
			name: 'rateLimitHour',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 3600,
			description:
				'How long the hour of the rate limit is, in seconds; the burst minute is a sixtieth of it. Leave it at 3600: only a stand-in service for tests counts a shorter hour.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};
}
