/**
 * What the user reads when the key's rate-limit budget stops a run: a Return All or a Data API search refused
 * before it spends, and the notes on a list or search that stopped part way: the numbers, the credits, the cursors,
 * and the one thing to change.
 */
import { NodeOperationError } from 'n8n-workflow';

import { DEFAULT_LIMITS, type BudgetPlan } from '../../../nodes/shared/budget';
import { BudgetRefusal, budgetRefusal, partialNote, roundsNote, roundsRefusal } from '../../../nodes/shared/runBudget';
import { BUDGET_WAIT_FIELD } from '../../../nodes/shared/requestOptions';
import { NODE } from '../support/context';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const MINUTE = 60_000;

/** 9 more pages wanted, 2 requests left this hour, the budget free again in 30 minutes, 40 minutes of waiting in all. */
const PLAN: BudgetPlan = { needed: 9, left: 2, freesAt: NOW + 30 * MINUTE, waitMs: 40 * MINUTE, limits: DEFAULT_LIMITS, told: false };

const THE_NUMBERS =
	"9 more requests needed, 2 requests left (of the key's 300 requests per hour, as far as this n8n process has counted); the budget frees up in 30 min, and the whole run would need about 40 min of waiting";

const errorWith = (description?: string) => new NodeOperationError(NODE, 'The service answered HTTP 429', { description });

