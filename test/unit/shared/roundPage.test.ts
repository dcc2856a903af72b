import type { IDataObject } from 'n8n-workflow';

import { settlePage, sortRound, type PlatformProgress } from '../../../nodes/shared/roundPage';

type PageRules<T> = Parameters<typeof settlePage<T>>[3];

describe('one round, step by step', () => {
	const progress = (platform: string, cursor: string | null = null): PlatformProgress => ({
		platform,
		state: cursor ? 'more' : 'first',
		cursor,
		collected: 0,
		failures: 0,
	});
	const everyOnce = () => {
		const seen = new Set<unknown>();
		return (item: IDataObject) => !seen.has(item.id) && Boolean(seen.add(item.id));
	};
	const rules = (extra: Partial<PageRules<IDataObject>> = {}): PageRules<IDataObject> => ({
		limit: Number.POSITIVE_INFINITY,
		maxPlatformRetries: 2,
		fresh: everyOnce(),
		pageCount: {},
		...extra,
	});

	test('sortRound: items by the platform asked that succeeded; the rest strays, each once', () => {
		const report = {
			Twitter: { platform: 'Twitter', success: true },
			Reddit: { platform: 'Reddit', success: false, error_code: 'platform_error' },
		};
		const data = [
			{ id: 1, platform: 'X' },
			{ id: 2, platform: 'Reddit' },
			{ id: 3, platform: 'Mastodon' },
			{ id: 3, platform: 'Mastodon' },
		];
		const sorted = sortRound(data, ['Twitter', 'Reddit'], report, everyOnce());
		// X is Twitter's other name.
		expect(sorted.groups).toEqual({ Twitter: [{ id: 1, platform: 'X' }], Reddit: [] });
		expect(sorted.stray.map((item) => item.id)).toEqual([2, 3]);
		// One platform asked: every item is its own, whatever it is called.
		expect(sortRound([{ id: 9, platform: 'twitter.com' }], ['Twitter'], report, everyOnce()).groups).toEqual({ Twitter: [{ id: 9, platform: 'twitter.com' }] });
	});

	test('settlePage: a page moves the cursor on and numbers the platform\'s pages; a cursor that does not move ends it', () => {
		const p = progress('Bluesky');
		const pageCount = {};
		const first = settlePage(p, { platform: 'Bluesky', success: true, next_cursor: 'c1', has_more: true }, [{ id: 1 }, { id: 2 }], rules({ pageCount }));
		expect(first).toMatchObject({ page: 1, cursorSent: null, items: [{ id: 1 }, { id: 2 }] });
		expect(p).toMatchObject({ state: 'more', cursor: 'c1', collected: 2 });
		const stuck = settlePage(p, { platform: 'Bluesky', success: true, next_cursor: 'c1', has_more: true }, [{ id: 3 }], rules({ pageCount }));
		expect(stuck).toMatchObject({ page: 2, cursorSent: 'c1' });
		expect(p.state).toBe('done');
	});

	test('settlePage: items held to the room the limit leaves, and to what `take` keeps', () => {
		const p = { ...progress('Reddit'), collected: 3 };
		const take = (_platform: string, items: IDataObject[]) => ({ items: items.filter((item) => item.id !== 5), finished: false });
		const record = settlePage(p, { platform: 'Reddit', success: true, next_cursor: 'n', has_more: true }, [{ id: 4 }, { id: 5 }, { id: 6 }, { id: 7 }], rules({ limit: 5, take }));
		expect(record.items).toEqual([{ id: 4 }, { id: 6 }]);
		expect(p).toMatchObject({ collected: 5, state: 'done' });
	});

	test('settlePage: a retryable failure is asked again until the retries run out; another fails at once', () => {
		const p = progress('Twitter', 'c4');
		const timeout = { platform: 'Twitter', success: false, error_code: 'fetch_timeout', message: 'slow' };
		expect(settlePage(p, timeout, [], rules({ maxPlatformRetries: 1 })).willRetry).toBe(true);
		expect(p).toMatchObject({ state: 'more', cursor: 'c4', failures: 1, error: { code: 'fetch_timeout', message: 'slow' } });
		expect(settlePage(p, timeout, [], rules({ maxPlatformRetries: 1 })).willRetry).toBe(false);
		expect(p.state).toBe('failed');

		const refused = progress('Facebook');
		settlePage(refused, { platform: 'Facebook', success: false, error_code: 'connection_required' }, [], rules());
		expect(refused).toMatchObject({ state: 'failed', failures: 1, error: { code: 'connection_required', message: 'connection_required' } });
	});
});
