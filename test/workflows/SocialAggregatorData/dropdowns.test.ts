/**
 * The platforms dropdown as the editor loads it: n8n-core's LoadOptionsContext with the
 * node's parameters, against the fake service over real HTTP.
 */
import { NodeHelpers, type ILoadOptionsFunctions, type INodeParameters, type INodeType } from 'n8n-workflow';

import { DATA_PLATFORMS } from '../../fake-service';
import { SocialAggregatorData } from '../../../nodes/SocialAggregatorData/SocialAggregatorData.node';
import { DATA_API_TERM_TYPES } from '../../../nodes/shared/constants';
import { expectPickable, fastSleep, loadOptionsContext, useFakeService } from '../support';
import { NODE, workflow } from './helpers';

const fake = useFakeService();
const node = NodeHelpers.getVersionedNodeType(new SocialAggregatorData(), 1) as INodeType;

function context(parameters: INodeParameters, path: string): ILoadOptionsFunctions {
	return loadOptionsContext(fake, workflow(parameters), NODE, parameters, path);
}

const getDataPlatforms = () => node.methods!.loadOptions!.getDataPlatforms;

test('the node declares one version, is usable as a tool, and names its dropdown loader', () => {
	expect(node.description).toMatchObject({ name: 'socialAggregatorData', version: 1, usableAsTool: true });
	expect(new SocialAggregatorData().description.defaultVersion).toBeUndefined();
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

describe('the platforms dropdown stays usable whatever shape the service answers', () => {
	const load = async () => {
		const options = await getDataPlatforms().call(context({ resource: 'post', operation: 'search' }, 'parameters.platforms'));
		expectPickable(options);
		return options;
	};

	test('entries without display names or term-type objects, and stray entries: the searchable platforms, pickable', async () => {
		fake.control.answers.add({
			path: '/platforms',
			body: {
				data: [
					{ platform: 'Bluesky', term_types: ['username', 'hashtag'] },
					{ platform: 'Twitter', term_types: [{ term_type: 'mentions', display_name: null }] },
					{ platform: 'LinkedIn', term_types: [{ term_type: 'company', requires_connection: { provider: 'linkedin' } }] },
					{ platform: 'Threads', term_types: [{ term_type: 'username' }] },
					null,
					{ display_name: 'No platform', term_types: [] },
				],
			},
		});
		expect(await load()).toEqual([
			{ name: 'Bluesky', value: 'Bluesky' },
			{ name: 'X (Twitter)', value: 'Twitter' },
		]);
	});

	test('platforms as bare names are taken at SPEC.md’s word; an answer with nothing usable gives SPEC.md’s table', async () => {
		fake.control.answers.add({ path: '/platforms', body: { data: ['Reddit', 'Google', 'Threads', ''] } });
		expect((await load()).map((o) => o.value)).toEqual(['Google', 'Reddit']);

		fake.control.answers.add({ path: '/platforms', body: { data: [null, {}, { display_name: 'Nameless' }] } });
		expect((await load()).map((o) => o.value).sort()).toEqual(Object.keys(DATA_API_TERM_TYPES).sort());
		fake.control.answers.add({ path: '/platforms', body: { platforms: 'all' } });
		expect((await load()).map((o) => o.value).sort()).toEqual(Object.keys(DATA_API_TERM_TYPES).sort());
	});
});