describe('budgetRefusal: a page-numbered list the budget cannot carry', () => {
	test('Return All: the pages needed, the numbers of the budget, and an error carrying its advice', () => {
		const refusal = budgetRefusal(PLAN, NOW, { totalPages: 10, capMs: 0, perPage: 100 });
		expect(refusal).toBeInstanceOf(BudgetRefusal);
		expect(refusal).toBeInstanceOf(Error);
		expect(refusal.message).toBe(`Return All needs 10 pages, more than the key's rate limit can carry: ${THE_NUMBERS}`);
	});

	test('the advice: what was spent, the largest Limit the budget carries now, and the wait to allow', () => {
		const { description } = budgetRefusal(PLAN, NOW, { totalPages: 10, capMs: 0, perPage: 100 });
		expect(description).toBe(
			'Only page 1 of 10 was fetched (1 request); nothing more was spent. ' +
				'Do one of: use a Limit of at most 300 (page 1 and the 2 requests left), ' +
				'narrow the list (a status, a search or a date range), ' +
				`or set "${BUDGET_WAIT_FIELD}" under Request Options to at least 2640 so the node waits for the rate limit and finishes.`,
		);
	});

	test('a Limit is named as such, and the wait already allowed is said to be too short', () => {
		const refusal = budgetRefusal({ ...PLAN, needed: 7 }, NOW, { totalPages: 40, capMs: 5 * MINUTE, perPage: 100, limit: 800 });
		expect(refusal.message).toMatch(/^A Limit of 800 needs 8 pages, more than the key's rate limit and the 5 min of waiting allowed can carry: /);
		expect(refusal.description).toMatch(/^Only page 1 of 40 was fetched/);
	});

	test('the seconds to allow are a tenth more than the wait, rounded up; the Limit counts the page size', () => {
		const plan = { ...PLAN, left: 1, waitMs: 61_001 };
		const { description } = budgetRefusal(plan, NOW, { totalPages: 3, capMs: 0, perPage: 20 });
		expect(description).toContain('to at least 68 so');
		expect(description).toContain('use a Limit of at most 40 (page 1 and the 1 request left)');
	});

	test.each([
		[30, 1980],
		[45, 2970],
		[50, 3300],
		[60, 3960],
	])('a wait of %p minutes advises exactly a tenth more, %p seconds', (minutes, seconds) => {
		const { description } = budgetRefusal({ ...PLAN, waitMs: minutes * MINUTE }, NOW, { totalPages: 10, capMs: 0, perPage: 100 });
		expect(description).toContain(`to at least ${seconds} so`);
	});

	test('numbers the service reported are said to be the service’s', () => {
		const refusal = budgetRefusal({ ...PLAN, told: true }, NOW, { totalPages: 10, capMs: 0, perPage: 100 });
		expect(refusal.message).toContain('2 requests left (as the service reports)');
		expect(refusal.message).not.toContain('as far as this n8n process has counted');
	});
});

describe('partialNote: a list that stopped part way', () => {
	test('kept (Continue On Fail): how many pages and items are output, and how to get the rest', () => {
		const error = errorWith('The service kept answering 429.');
		partialNote(error, { items: 300, pages: 3, totalPages: 10, kept: true });
		expect(error.description).toBe(
			'The service kept answering 429.\n' +
				'Stopped after 3 pages of 10. The 300 items of pages 1 to 3 of 10 are output before this error item, in order. ' +
				'To get the rest, run again with a Limit or a narrower filter, or once the rate limit frees up.',
		);
	});

	test('one page, without a page count', () => {
		const error = errorWith();
		partialNote(error, { items: 1, pages: 1, kept: true });
		expect(error.description).toBe(
			'Stopped after 1 page. The 1 item of page 1 is output before this error item, in order. To get the rest, run again with a Limit or a narrower filter, or once the rate limit frees up.',
		);
	});

	test('not kept: what was fetched is not output, and how to keep it next time', () => {
		const error = errorWith('Advice.');
		partialNote(error, { items: 200, pages: 2, totalPages: 5, kept: false });
		expect(error.description).toBe(
			'Advice.\nStopped after 2 pages of 5: 200 items of pages 1 to 2 were fetched and are not output: turn on Continue On Fail (Settings → On Error) to keep what a Return All fetched when it stops.',
		);
	});

	test('an unusable page’s “nothing was output” is dropped when the pages before it are output, kept when they are not', () => {
		const said = 'Nothing was output for this item rather than a result with items missing. The answer may come from a proxy.';
		const kept = errorWith(said);
		partialNote(kept, { items: 100, pages: 1, totalPages: 4, kept: true });
		expect(kept.description).toMatch(/^The answer may come from a proxy\.\nStopped after 1 page of 4\. /);
		const lost = errorWith(said);
		partialNote(lost, { items: 100, pages: 1, totalPages: 4, kept: false });
		expect(lost.description).toMatch(/^Nothing was output for this item rather than a result with items missing\. The answer may come from a proxy\.\nStopped/);
	});
});

describe('roundsRefusal: a Data API search the budget cannot carry further now', () => {
	test('the numbers, and what the next request would have cost, platform by platform', () => {
		const refusal = roundsRefusal({ ...PLAN, needed: 1, left: 0 }, NOW, ['Facebook', 'Bluesky', 'Instagram']);
		expect(refusal).toBeInstanceOf(BudgetRefusal);
		expect(refusal.message).toMatch(/^The key's rate limit allows no more requests now, so the search stopped before its next page: 1 more request needed, 0 requests left /);
		expect(refusal.description).toBe('The next request (Facebook, Bluesky, Instagram) would cost 10 credits (Facebook 6 + Bluesky 1 + Instagram 3).');
	});

	test('one platform of one credit', () => {
		expect(roundsRefusal(PLAN, NOW, ['Reddit']).description).toBe('The next request (Reddit) would cost 1 credit (Reddit 1).');
	});
});

describe('roundsNote: a Data API search that stopped part way', () => {
	const outcome = {
		requests: 3,
		items: [{}, {}, {}, {}, {}],
		pages: [
			{ platform: 'Instagram', status: { success: true } },
			{ platform: 'Bluesky', status: { success: true } },
			{ platform: 'Instagram', status: { success: true } },
			// A failed page costs nothing.
			{ platform: 'Facebook', status: { success: false } },
		],
		progress: [
			{ platform: 'Instagram', state: 'more', cursor: 'ig@2' },
			{ platform: 'Bluesky', state: 'done', cursor: null },
			{ platform: 'Facebook', state: 'first', cursor: null },
			{ platform: 'TikTok', state: 'failed', cursor: 'tt@1' },
		],
	};

	test('kept: what was fetched and paid, that it is output, and how to go on without paying twice', () => {
		const error = errorWith('The key’s rate limit allows no more requests now.');
		roundsNote(error, outcome, true);
		expect(error.description?.split('\n')).toEqual([
			'The key’s rate limit allows no more requests now.',
			'Stopped after 3 requests fetched 5 posts and spent 7 credits (Instagram 6 + Bluesky 1). ' +
				'They are output before this error item, with a status item per platform holding its next_cursor.',
			'To go on without buying those pages again, search only Instagram, Facebook with Options → Resume From Cursors (Instagram: ig@2) ' +
				'(Facebook from the first page); each further request costs 9 credits (Instagram 3 + Facebook 6) while these platforms have more.',
		]);
	});

	test('not kept: they are not output, and Continue On Fail would keep them', () => {
		const error = errorWith();
		roundsNote(error, outcome, false);
		expect(error.description).toMatch(/^Stopped after 3 requests fetched 5 posts and spent 7 credits \(Instagram 6 \+ Bluesky 1\)\. They are not output: turn on Continue On Fail/);
	});

	test('nothing paid and nothing left open: no credits listed and no way on to suggest', () => {
		const error = errorWith();
		roundsNote(error, { requests: 1, items: [], pages: [{ platform: 'Reddit', status: { success: false } }], progress: [{ platform: 'Reddit', state: 'failed', cursor: null }] }, true);
		expect(error.description).toBe(
			'Stopped after 1 request fetched 0 posts and spent 0 credits. They are output before this error item, with a status item per platform holding its next_cursor.',
		);
	});

	test('only platforms with cursors open: resume from them, no first pages named', () => {
		const error = errorWith();
		const progress = [
			{ platform: 'Bluesky', state: 'more', cursor: 'b@3' },
			{ platform: 'Reddit', state: 'more', cursor: 'r@3' },
		];
		roundsNote(error, { requests: 1, items: [{}], pages: [{ platform: 'Bluesky', status: { success: true } }], progress }, true);
		expect(error.description).toMatch(
			/\nTo go on without buying those pages again, search only Bluesky, Reddit with Options → Resume From Cursors \(Bluesky: b@3; Reddit: r@3\); each further request costs 2 credits \(Bluesky 1 \+ Reddit 1\)/,
		);
		expect(error.description).not.toContain('from the first page');
	});
});
