import type { IDataObject, IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

import { SocialAggregatorDataTrigger } from '../../../nodes/SocialAggregatorDataTrigger/SocialAggregatorDataTrigger.node';
import { oldestFirst, pollOnce, pollKey, type PollState } from '../../../nodes/SocialAggregatorDataTrigger/poll';
import type { DataPost, PlatformStatus } from '../../../nodes/shared/types';
import type { DataPostsResponse } from '../shared/dataPostsResponse';

/** A small Data API: posts per platform, newest first, pages of `pageSize`, cursors `<platform>@<offset>`. */
class DataApiStub {
	posts: Record<string, DataPost[]> = {};

	pageSize: Record<string, number> = {};

	failing: Record<string, { code: string; times: number }> = {};

	rounds: Array<{ platforms: string[]; cursor?: string }> = [];

	private clock = Date.parse('2026-01-01T00:00:00Z');

	add(platform: string, count: number): DataPost[] {
		const added: DataPost[] = [];
		for (let i = 0; i < count; i++) {
			this.clock += 60_000;
			const n = (this.posts[platform]?.length ?? 0) + 1;
			const post = {
				platform,
				platform_id: `${platform}-${n}`,
				url: `https://${platform.toLowerCase()}.example/${n}`,
				post_created_at: new Date(this.clock).toISOString(),
				message: `${platform} post ${n}`,
			};
			this.posts[platform] = [post, ...(this.posts[platform] ?? [])];
			added.push(post);
		}
		return added;
	}

	fetch = async (round: { platforms: string[]; cursor?: string }): Promise<DataPostsResponse> => {
		this.rounds.push(round);
		const cursors = Object.fromEntries(
			(round.cursor ?? '').split(',').filter(Boolean).map((c) => [c.split('@')[0], Number(c.split('@')[1])]),
		);
		const data: DataPost[] = [];
		const statuses: PlatformStatus[] = [];
		for (const platform of round.platforms) {
			const failure = this.failing[platform];
			if (failure && failure.times > 0) {
				failure.times--;
				statuses.push({ platform, success: false, error_code: failure.code, message: `${platform} broke` });
				continue;
			}
			const all = this.posts[platform] ?? [];
			const size = this.pageSize[platform] ?? 3;
			const offset = cursors[platform] ?? 0;
			const page = all.slice(offset, offset + size);
			data.push(...page);
			const more = offset + size < all.length;
			statuses.push({ platform, success: true, count: page.length, next_cursor: more ? `${platform}@${offset + size}` : null, has_more: more });
		}
		return { data, meta: { total_results: data.length, platforms: statuses } };
	};

	/** One round as pollOnce takes it. */
	round = async (round: { platforms: string[]; cursor?: string }) => {
		const response = await this.fetch(round);
		return { data: response.data, statuses: response.meta.platforms };
	};
}

const ids = (posts: DataPost[]) => posts.map((p) => p.platform_id);

describe('pollOnce', () => {
	const search = { term: '#n8n', platforms: ['Bluesky', 'Twitter'] };

	it('records the first page on the first poll without emitting it', async () => {
		const api = new DataApiStub();
		api.add('Bluesky', 5);
		api.add('Twitter', 2);
		const result = await pollOnce(search, {}, api.round);
		expect(result.posts).toEqual([]);
		expect(result.recorded).toEqual(['Bluesky', 'Twitter']);
		expect(api.rounds).toEqual([{ platforms: ['Bluesky', 'Twitter'] }]);
		expect(result.state.seen).toEqual({
			Bluesky: ['Bluesky-5', 'Bluesky-4', 'Bluesky-3'].map((id) => `bluesky:id:${id}`),
			Twitter: ['Twitter-2', 'Twitter-1'].map((id) => `twitter:id:${id}`),
		});
	});

	it('emits each new post once, oldest first across platforms, in shared rounds', async () => {
		const api = new DataApiStub();
		api.add('Bluesky', 4);
		api.add('Twitter', 4);
		let state: PollState = (await pollOnce(search, {}, api.round)).state;
		api.rounds = [];

		const newer = [...api.add('Bluesky', 1), ...api.add('Twitter', 5), ...api.add('Bluesky', 1)];
		const second = await pollOnce(search, state, api.round);
		expect(ids(second.posts)).toEqual(ids(newer));
		// Twitter needed two pages; Bluesky met a known post on its first: the second round asked Twitter alone.
		expect(api.rounds).toEqual([{ platforms: ['Bluesky', 'Twitter'] }, { platforms: ['Twitter'], cursor: 'Twitter@3' }]);
		state = second.state;

		api.rounds = [];
		const third = await pollOnce(search, state, api.round);
		expect(third.posts).toEqual([]);
		expect(api.rounds).toHaveLength(1);
	});

	it('holds a burst larger than the page budget and emits all of it on the next poll, once, oldest first', async () => {
		const api = new DataApiStub();
		api.add('Bluesky', 1);
		const state = (await pollOnce({ term: 'a', platforms: ['Bluesky'] }, {}, api.round)).state;
		const newer = api.add('Bluesky', 10);
		const first = await pollOnce({ term: 'a', platforms: ['Bluesky'] }, state, api.round, { maxPages: 2 });
		expect(first.requests).toBe(2);
		expect(Object.keys(first.held)).toEqual(['Bluesky']);
		expect(first.held).toEqual({ Bluesky: 6 });
		expect(first.posts).toEqual([]);
		const second = await pollOnce({ term: 'a', platforms: ['Bluesky'] }, first.state, api.round, { maxPages: 2 });
		expect(api.rounds.at(-1)?.cursor).toBeDefined();
		expect(ids(second.posts)).toEqual(ids(newer));
		expect(Object.keys(second.held)).toEqual([]);
		expect(second.state.backlog).toBeUndefined();
		const later = api.add('Bluesky', 2);
		const third = await pollOnce({ term: 'a', platforms: ['Bluesky'] }, second.state, api.round, { maxPages: 2 });
		expect(ids(third.posts)).toEqual(ids(later));
		const fourth = await pollOnce({ term: 'a', platforms: ['Bluesky'] }, third.state, api.round, { maxPages: 2 });
		expect(fourth.posts).toEqual([]);
	});

	it("reads a burst larger than the key's rate limit over the next polls: none dropped, no page bought twice", async () => {
		const api = new DataApiStub();
		api.add('Bluesky', 1);
		let state = (await pollOnce({ term: 'a', platforms: ['Bluesky'] }, {}, api.round)).state;
		const burst = api.add('Bluesky', 12);
		api.rounds.length = 0;
		const emitted: DataPost[] = [];
		// What the budget allows at each poll: none, then one page, then two, then plenty.
		for (const budgetLeft of [0, 1, 0, 1, 2, 10]) {
			const result = await pollOnce({ term: 'a', platforms: ['Bluesky'] }, state, api.round, { maxPages: 3, budgetLeft });
			expect(result.requests).toBeLessThanOrEqual(budgetLeft);
			emitted.push(...result.posts);
			state = result.state;
		}
		expect(ids(emitted)).toEqual(ids(burst));
		// Five pages of three hold the burst and the post seen before: each asked once.
		const cursors = api.rounds.map((round) => round.cursor ?? 'first');
		expect(cursors).toEqual(['first', 'Bluesky@3', 'Bluesky@6', 'Bluesky@9', 'Bluesky@12']);
		expect(state.backlog).toBeUndefined();
	});

	it('reads a backlog on over several polls, and the other platforms go on meanwhile', async () => {
		const api = new DataApiStub();
		api.add('Bluesky', 1);
		api.add('Twitter', 1);
		let state = (await pollOnce(search, {}, api.round)).state;
		const burst = api.add('Bluesky', 14);
		const emitted: DataPost[] = [];
		let twitter: DataPost[] = [];
		for (let poll = 0; poll < 8; poll++) {
			// New posts meanwhile shift the stub's offset cursors: pages repeat posts, which count once.
			if (poll === 1) twitter = api.add('Twitter', 1);
			if (poll === 2) burst.push(...api.add('Bluesky', 2));
			const result = await pollOnce(search, state, api.round, { maxPages: 2 });
			emitted.push(...result.posts);
			state = result.state;
		}
		expect(ids(emitted.filter((p) => p.platform === 'Bluesky'))).toEqual(ids(burst));
		expect(ids(emitted.filter((p) => p.platform === 'Twitter'))).toEqual(ids(twitter));
		expect(state.backlog).toBeUndefined();
	});

	it('reports a failing platform, keeps its memory, and emits the others', async () => {
		const api = new DataApiStub();
		api.add('Bluesky', 2);
		api.add('Twitter', 2);
		const state = (await pollOnce(search, {}, api.round)).state;
		const newBluesky = api.add('Bluesky', 1);
		const newTwitter = api.add('Twitter', 1);
		api.failing.Twitter = { code: 'invalid_term', times: 1 };
		const result = await pollOnce(search, state, api.round);
		expect(ids(result.posts)).toEqual(ids(newBluesky));
		expect(result.failures).toEqual([{ platform: 'Twitter', code: 'invalid_term', message: 'Twitter broke', attempts: 1 }]);
		expect(result.state.seen?.Twitter).toEqual(state.seen?.Twitter);
		// Next time Twitter's post is emitted, and Bluesky's is not emitted again.
		const next = await pollOnce(search, result.state, api.round);
		expect(ids(next.posts)).toEqual(ids(newTwitter));
	});

	it('asks a platform again after a transient failure within the same poll', async () => {
		const api = new DataApiStub();
		api.add('Bluesky', 2);
		api.add('Twitter', 2);
		const state = (await pollOnce(search, {}, api.round)).state;
		const fresh = api.add('Twitter', 1);
		api.failing.Twitter = { code: 'fetch_timeout', times: 1 };
		const result = await pollOnce(search, state, api.round);
		expect(result.failures).toEqual([]);
		expect(ids(result.posts)).toEqual(ids(fresh));
		expect(api.rounds.at(-1)).toEqual({ platforms: ['Twitter'] });
	});

	it('records a platform added later instead of flooding, and starts afresh for another term', async () => {
		const api = new DataApiStub();
		api.add('Bluesky', 2);
		api.add('Twitter', 3);
		const state = (await pollOnce({ term: '#n8n', platforms: ['Bluesky'] }, {}, api.round)).state;
		const widened = await pollOnce(search, state, api.round);
		expect(widened.posts).toEqual([]);
		expect(widened.recorded).toEqual(['Twitter']);
		const other = await pollOnce({ term: '#other', platforms: ['Bluesky'] }, widened.state, api.round);
		expect(other.recorded).toEqual(['Bluesky']);
	});

	it.each([
		['the alias X for Twitter, in posts and reports', ['Bluesky', 'Twitter'], (name: string) => (name === 'Twitter' ? 'X' : name)],
		['another name when one platform is asked', ['Twitter'], () => 'twitter.com'],
		['no name when one platform is asked', ['Twitter'], () => undefined],
	])('emits posts whose platform is named by %s', async (_shape, platforms, rename) => {
		const api = new DataApiStub();
		const named = async (round: { platforms: string[]; cursor?: string }) => {
			const { data, statuses } = await api.round(round);
			const relabel = <T extends { platform: string }>(entry: T) => ({ ...entry, platform: rename(entry.platform) ?? (undefined as never) });
			return { data: data.map(relabel), statuses: platforms.length > 1 ? statuses.map(relabel) : statuses };
		};
		for (const platform of platforms) api.add(platform, 2);
		const state = (await pollOnce({ term: '#n8n', platforms }, {}, named)).state;
		const fresh = api.add('Twitter', 2);
		const result = await pollOnce({ term: '#n8n', platforms }, state, named);
		expect(result.failures).toEqual([]);
		expect(ids(result.posts)).toEqual(ids(fresh));
	});

	it('keeps the memory bounded', async () => {
		const api = new DataApiStub();
		api.pageSize.Bluesky = 10;
		api.add('Bluesky', 1);
		let state = (await pollOnce({ term: 'a', platforms: ['Bluesky'] }, {}, api.round, { rememberPerPlatform: 4 })).state;
		api.add('Bluesky', 8);
		state = (await pollOnce({ term: 'a', platforms: ['Bluesky'] }, state, api.round, { rememberPerPlatform: 4 })).state;
		expect(state.seen?.Bluesky).toHaveLength(4);
	});

	it('orders posts without a time after the post before them', () => {
		const a = { platform: 'A', platform_id: 'a1', url: null, message: null, post_created_at: '2026-01-01T00:00:02Z' };
		const b = { platform: 'A', platform_id: 'a2', url: null, message: null, post_created_at: null };
		const c = { platform: 'B', platform_id: 'b1', url: null, message: null, post_created_at: '2026-01-01T00:00:01Z' };
		// Lists come newest first: b (no time) is newer than a.
		expect(ids(oldestFirst([[b, a], [c]]))).toEqual(['b1', 'a1', 'a2']);
		expect(pollKey({ platform: 'A', platform_id: null, url: 'u', message: null, post_created_at: null })).toBe('a:url:u');
	});
});

describe('SocialAggregatorDataTrigger.poll()', () => {
	function pollContext(parameters: IDataObject, mode: string, staticData: IDataObject = {}) {
		const requests: IDataObject[] = [];
		const api = new DataApiStub();
		const logs: string[] = [];
		const context = {
			getNode: () => ({ id: 'n', name: 'Data Trigger', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} }),
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

	it('emits a status item per failed platform when asked, and fails when every platform fails otherwise', async () => {
		const emit = pollContext({ term: '#n8n', platforms: ['Bluesky', 'Twitter'], termType: 'auto', options: { platformErrors: 'emit' } }, 'trigger');
		emit.api.add('Bluesky', 1);
		await node.poll.call(emit.context);
		emit.api.failing.Twitter = { code: 'invalid_term', times: 5 };
		emit.api.add('Bluesky', 1);
		const result = await node.poll.call(emit.context);
		expect(result?.[0].map((i) => i.json)).toEqual([
			expect.objectContaining({ platform_id: 'Bluesky-2' }),
			{ type: 'platform_status', platform: 'Twitter', success: false, error_code: 'invalid_term', message: 'Twitter broke', failed_attempts: 1 },
		]);
		expect(emit.logs.some((l) => l.includes('some platforms failed'))).toBe(true);

		const all = pollContext({ term: '#n8n', platforms: ['Bluesky'], termType: 'auto' }, 'trigger');
		all.api.failing.Bluesky = { code: 'invalid_term', times: 5 };
		await expect(node.poll.call(all.context)).rejects.toThrow('Every platform failed');
	});

	it('with Continue With a Warning, a failed platform starts an execution whose trigger shows it as a warning hint and passes only posts on', async () => {
		const log = pollContext({ term: '#n8n', platforms: ['Bluesky', 'Twitter'], termType: 'auto' }, 'trigger');
		log.api.add('Bluesky', 1);
		log.api.add('Twitter', 1);
		await node.poll.call(log.context);
		log.api.failing.Twitter = { code: 'invalid_term', times: 5 };
		// Nothing new: the failure alone still starts an execution.
		const polled = await node.poll.call(log.context);
		expect(polled?.[0]).toHaveLength(1);
		const hints: unknown[] = [];
		const execution = {
			getMode: () => 'trigger',
			getInputData: () => polled![0],
			addExecutionHints: (...added: unknown[]) => hints.push(...added),
		} as unknown as IExecuteFunctions;
		expect(await node.execute.call(execution)).toEqual([[]]);
		expect(hints).toEqual([
			expect.objectContaining({ type: 'warning', message: expect.stringContaining('Twitter broke (invalid_term)') }),
		]);

		const fresh = log.api.add('Bluesky', 1);
		const withPosts = await node.poll.call(log.context);
		const passed = await node.execute.call({ ...execution, getInputData: () => withPosts![0] } as unknown as IExecuteFunctions);
		expect(passed[0].map((i) => i.json.platform_id)).toEqual(ids(fresh));
		expect(passed[0].map((i) => i.pairedItem)).toEqual([{ item: 0 }]);
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
});
