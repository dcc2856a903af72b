import { pollOnce } from '../../../nodes/SocialAggregatorDataTrigger/poll';
import type { PollState } from '../../../nodes/SocialAggregatorDataTrigger/pollMemory';
import type { DataPost } from '../../../nodes/shared/types';
import { DataApiStub, ids } from '../support/dataApiStub';

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
});

describe('pollOnce at the edges of a read', () => {
	const one = { term: 'acme', platforms: ['Twitter'] };
	/** Polls `times` times, the posts emitted in order, the last memory and every poll's result. */
	async function pollTimes(api: DataApiStub, state: PollState, times: number, options = {}) {
		const emitted: DataPost[] = [];
		const results = [];
		for (let i = 0; i < times; i++) {
			const result = await pollOnce(one, state, api.round, options);
			emitted.push(...result.posts);
			results.push(result);
			state = result.state;
		}
		return { emitted, state, results };
	}

	it('a post that stays first on every first page proves nothing: 8 new posts behind it, over two pages, all emitted once', async () => {
		const api = new DataApiStub();
		api.pageSize.Twitter = 5;
		api.pinned.add('Twitter');
		const [pin] = api.add('Twitter', 12);
		let state = (await pollOnce(one, {}, api.round)).state;
		const fresh = api.add('Twitter', 8);
		const second = await pollOnce(one, state, api.round);
		expect(ids(second.posts)).toEqual(ids(fresh));
		// Page 1 (the pin and 4 new), page 2 (4 new and a known post last): the read ends there.
		expect(second.requests).toBe(2);
		state = second.state;
		const quiet = await pollOnce(one, state, api.round);
		expect([quiet.posts, quiet.requests]).toEqual([[], 1]);
		expect(ids([pin])).toEqual(['Twitter-1']);
	});

	it('the post that stays first is never emitted again, however many new posts pass below it', async () => {
		const api = new DataApiStub();
		api.pageSize.Twitter = 5;
		api.pinned.add('Twitter');
		api.add('Twitter', 6);
		let state = (await pollOnce(one, {}, api.round, { rememberPerPlatform: 10 })).state;
		const fresh: DataPost[] = [];
		const emitted: DataPost[] = [];
		for (let poll = 0; poll < 12; poll++) {
			fresh.push(...api.add('Twitter', 3));
			const result = await pollOnce(one, state, api.round, { rememberPerPlatform: 10 });
			emitted.push(...result.posts);
			state = result.state;
		}
		expect(ids(emitted)).toEqual(ids(fresh));
	});

	it('a known post back on top (reposted, re-ranked) above a page of new posts: the read goes on to a page that ends known', async () => {
		const api = new DataApiStub();
		api.pageSize.Twitter = 4;
		api.add('Twitter', 4);
		const state = (await pollOnce(one, {}, api.round)).state;
		const [known, ...older] = api.posts.Twitter;
		const fresh = api.add('Twitter', 5);
		api.posts.Twitter = [known, ...[...fresh].reverse(), ...older];
		const result = await pollOnce(one, state, api.round);
		expect(ids(result.posts)).toEqual(ids(fresh));
		expect(result.requests).toBe(2);
		// Quiet: the first page ends with a known post.
		expect((await pollOnce(one, result.state, api.round)).requests).toBe(1);
	});

	it('a backlog whose cursor is refused (expired) is read afresh from the newest page: every post of it once, and the posts since', async () => {
		const api = new DataApiStub();
		api.add('Twitter', 2);
		let state = (await pollOnce(one, {}, api.round)).state;
		const burst = api.add('Twitter', 15);
		const first = await pollOnce(one, state, api.round, { maxPages: 2 });
		expect(first.held).toEqual({ Twitter: 6 });
		api.expireCursors();
		const later = api.add('Twitter', 2);
		const rest = await pollTimes(api, first.state, 4, { maxPages: 2 });
		expect(ids(rest.emitted).sort()).toEqual(ids([...burst, ...later]).sort());
		expect(rest.results.flatMap((r) => r.failures)).toEqual([]);
		expect(rest.state.backlog).toBeUndefined();
		// The refused cursor was sent once, not at every poll.
		const refused = api.rounds.filter((r) => r.cursor === 'Twitter@6');
		expect(refused).toHaveLength(1);
		state = rest.state;
		const after = api.add('Twitter', 1);
		expect(ids((await pollOnce(one, state, api.round, { maxPages: 2 })).posts)).toEqual(ids(after));
	});

	it('a cursor refused at every poll: what a poll held is emitted at the next, never twice, and nothing read stays held', async () => {
		const api = new DataApiStub();
		api.add('Twitter', 1);
		let state = (await pollOnce(one, {}, api.round)).state;
		const burst = api.add('Twitter', 20);
		const emitted: DataPost[] = [];
		for (let poll = 0; poll < 6; poll++) {
			const result = await pollOnce(one, state, api.round, { maxPages: 2 });
			emitted.push(...result.posts);
			expect(result.refused).toEqual(poll === 0 ? [] : ['Twitter']);
			state = result.state;
			api.expireCursors();
		}
		// Deeper than two pages, the read never gets past them: the six posts they hold come out once.
		expect(ids(emitted)).toEqual(ids(burst.slice(-6)));
		expect(state.backlog?.Twitter.posts).toEqual([]);
		expect(state.backlog?.Twitter.keys).toHaveLength(6);
	});

	it('a first poll that finds nothing, then a flood: the backlog never holds more than 100 whole posts, and each post comes once', async () => {
		const api = new DataApiStub();
		api.pageSize.Twitter = 25;
		let state = (await pollOnce(one, {}, api.round)).state;
		expect(state.seen).toEqual({ Twitter: [] });
		const flood = api.add('Twitter', 500);
		const emitted: DataPost[] = [];
		let held = 0;
		for (let poll = 0; poll < 10; poll++) {
			const result = await pollOnce(one, state, api.round, { maxPages: 3 });
			emitted.push(...result.posts);
			state = result.state;
			held = Math.max(held, state.backlog?.Twitter?.posts.length ?? 0);
			expect(JSON.stringify(state).length).toBeLessThan(100 * 1024);
		}
		expect(held).toBeLessThanOrEqual(100);
		expect(ids(emitted).sort()).toEqual(ids(flood).sort());
		expect(state.backlog).toBeUndefined();
	});

	it('posts lacking platform_id, url and time each have a key of their own: each is emitted', async () => {
		const api = new DataApiStub();
		api.add('Google', 2);
		const state = (await pollOnce({ term: 'ChIJplace', platforms: ['Google'] }, {}, api.round)).state;
		const review = (name: string, message: string | null): DataPost => ({ platform: 'Google', platform_id: null, url: null, post_created_at: null, message, poster: { name } });
		const long = 'x'.repeat(130);
		const fresh = [review('Ann', null), review('Bob', null), review('Cy', `${long} good`), review('Cy', `${long} bad`)];
		api.posts.Google = [...fresh, ...api.posts.Google];
		const result = await pollOnce({ term: 'ChIJplace', platforms: ['Google'] }, state, api.round);
		expect(result.posts).toHaveLength(4);
		const again = await pollOnce({ term: 'ChIJplace', platforms: ['Google'] }, result.state, api.round);
		expect(again.posts).toEqual([]);
	});
});
