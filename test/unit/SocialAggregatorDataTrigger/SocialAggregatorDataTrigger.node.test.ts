import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { onPlatformFailureOption } from '../../../nodes/SocialAggregatorData/common/platformFailure';
import { SocialAggregatorDataTrigger } from '../../../nodes/SocialAggregatorDataTrigger/SocialAggregatorDataTrigger.node';
import { DataApiStub, ids } from '../support/dataApiStub';

test('one version, and On Platform Failure once, under the name and values of the Data node', () => {
	const { description } = new SocialAggregatorDataTrigger();
	expect(description.version).toBe(1);
	expect(description.defaultVersion).toBeUndefined();
	const options = description.properties.find((p) => p.name === 'options')?.options as INodeProperties[];
	const failure = options.filter((o) => o.displayName === 'On Platform Failure');
	expect(failure.map((o) => o.name)).toEqual([onPlatformFailureOption.name]);
	const values = (property: INodeProperties) => property.options?.map((o) => ('value' in o ? o.value : undefined));
	expect(values(failure[0])).toEqual(values(onPlatformFailureOption));
	expect(failure[0].default).toBe(onPlatformFailureOption.default);
});

describe('SocialAggregatorDataTrigger.poll()', () => {
	let workflows = 0;
	function pollContext(parameters: IDataObject, mode: string, staticData: IDataObject = {}) {
		// Each context a workflow of its own: n8n's poll guard tells triggers apart by workflow and node.
		const workflowId = `w${++workflows}`;
		const requests: IDataObject[] = [];
		const api = new DataApiStub();
		const logs: string[] = [];
		const context = {
			getNode: () => ({ id: 'n', name: 'Data Trigger', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} }),
			getWorkflow: () => ({ id: workflowId, name: 'w', active: true }),
			getMode: () => mode,
			getActivationMode: () => 'activate',
			getWorkflowStaticData: () => staticData,
			getNodeParameter: (name: string, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
			getCredentials: async () => ({ apiKey: 'sag_live_unit', baseUrl: 'http://127.0.0.1:9/v1' }),
			logger: { debug: () => undefined, info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: () => undefined },
			helpers: {
				httpRequestWithAuthentication: async (_t: string, options: { qs: IDataObject }) => {
					requests.push(options.qs);
					const qs = options.qs;
					const body = await api.fetch({ platforms: String(qs.platforms).split(','), cursor: qs.cursor as string | undefined });
					return { statusCode: 200, headers: {}, body };
				},
			},
		} as unknown as IPollFunctions;
		return { context, requests, api, staticData, logs };
	}

	const node = new SocialAggregatorDataTrigger();

	it.each([
		[{ term: '', platforms: ['Bluesky'], termType: 'auto' }, 'Term'],
		[{ term: 'a', platforms: ['Bluesky', 'Friendster'], termType: 'auto' }, 'Platforms'],
		[{ term: 'a', platforms: ['Reddit'], termType: 'auto' }, 'Term Type'],
		[{ term: 'a', platforms: ['Vimeo'], termType: 'hashtag' }, 'Vimeo'],
	])('refuses %j before any request, naming %s', async (parameters, named) => {
		const { context, requests } = pollContext(parameters, 'trigger');
		await expect(node.poll.call(context)).rejects.toThrow(named);
		expect(requests).toEqual([]);
	});

	it('records on the first poll, then emits only new posts; a quiet poll emits nothing', async () => {
		const { context, api, staticData, requests } = pollContext({ term: '#n8n', platforms: ['Bluesky', 'Twitter'], termType: 'hashtag' }, 'trigger');
		api.add('Bluesky', 2);
		expect(await node.poll.call(context)).toBeNull();
		expect(requests[0]).toEqual({ term: '#n8n', platforms: 'Bluesky,Twitter', term_type: 'hashtag' });
		const fresh = api.add('Bluesky', 2);
		const emitted = await node.poll.call(context);
		expect(emitted?.[0].map((i) => i.json.platform_id)).toEqual(ids(fresh));
		expect(await node.poll.call(context)).toBeNull();
		expect(Object.keys(staticData)).toEqual(['search', 'seen']);
	});

	it.each([
		['`data` is null', (body: IDataObject) => ({ ...body, data: null })],
		['`meta` is missing', (body: IDataObject) => ({ data: body.data })],
	])('refuses an answer whose %s instead of reading it as no new posts, and keeps its memory', async (fault, spoil) => {
		const { context, api, staticData } = pollContext({ term: '#n8n', platforms: ['Bluesky'], termType: 'auto' }, 'trigger');
		api.add('Bluesky', 2);
		await node.poll.call(context);
		const memory = JSON.parse(JSON.stringify(staticData));
		api.add('Bluesky', 2);
		const fetch = api.fetch;
		api.fetch = async (round) => spoil((await fetch(round)) as unknown as IDataObject) as never;
		await expect(node.poll.call(context)).rejects.toThrow(`The service's answer to GET /data/posts (HTTP 200) cannot be used: ${fault}`);
		expect(staticData).toEqual(memory);
		// The next good answer emits the new posts: none were lost.
		api.fetch = fetch;
		expect((await node.poll.call(context))?.[0]).toHaveLength(2);
	});

	it('shows the latest few posts in a manual run without touching the memory', async () => {
		const { context, api, staticData, requests } = pollContext({ term: '#n8n', platforms: ['Bluesky', 'Twitter'], termType: 'auto', options: { testPosts: 3 } }, 'manual');
		api.add('Bluesky', 2);
		const latest = [...api.add('Twitter', 2), ...api.add('Bluesky', 1)];
		const result = await node.poll.call(context);
		expect(result?.[0].map((i) => i.json.platform_id)).toEqual(ids(latest));
		expect(requests).toEqual([{ term: '#n8n', platforms: 'Bluesky,Twitter' }]);
		expect(staticData).toEqual({});
	});

	it('by default continues with a status item per failed platform, which starts an execution alone', async () => {
		const poll = pollContext({ term: '#n8n', platforms: ['Bluesky', 'Twitter'], termType: 'auto' }, 'trigger');
		poll.api.add('Bluesky', 1);
		await node.poll.call(poll.context);
		poll.api.failing.Twitter = { code: 'invalid_term', times: 5 };
		const polled = await node.poll.call(poll.context);
		expect(polled?.[0].map((i) => i.json)).toEqual([
			{ type: 'platform_status', platform: 'Twitter', success: false, error_code: 'invalid_term', message: 'Twitter broke', failed_attempts: 1 },
		]);
		// Every platform failing is status items too, not an error.
		poll.api.failing.Bluesky = { code: 'invalid_term', times: 5 };
		expect((await node.poll.call(poll.context))?.[0]).toHaveLength(2);
	});

	it('Fail the Poll: the poll is an error naming the platform and its memory stays where it stood, so nothing is lost', async () => {
		const poll = pollContext({ term: '#n8n', platforms: ['Bluesky', 'Twitter'], termType: 'auto', options: { onPlatformFailure: 'fail' } }, 'trigger');
		poll.api.add('Bluesky', 1);
		await node.poll.call(poll.context);
		const memory = JSON.parse(JSON.stringify(poll.staticData));
		const fresh = poll.api.add('Bluesky', 1);
		poll.api.failing.Twitter = { code: 'invalid_term', times: 1 };
		await expect(node.poll.call(poll.context)).rejects.toThrow('Some platforms failed: X (Twitter): Twitter broke (invalid_term)');
		expect(poll.staticData).toEqual(memory);
		expect((await node.poll.call(poll.context))?.[0].map((i) => i.json.platform_id)).toEqual(ids(fresh));
	});

	it('a manual run shows a failed platform as a status item beside the latest posts', async () => {
		const { context, api } = pollContext({ term: '#n8n', platforms: ['Bluesky', 'Twitter'], termType: 'auto', options: { testPosts: 1 } }, 'manual');
		const latest = api.add('Bluesky', 1);
		api.failing.Twitter = { code: 'invalid_term', times: 5 };
		const result = await node.poll.call(context);
		expect(result?.[0].map((i) => i.json.platform_id ?? i.json.type)).toEqual([...ids(latest), 'platform_status']);
	});

	it('keeps a burst over Max Pages per Poll in its memory and emits it whole on the next poll', async () => {
		const { context, api, staticData } = pollContext({ term: '#n8n', platforms: ['Bluesky'], termType: 'auto', options: { maxPagesPerPoll: 3 } }, 'trigger');
		api.add('Bluesky', 1);
		await node.poll.call(context);
		const burst = api.add('Bluesky', 11);
		const first = await node.poll.call(context);
		// Only an info note: no execution.
		expect(first).toBeNull();
		expect((staticData.backlog as Record<string, { posts: unknown[] }>).Bluesky.posts).toHaveLength(9);
		const second = await node.poll.call(context);
		expect(second?.[0].map((i) => i.json.platform_id)).toEqual(ids(burst));
		expect(staticData.backlog).toBeUndefined();
	});

	it('a poll that starts while the previous one still runs (a slow answer) does nothing: each post once', async () => {
		const { context, api, requests } = pollContext({ term: '#n8n', platforms: ['Bluesky'], termType: 'auto' }, 'trigger');
		api.add('Bluesky', 2);
		await node.poll.call(context);
		const fresh = api.add('Bluesky', 2);
		const fetch = api.fetch;
		let answer: () => void = () => undefined;
		const slow = new Promise<void>((resolve) => (answer = resolve));
		api.fetch = async (round) => {
			await slow;
			return await fetch(round);
		};
		const first = node.poll.call(context);
		await new Promise((resolve) => setImmediate(resolve));
		const second = node.poll.call(context);
		answer();
		const [emitted, skipped] = await Promise.all([first, second]);
		expect(skipped).toBeNull();
		expect(emitted?.[0].map((i) => i.json.platform_id)).toEqual(ids(fresh));
		expect(requests).toHaveLength(2);
		expect(await node.poll.call(context)).toBeNull();
	});
});
