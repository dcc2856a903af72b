/**
 * The trigger's dropdowns as the editor loads them (n8n-core's LoadOptionsContext), against
 * the fake service answering shapes the service does not pin down: only pickable options.
 */
import type { ILoadOptionsFunctions, INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { WEBHOOK_EVENTS } from '../../fake-service';
import { SocialAggregatorTrigger } from '../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node';
import { expectPickable, loadOptionsContext, useFakeService } from '../support';

const TYPE = 'n8n-nodes-social-aggregator.socialAggregatorTrigger';
const NODE = 'Social Aggregator Trigger';

const fake = useFakeService();
const node = new SocialAggregatorTrigger();

function context(parameters: INodeParameters, path: string): ILoadOptionsFunctions {
	return loadOptionsContext(fake, { nodes: [{ name: NODE, type: TYPE, parameters }], connections: {} }, NODE, parameters, path);
}

async function load(method: 'getWebhookEvents' | 'getFeeds', path: string): Promise<INodePropertyOptions[]> {
	const options = await node.methods.loadOptions[method].call(context({ events: [] }, path));
	expectPickable(options);
	return options;
}

const known = WEBHOOK_EVENTS.map((e) => e.name);

test('webhook events as the fake lists them, as bare names, or named `event` inside an object: the listed ones and the known ones', async () => {
	expect((await load('getWebhookEvents', 'parameters.events')).map((e) => e.value)).toEqual(known);
	fake.control.answers.add({ path: '/webhook_events', body: { data: ['post.created', 'post.moderated', ''] } });
	expect((await load('getWebhookEvents', 'parameters.events')).map((e) => e.value)).toEqual([
		'post.created',
		'post.moderated',
		'social_account.expiring',
		'social_account.expired',
	]);
	fake.control.answers.add({ path: '/webhook_events', body: { data: { events: [{ event: 'feed.synced' }] } } });
	expect((await load('getWebhookEvents', 'parameters.events')).map((e) => e.value)).toEqual(['feed.synced', ...known]);
});

test('webhook events with nothing usable: the known events, each with its description', async () => {
	fake.control.answers.add({ path: '/webhook_events', body: { data: [{ description: 'Nameless' }, {}, { id: null }] } });
	const events = await load('getWebhookEvents', 'parameters.events');
	expect(events.map((e) => e.value)).toEqual(known);
	expect(events.map((e) => e.description)).toEqual(WEBHOOK_EVENTS.map(() => expect.stringMatching(/\S/)));
});

test('feeds to filter on: nameless feeds labelled by id, entries without an id left out, a bare list read', async () => {
	expect((await load('getFeeds', 'parameters.options.feedIds')).map((f) => f.value)).toEqual(['1', '2', '3']);
	fake.control.answers.add({ path: '/feeds', body: { data: [{ id: 1, name: '' }, { name: 'No id' }, null, { id: 2, name: 'Launch' }], meta: {} } });
	expect(await load('getFeeds', 'parameters.options.feedIds')).toEqual([
		{ name: 'Feed 1', value: '1' },
		{ name: 'Launch (2)', value: '2' },
	]);
	fake.control.answers.add({ path: '/feeds', body: [{ id: 3 }] });
	expect(await load('getFeeds', 'parameters.options.feedIds')).toEqual([{ name: 'Feed 3', value: '3' }]);
});
