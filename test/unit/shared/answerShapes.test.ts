import { dataApiAnswer, listAnswer, UnusableAnswer } from '../../../nodes/shared/answerShapes';

describe('answers that contradict themselves are unusable, not a complete list', () => {
	const posts = [{ id: 1 }, { id: 2 }];

	test('`meta.total_pages` 0 on a page that holds posts while `total_count` says more', () => {
		const body = { data: posts, meta: { page: 1, per_page: 100, total_count: 500, total_pages: 0 } };
		expect(() => listAnswer(body, { page: 1 })).toThrow(UnusableAnswer);
		expect(() => listAnswer(body)).toThrow('`meta.total_pages` is 0 while the page holds 2 and `meta.total_count` says 500');
	});

	test('an empty list of 0 pages, or a page holding all there is, is fine', () => {
		expect(listAnswer({ data: [], meta: { total_count: 0, total_pages: 0 } }).data).toEqual([]);
		expect(listAnswer({ data: posts, meta: { total_count: 2, total_pages: 0 } }).data).toHaveLength(2);
	});

	test('a Data API platform with `has_more: true` and no `next_cursor`', () => {
		const platforms = [{ platform: 'Bluesky', success: true, count: 2, has_more: true, next_cursor: null }];
		expect(() => dataApiAnswer({ data: posts, meta: { total_results: 2, platforms } })).toThrow(
			'`has_more` of Bluesky is true but it has no `next_cursor` to continue from',
		);
		const done = [{ platform: 'Bluesky', success: true, count: 2, has_more: false, next_cursor: null }];
		expect(dataApiAnswer({ data: posts, meta: { platforms: done } }).statuses).toHaveLength(1);
	});
});
