import { VersionedNodeType } from 'n8n-workflow';
import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';

import { SocialAggregatorDataV1 } from './SocialAggregatorDataV1.node';

export class SocialAggregatorData extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Social Aggregator Data',
			name: 'socialAggregatorData',
			icon: { light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' },
			group: ['input'],
			subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
			description: 'Search recent social posts across platforms, look up profiles and request API keys',
			defaultVersion: 1,
		};

		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new SocialAggregatorDataV1(baseDescription),
		};

		super(nodeVersions, baseDescription);
	}
}
