import { decodeIds, encodeIds } from '../../../nodes/SocialAggregatorFeedTrigger/idSet';

describe('encodeIds / decodeIds', () => {
	it.each([
		['nothing', []],
		['one', [0]],
		['a run', Array.from({ length: 20_000 }, (_v, i) => 5_000_000 + i)],
		['gaps and runs', [1, 2, 3, 4, 9, 10, 40, 1041, 1042, 1043, 2 ** 40, 2 ** 40 + 1, Number.MAX_SAFE_INTEGER]],
	])('reads back what it wrote: %s', (_name, ids) => {
		expect(decodeIds(encodeIds(ids))).toEqual(ids);
	});

	it('20,000 IDs of one status in three take about 1.5 characters each; a run of any length a few', () => {
		const ids = Array.from({ length: 30_000 }, (_v, i) => 10_000_000 + i).filter((id) => id % 3 !== 0);
		expect(encodeIds(ids).length).toBeLessThan(ids.length * 1.6);
		expect(encodeIds(Array.from({ length: 50_000 }, (_v, i) => 10_000_000 + i)).length).toBeLessThan(12);
	});

	it('text it did not write is not trusted', () => {
		expect(decodeIds('A!B')).toBeUndefined();
		expect(decodeIds('Ag')).toBeUndefined();
		// A run longer than any memory keeps.
		expect(decodeIds(`B${encodeIds([0, 1, 2]).slice(1, 2)}${'_'.repeat(8)}f`)).toBeUndefined();
		expect(decodeIds('_'.repeat(12) + 'f')).toBeUndefined();
	});
});
