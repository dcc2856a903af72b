/**
 * The platforms dropdown as the editor loads it: n8n-core's LoadOptionsContext with the
 * node's parameters, against the fake service over real HTTP.
 */
import { NodeHelpers, type ILoadOptionsFunctions, type INodeParameters, type INodeType } from 'n8n-workflow';

import { DATA_PLATFORMS } from '../../fake-service';
import { SocialAggregatorData } from '../../../nodes/SocialAggregatorData/SocialAggregatorData.node';
import { DATA_API_TERM_TYPES } from '../../../nodes/shared/constants';
import { fastSleep, loadOptionsContext, useFakeService } from '../support';
import { NODE, workflow } from './helpers';

const fake = useFakeService();
const node = NodeHelpers.getVersionedNodeType(new SocialAggregatorData(), 1) as INodeType;

function context(parameters: INodeParameters, path: string): ILoadOptionsFunctions {
	return loadOptionsContext(fake, workflow(parameters), NODE, parameters, path);
}

const getDataPlatforms = () => node.methods!.loadOptions!.getDataPlatforms;

test('the node is versioned, usable as a tool, and names its dropdown loader', () => {
	expect(node.description).toMatchObject({ name: 'socialAggregatorData', version: 1, usableAsTool: true });
	expect(new SocialAggregatorData().description).toMatchObject({ name: 'socialAggregatorData', defaultVersion: 1 });
});

test('platforms come from GET /platforms, only those searchable without a connected account', async () => {
	const options = await getDataPlatforms().call(context({ resource: 'post', operation: 'search' }, 'parameters.platforms'));
	expect(fake.control.requests.list().map((r) => [r.method, r.path])).toEqual([['GET', '/platforms']]);
	expect(options.map((o) => o.value).sort()).toEqual(DATA_PLATFORMS.map((p) => p.name).sort());
	expect(options.find((o) => o.value === 'Twitter')?.name).toBe('X (Twitter)');
});

test('when the service cannot be asked, SPEC.md’s table fills the dropdown', async () => {
	fake.control.injectFault({ path: '/platforms', kind: 'error', status: 503, count: 'always' });
	const sleep = fastSleep();
	try {
		const options = await getDataPlatforms().call(context({ resource: 'post', operation: 'search' }, 'parameters.platforms'));
		expect(options.map((o) => o.value).sort()).toEqual(Object.keys(DATA_API_TERM_TYPES).sort());
	} finally {
		sleep.restore();
	}
});
