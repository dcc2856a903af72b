import { oldestFirst, pollKey, recall, settleAll, type PollState } from '../../../nodes/SocialAggregatorDataTrigger/pollMemory';
import type { PlatformProgress } from '../../../nodes/shared/roundPage';
import type { DataPost } from '../../../nodes/shared/types';
import { ids } from '../support/dataApiStub';

describe('the order of new posts', () => {
	it('orders posts without a time after the post before them', () => {
		const a = { platform: 'A', platform_id: 'a1', url: null, message: null, post_created_at: '2026-01-01T00:00:02Z' };
		const b = { platform: 'A', platform_id: 'a2', url: null, message: null, post_created_at: null };
		const c = { platform: 'B', platform_id: 'b1', url: null, message: null, post_created_at: '2026-01-01T00:00:01Z' };
		// Lists come newest first: b (no time) is newer than a.
		expect(ids(oldestFirst([[b, a], [c]]))).toEqual(['b1', 'a1', 'a2']);
		expect(pollKey({ platform: 'A', platform_id: null, url: 'u', message: null, post_created_at: null })).toBe('a:url:u');
	});
});

const post = (platform: string, id: string): DataPost => ({ platform, platform_id: id, url: null, message: null, post_created_at: null });
const progressOf = (platform: string, state: PlatformProgress['state'], cursor: string | null = null, error?: PlatformProgress['error']): PlatformProgress => ({
	platform,
	state,
	cursor,
	collected: 0,
	failures: error ? 2 : 0,
	error,
});

/** What settleAll made of platform X, read back as one outcome: its progress, its backlog before, the posts found, with memory or not. */
function settleOne(p: PlatformProgress, before: { cursor: string; posts: DataPost[]; keys: string[] } | undefined, found: DataPost[], remembers: boolean) {
	const settled = settleAll([p], {
		reads: { X: { found, keys: found.map(pollKey) } },
		backlog: before ? { X: before } : {},
		seenSets: remembers ? { X: new Set<string>() } : {},
		oldSeen: {},
		remember: 10,
	});
	if (settled.failures.length > 0) return { kind: 'failed' };
	if (settled.held.X !== undefined) return { kind: 'held', posts: settled.nextBacklog.X.posts, cursor: settled.nextBacklog.X.cursor, keys: settled.nextBacklog.X.keys };
	if (settled.emitted.X) return { kind: 'emitted', posts: settled.emitted.X };
	if (settled.recorded.includes('X')) return { kind: 'recorded', seen: settled.seen.X };
	return { kind: 'notAsked', backlog: settled.nextBacklog.X };
}

describe('what one poll did with a platform', () => {
	const found = [post('X', 'x2')];

	it('a failure, or a platform the page budget never reached, changes nothing', () => {
		expect(settleOne(progressOf('X', 'failed'), undefined, found, true)).toEqual({ kind: 'failed' });
		expect(settleOne(progressOf('X', 'done', null, { code: 'fetch_timeout', message: 'slow' }), undefined, found, true)).toEqual({ kind: 'failed' });
		expect(settleOne(progressOf('X', 'first'), undefined, [], true)).toEqual({ kind: 'notAsked' });
		// Its backlog's cursor unmoved: not asked this time either, its backlog kept.
		const before = { cursor: 'c1', posts: [post('X', 'x1')], keys: ['x:id:x1'] };
		expect(settleOne(progressOf('X', 'more', 'c1'), before, [], true)).toEqual({ kind: 'notAsked', backlog: before });
	});

	it('more to read with memory: held behind its backlog, with the cursor to go on from', () => {
		const before = { cursor: 'c1', posts: [post('X', 'x1')], keys: ['x:id:x0', 'x:id:x1'] };
		expect(settleOne(progressOf('X', 'more', 'c2'), before, found, true)).toEqual({
			kind: 'held',
			posts: [post('X', 'x1'), post('X', 'x2')],
			cursor: 'c2',
			keys: ['x:id:x0', 'x:id:x1', 'x:id:x2'],
		});
	});

	it('read to the end: emitted with memory, recorded without', () => {
		expect(settleOne(progressOf('X', 'done'), undefined, found, true)).toEqual({ kind: 'emitted', posts: found });
		expect(settleOne(progressOf('X', 'done'), undefined, found, false)).toEqual({ kind: 'recorded', seen: ['x:id:x2'] });
		// Without memory, a first page that has more is recorded, never held.
		expect(settleOne(progressOf('X', 'more', 'c1'), undefined, found, false)).toEqual({ kind: 'recorded', seen: ['x:id:x2'] });
	});
});

