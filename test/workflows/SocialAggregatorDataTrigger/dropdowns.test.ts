/**
 * The Data Trigger's platforms dropdown as the editor loads it (n8n-core's LoadOptionsContext),
 * against the fake service answering other shapes of `GET /platforms`: only pickable options.
 */
import type { ILoadOptionsFunctions, INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { DATA_PLATFORMS } from '../../fake-service';
import { SocialAggregatorDataTrigger } from '../../../nodes/SocialAggregatorDataTrigger/SocialAggregatorDataTrigger.node';
import { DATA_API_TERM_TYPES } from '../../../nodes/shared/constants';
import { expectPickable, loadOptionsContext, useFakeService } from '../support';

const TYPE = 'n8n-nodes-social-aggregator.socialAggregatorDataTrigger';
const NODE = 'Social Aggregator Data Trigger';

const fake = useFakeService();
const node = new SocialAggregatorDataTrigger();

function context(parameters: INodeParameters): ILoadOptionsFunctions {
	return loadOptionsContext(fake, { nodes: [{ name: NODE, type: TYPE, parameters }], connections: {} }, NODE, parameters, 'parameters.platforms');
}

async function platforms(): Promise<Array<string | number | boolean>> {
	const options: INodePropertyOptions[] = await node.methods.loadOptions.getDataPlatforms.call(context({ term: '#acme', platforms: [] }));
	expectPickable(options);
	return options.map((o) => o.value);
}

test('the platforms the fake lists; entries without display names or with bare term types, stray entries left out', async () => {
	expect((await platforms()).sort()).toEqual(DATA_PLATFORMS.map((p) => p.name).sort());
	fake.control.answers.add({
		path: '/platforms',
		body: { data: [{ platform: 'TikTok', display_name: null, term_types: ['hashtag'] }, { platform: 'Vimeo' }, 42, null, { term_types: ['username'] }] },
	});
	expect(await platforms()).toEqual(['TikTok', 'Vimeo']);
});

test('an answer with nothing usable: the table of docs/service.md#term-types', async () => {
	fake.control.answers.add({ path: '/platforms', body: { data: { platforms: [{}, null] } } });
	expect((await platforms()).sort()).toEqual(Object.keys(DATA_API_TERM_TYPES).sort());
});
