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