describe('settleAll: the outcomes made into the next memory', () => {
	it('each platform by its outcome; the memory of one not read to a known post is kept as it was', () => {
		const oldSeen = { A: ['a:id:a0'], B: ['b:id:b0'], C: ['c:id:c0'] };
		const read = (...posts: DataPost[]) => ({ found: posts, keys: posts.map(pollKey) });
		const memory = {
			reads: { A: read(post('A', 'a1')), B: read(post('B', 'b2')), C: read(), D: read(post('D', 'd1')) },
			backlog: { B: { cursor: 'b-c1', posts: [post('B', 'b1')], keys: ['b:id:b1'] } },
			seenSets: { A: new Set(oldSeen.A), B: new Set(oldSeen.B), C: new Set(oldSeen.C) },
			oldSeen,
			remember: 2,
		};
		const settled = settleAll(
			[progressOf('A', 'done'), progressOf('B', 'more', 'b-c2'), progressOf('C', 'failed', null, { code: 'platform_error', message: 'down' }), progressOf('D', 'done')],
			memory,
		);
		expect(settled.emitted).toEqual({ A: [post('A', 'a1')] });
		expect(settled.held).toEqual({ B: 2 });
		expect(settled.nextBacklog).toEqual({ B: { cursor: 'b-c2', posts: [post('B', 'b1'), post('B', 'b2')], keys: ['b:id:b1', 'b:id:b2'] } });
		expect(settled.failures).toEqual([{ platform: 'C', code: 'platform_error', message: 'down', attempts: 2 }]);
		expect(settled.recorded).toEqual(['D']);
		// A and D read to the end: their newest first, within `remember`; B and C keep what they knew.
		expect(settled.seen).toEqual({ A: ['a:id:a1', 'a:id:a0'], B: oldSeen.B, C: oldSeen.C, D: ['d:id:d1'] });
	});

	it('a failed platform keeps its backlog for the next poll', () => {
		const backlog = { A: { cursor: 'a-c1', posts: [post('A', 'a1')], keys: ['a:id:a1'] } };
		const settled = settleAll([progressOf('A', 'failed', 'a-c1', { code: 'fetch_timeout', message: 'slow' })], {
			reads: { A: { found: [], keys: [] } },
			backlog,
			seenSets: { A: new Set(['a:id:a0']) },
			oldSeen: { A: ['a:id:a0'] },
			remember: 10,
		});
		expect(settled.nextBacklog).toEqual(backlog);
		expect(settled.seen).toEqual({ A: ['a:id:a0'] });
		expect(settled.emitted).toEqual({});
	});
});

describe('pollKey', () => {
	const review = (name: string, message: string | null): DataPost => ({ platform: 'Google', platform_id: null, url: null, post_created_at: null, message, poster: { name } });

	it('tells apart posts lacking platform_id, url and time by what they hold and who posted them', () => {
		const long = 'x'.repeat(130);
		const keys = [review('Ann', null), review('Bob', null), review('Ann', `${long} a`), review('Ann', `${long} b`)].map(pollKey);
		expect(new Set(keys).size).toBe(4);
		expect(keys[0]).toMatch(/^google:h:/);
	});

	it('keeps a post’s key when it is listed again with its counts moved on', () => {
		expect(pollKey({ ...review('Ann', 'great'), like_count: 5 })).toBe(pollKey({ ...review('Ann', 'great'), like_count: 9 }));
	});
});

describe('settleAll: what the next memory keeps', () => {
	it('the keys of every post read, known ones too, come first: a post that stays on top is never forgotten', () => {
		const oldSeen = { A: ['a:id:a0', 'a:id:old1', 'a:id:old2', 'a:id:pin'] };
		const settled = settleAll([progressOf('A', 'done')], {
			reads: { A: { found: [post('A', 'a1')], keys: ['a:id:pin', 'a:id:a1', 'a:id:a0'] } },
			backlog: {},
			seenSets: { A: new Set(oldSeen.A) },
			oldSeen,
			remember: 4,
		});
		expect(settled.emitted).toEqual({ A: [post('A', 'a1')] });
		expect(settled.seen).toEqual({ A: ['a:id:pin', 'a:id:a1', 'a:id:a0', 'a:id:old1'] });
	});

	it('a backlog past 100 posts emits them now and keeps their keys and the cursor to read on from', () => {
		const many = Array.from({ length: 101 }, (_, i) => post('A', `a${i}`));
		const settled = settleAll([progressOf('A', 'more', 'a-c2')], {
			reads: { A: { found: many, keys: many.map(pollKey) } },
			backlog: {},
			seenSets: { A: new Set(['a:id:old']) },
			oldSeen: { A: ['a:id:old'] },
			remember: 10,
		});
		expect(settled.emitted.A).toHaveLength(101);
		expect(settled.nextBacklog).toEqual({ A: { cursor: 'a-c2', posts: [], keys: many.map(pollKey) } });
		// The memory the next read from the newest page stops at stays as it was until the backlog is read to the end.
		expect(settled.seen).toEqual({ A: ['a:id:old'] });
	});

	it('a backlog read afresh (its cursor refused) puts what it reads now above what it had read', () => {
		const settled = settleAll([progressOf('A', 'done')], {
			reads: { A: { found: [post('A', 'a9')], keys: ['a:id:a9', 'a:id:a5', 'a:id:old'] } },
			backlog: { A: { posts: [post('A', 'a4')], keys: ['a:id:a5', 'a:id:a4'] } },
			seenSets: { A: new Set(['a:id:old']) },
			oldSeen: { A: ['a:id:old'] },
			remember: 10,
		});
		expect(settled.emitted).toEqual({ A: [post('A', 'a9'), post('A', 'a4')] });
		expect(settled.seen).toEqual({ A: ['a:id:a9', 'a:id:a5', 'a:id:old', 'a:id:a4'] });
		expect(settled.nextBacklog).toEqual({});
	});
});

describe('recall', () => {
	const search = { term: 'acme', platforms: ['A', 'B', 'C'] };
	const identity = JSON.stringify(['acme', 'auto']);

	it('reads a backlog saved before backlogs kept keys, one without a cursor, and drops one it cannot use', () => {
		const saved = {
			search: identity,
			seen: { A: ['a:id:a0'], B: ['b:id:b0'], C: ['c:id:c0'] },
			backlog: { A: { cursor: 'a-c1', posts: [post('A', 'a1')] }, B: { posts: [], keys: ['b:id:b1'] }, C: { cursor: 7, posts: [] } },
		};
		// Saved by another version, or changed by hand: not the shape PollState promises.
		const { backlog } = recall(search, saved as unknown as PollState);
		expect(backlog).toEqual({ A: { cursor: 'a-c1', posts: [post('A', 'a1')], keys: ['a:id:a1'] }, B: { posts: [], keys: ['b:id:b1'] } });
	});
});
