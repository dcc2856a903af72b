import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	post: 'search';
	profile: 'lookUp';
	apiKey: 'request' | 'getStatus' | 'waitForApproval';
};

export type SocialAggregatorDataType = AllEntities<NodeMap>;
