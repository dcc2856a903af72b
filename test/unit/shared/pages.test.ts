import { collectPages, findInPages } from '../../../nodes/shared/pages';

/** A list of `total` numbered items served page by page, recording the pages asked. */
function pagedList(total: number) {
	const asked: Array<{ page: number; perPage: number }> = [];
	const fetchPage = async (page: number, perPage: number) => {
		asked.push({ page, perPage });
		const start = (page - 1) * perPage;
		const data = Array.from({ length: Math.max(0, Math.min(perPage, total - start)) }, (_, i) => start + i + 1);
		return { data, meta: { page, per_page: perPage, total_count: total, total_pages: Math.ceil(total / perPage) } };
	};
	return { asked, fetchPage };
}

describe('collectPages', () => {
	it('Return All reads every page at 100 a page', async () => {
		const list = pagedList(1050);
		const items = await collectPages({ returnAll: true, fetchPage: list.fetchPage });
		expect(items).toHaveLength(1050);
		expect(new Set(items).size).toBe(1050);
		expect(list.asked).toHaveLength(11);
		expect(list.asked.every((a) => a.perPage === 100)).toBe(true);
	});

	it('a Limit never fetches a page it does not need', async () => {
		const list = pagedList(1050);
		expect(await collectPages({ returnAll: false, limit: 150, fetchPage: list.fetchPage })).toHaveLength(150);
		expect(list.asked.map((a) => a.page)).toEqual([1, 2]);

		const small = pagedList(1050);
		expect(await collectPages({ returnAll: false, limit: 30, fetchPage: small.fetchPage })).toHaveLength(30);
		expect(small.asked).toEqual([{ page: 1, perPage: 30 }]);
	});

	it('a Limit above the list stops at the last page', async () => {
		const list = pagedList(120);
		expect(await collectPages({ returnAll: false, limit: 500, fetchPage: list.fetchPage })).toHaveLength(120);
		expect(list.asked.map((a) => a.page)).toEqual([1, 2]);
	});

	it('keeps the order when pages are fetched concurrently', async () => {
		const list = pagedList(1000);
		const items = await collectPages({ returnAll: true, fetchPage: list.fetchPage, concurrency: 4 });
		expect(items).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
		expect(list.asked).toHaveLength(10);
	});

	it('without a page count, stops at a short page', async () => {
		const asked: number[] = [];
		const items = await collectPages({
			returnAll: true,
			fetchPage: async (page) => {
				asked.push(page);
				return { data: page < 3 ? Array.from({ length: 100 }, (_, i) => page * 1000 + i) : [1, 2] };
			},
		});
		expect(items).toHaveLength(202);
		expect(asked).toEqual([1, 2, 3]);
	});

	it('drops an item seen on an earlier page when a key is given', async () => {
		const pages = [[1, 2], [2, 3]];
		const items = await collectPages({
			returnAll: true,
			maxPerPage: 2,
			key: (n: number) => n,
			fetchPage: async (page) => ({ data: pages[page - 1], meta: { total_pages: 2 } }),
		});
		expect(items).toEqual([1, 2, 3]);
	});

	it('plans page sizes: Return All at 100 a page for every page, a Limit at its own size for the items it wants', async () => {
		const all = pagedList(250);
		expect(await collectPages({ returnAll: true, limit: undefined, fetchPage: all.fetchPage })).toHaveLength(250);
		expect(all.asked.map((a) => a.perPage)).toEqual([100, 100, 100]);
		const some = pagedList(250);
		expect(await collectPages({ returnAll: false, limit: 7, fetchPage: some.fetchPage })).toHaveLength(7);
		expect(some.asked).toEqual([{ page: 1, perPage: 7 }]);
	});
});

describe('findInPages', () => {
	const list = (count: number, meta: boolean) => async (page: number, perPage: number) => {
		asked.push(page);
		const data = Array.from({ length: count }, (_, i) => ({ id: i + 1 })).slice((page - 1) * perPage, page * perPage);
		return meta ? { data, meta: { page, per_page: perPage, total_count: count, total_pages: Math.ceil(count / perPage) } } : { data };
	};
	let asked: number[] = [];
	beforeEach(() => (asked = []));

	it('asks pages of 100 until the record is found, and no further', async () => {
		expect(await findInPages(list(350, true), '150')).toEqual({ id: 150 });
		expect(asked).toEqual([1, 2]);
	});

	it('ends at meta.total_pages, or without meta at a short page, when the record is not there', async () => {
		expect(await findInPages(list(250, true), '999')).toBeUndefined();
		expect(asked).toEqual([1, 2, 3]);
		asked = [];
		expect(await findInPages(list(200, false), '999')).toBeUndefined();
		expect(asked).toEqual([1, 2, 3]);
		asked = [];
		expect(await findInPages(list(0, true), '1')).toBeUndefined();
		expect(asked).toEqual([1]);
	});

	it('stops on a page count or an endless list no list may have, as collectPages does', async () => {
		const runaway = async () => ({ data: [{ id: 1 }], meta: { page: 1, per_page: 100, total_count: 2_000_000, total_pages: 20_000 } });
		await expect(findInPages(runaway, '2')).rejects.toThrow('more than the 10000 pages a list may take');
		let pages = 0;
		const endless = async () => {
			pages++;
			return { data: Array.from({ length: 100 }, () => ({ id: 1 })) };
		};
		await expect(findInPages(endless, '2')).rejects.toThrow('without a page count and without an end');
		expect(pages).toBe(10_000);
	});
});
