import { firstMemory, isNewTo, recallFeedMemory, remember, saveFeedMemory } from '../../../nodes/SocialAggregatorFeedTrigger/feedMemory';

const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();
const post = (id: number, storedMs: number) => ({ id, created_at: at(storedMs), external_created_at: at(storedMs - 60_000) });

describe('feed memory', () => {
	it('a post is new above the floor and not remembered; the floor rises past what was stored a Late Posts Window before the newest', () => {
		const t0 = Date.parse('2026-06-01T00:00:00Z');
		const first = firstMemory([post(10, t0), post(9, t0 - 1000)], 25 * HOUR);
		expect(first.floor).toBe(10);
		const later = remember(first, [12, 14], [post(12, t0 + HOUR), post(14, t0 + 2 * HOUR)], 25 * HOUR);
		expect(later.seen).toEqual([12, 14]);
		const isNew = isNewTo(later);
		expect([10, 11, 12, 13, 14, 15].filter((id) => isNew({ id }))).toEqual([11, 13, 15]);
		// A day and more later: post 12's hour is out of the window, the floor rises to it.
		const day = remember(later, [20], [post(20, t0 + 27 * HOUR)], 25 * HOUR);
		expect(day.floor).toBe(12);
		expect(day.seen).toEqual([14, 20]);
	});

	it('saved as text and read back; text it did not write starts afresh', () => {
		const memory = remember({ floor: 100, seen: [], anchors: [] }, [101, 102, 104, 200], [], HOUR);
		const saved = JSON.parse(JSON.stringify(saveFeedMemory(memory))) as object;
		expect(recallFeedMemory(saved)).toEqual({ ...memory, floor: 102, seen: [104, 200] });
		expect(recallFeedMemory({ ...saved, ids: '%%' })).toBeUndefined();
		expect(recallFeedMemory({ ids: '' })).toBeUndefined();
	});

	it("memory saved by earlier versions: a mark and the window's IDs emitted, or a mark alone", () => {
		expect(recallFeedMemory({ mark: 50, seen: [40, 45, 50] })).toMatchObject({ floor: 39, seen: [40, 45, 50] });
		expect(recallFeedMemory({ mark: 50, recent: [48] })).toMatchObject({ floor: 50, seen: [] });
		expect(recallFeedMemory({ mark: 50, seen: [40, 60], recording: true })).toMatchObject({ floor: 50, seen: [60] });
	});
});
