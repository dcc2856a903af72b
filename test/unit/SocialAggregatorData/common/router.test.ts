/**
 * The Data node's router: the chosen operation runs once per input item, each record it answers becomes an item
 * paired with that input item, and a failure either stops the node (as the item's n8n error) or, with Continue On
 * Fail, becomes an error item in its place, after what a run that stopped part way had fetched.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { router } from '../../../../nodes/SocialAggregatorData/common/router';
import { postOperations } from '../../../../nodes/SocialAggregatorData/resources/post';
import { profileOperations } from '../../../../nodes/SocialAggregatorData/resources/profile';
import { StoppedPartWay } from '../../../../nodes/shared/pages';
import { executeContext } from '../../support/nodeContext';

const search = { resource: 'post', operation: 'search' };

/** Replaces Post › Search for one test: the router looks the operation up in `postOperations` at each run. */
function stubSearch(operation: (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject[]>) {
	return jest.spyOn(postOperations, 'search').mockImplementation(operation);
}

afterEach(() => {
	jest.restoreAllMocks();
});

describe('router', () => {
	test('runs the operation once per input item, with the node’s functions, pairing each record with its item', async () => {
		const { context } = executeContext([{ ...search, term: 'a' }, { ...search, term: 'b' }, { ...search, term: 'c' }]);
		const seen: unknown[] = [];
		const operation = stubSearch(async function (itemIndex) {
			seen.push(this);
			const term = this.getNodeParameter('term', itemIndex) as string;
			// Item 1 finds nothing: it adds no item.
			return itemIndex === 1 ? [] : [{ term, n: 1 }, { term, n: 2 }];
		});
		expect(await router.call(context)).toEqual([
			[
				{ json: { term: 'a', n: 1 }, pairedItem: { item: 0 } },
				{ json: { term: 'a', n: 2 }, pairedItem: { item: 0 } },
				{ json: { term: 'c', n: 1 }, pairedItem: { item: 2 } },
				{ json: { term: 'c', n: 2 }, pairedItem: { item: 2 } },
			],
		]);
		expect(operation.mock.calls.map(([itemIndex]) => itemIndex)).toEqual([0, 1, 2]);
		expect(seen.every((self) => self === context)).toBe(true);
	});

	test('no input items: no operation run, one empty output', async () => {
		const { context } = executeContext([search], { inputItems: 0 });
		const operation = stubSearch(async () => [{}]);
		expect(await router.call(context)).toEqual([[]]);
		expect(operation).not.toHaveBeenCalled();
	});

	test.each([
		['an unknown operation', { resource: 'post', operation: 'delete' }],
		['an operation of another resource', { resource: 'post', operation: 'lookUp' }],
		['an unknown resource', { resource: 'feed', operation: 'search' }],
		['a name every object inherits, as an operation', { resource: 'post', operation: 'toString' }],
		['a name every object inherits, as a resource', { resource: 'constructor', operation: 'name' }],
	])('%s is refused before any item runs, naming both', async (_case, chosen) => {
		const { context } = executeContext([chosen, chosen]);
		const operation = stubSearch(async () => []);
		const error = await router.call(context).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as Error).message).toBe(`The operation "${chosen.operation}" of "${chosen.resource}" is not supported`);
		expect(operation).not.toHaveBeenCalled();
	});

	describe('without Continue On Fail', () => {
		test('the first failure stops the node as the item’s error; later items do not run', async () => {
			const { context } = executeContext([search, search, search]);
			const operation = stubSearch(async (itemIndex) => {
				if (itemIndex === 1) throw new Error('the answer broke');
				return [{ ok: itemIndex }];
			});
			const error = (await router.call(context).catch((caught: unknown) => caught)) as NodeOperationError;
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toBe('the answer broke');
			expect(error.context.itemIndex).toBe(1);
			expect(operation).toHaveBeenCalledTimes(2);
		});

		test('an n8n error of the package is thrown as it is', async () => {
			const { context } = executeContext([search]);
			const apiError = new NodeApiError(context.getNode(), { error: { code: 'insufficient_credits' } }, { message: 'Out of credits', httpCode: '402' });
			stubSearch(async () => {
				throw apiError;
			});
			await expect(router.call(context)).rejects.toBe(apiError);
		});

		test('a run that stopped part way throws its reason, not the part it fetched', async () => {
			const { context } = executeContext([search]);
			const reason = new NodeOperationError(context.getNode(), 'The key’s rate limit allows no more requests now');
			stubSearch(async () => {
				throw new StoppedPartWay<IDataObject>(reason, [{ platform_id: '1' }], 1);
			});
			await expect(router.call(context)).rejects.toBe(reason);
		});

		test('an error of the package’s own with advice keeps its advice', async () => {
			const { context } = executeContext([search, search]);
			stubSearch(async (itemIndex) => {
				if (itemIndex === 0) return [];
				throw Object.assign(new Error('Over budget'), { description: 'Wait an hour.' });
			});
			const error = (await router.call(context).catch((caught: unknown) => caught)) as NodeOperationError;
			expect(error).toBeInstanceOf(NodeOperationError);
			expect([error.message, error.description, error.context.itemIndex]).toEqual(['Over budget', 'Wait an hour.', 1]);
		});
	});

	describe('with Continue On Fail', () => {
		test('a failed item becomes an error item in its place, and the others still run', async () => {
			const { context } = executeContext([search, search, search], { continueOnFail: true });
			stubSearch(async (itemIndex) => {
				if (itemIndex === 1) throw Object.assign(new Error('Over budget'), { description: 'Wait an hour.' });
				return [{ item: itemIndex }];
			});
			expect(await router.call(context)).toEqual([
				[
					{ json: { item: 0 }, pairedItem: { item: 0 } },
					{ json: { error: 'Over budget', details: { description: 'Wait an hour.' } }, pairedItem: { item: 1 } },
					{ json: { item: 2 }, pairedItem: { item: 2 } },
				],
			]);
		});

		test('a run that stopped part way outputs what it fetched, then the error item, all paired with its item', async () => {
			const { context } = executeContext([search, search], { continueOnFail: true });
			const reason = new NodeOperationError(context.getNode(), 'Stopped: the rate limit', { description: 'Stopped after 2 requests.' });
			stubSearch(async (itemIndex) => {
				if (itemIndex === 0) throw new StoppedPartWay<IDataObject>(reason, [{ platform_id: 'a' }, { platform_id: 'b' }], 2);
				return [{ platform_id: 'c' }];
			});
			expect(await router.call(context)).toEqual([
				[
					{ json: { platform_id: 'a' }, pairedItem: { item: 0 } },
					{ json: { platform_id: 'b' }, pairedItem: { item: 0 } },
					{ json: { error: 'Stopped: the rate limit', details: { description: 'Stopped after 2 requests.' } }, pairedItem: { item: 0 } },
					{ json: { platform_id: 'c' }, pairedItem: { item: 1 } },
				],
			]);
		});

		test('the service’s error code and HTTP status are in the error item', async () => {
			const { context } = executeContext([search], { continueOnFail: true });
			const apiError = new NodeApiError(context.getNode(), { error: { code: 'insufficient_credits' } }, { message: 'Out of credits', httpCode: '402' });
			apiError.context.apiErrorCode = 'insufficient_credits';
			stubSearch(async () => {
				throw apiError;
			});
			const [[item]] = await router.call(context);
			expect(item.json).toMatchObject({ error: 'Out of credits', details: { code: 'insufficient_credits', httpCode: '402' } });
			expect(item.pairedItem).toEqual({ item: 0 });
		});
	});

	test('a real operation’s refusal (Profile › Look Up without handles) names the field and the item, before any request', async () => {
		const lookUp = { resource: 'profile', operation: 'lookUp', platforms: ['Bluesky'] };
		const { context } = executeContext([{ ...lookUp, term: '' }, { ...lookUp, term: ' , ' }], { continueOnFail: true });
		const spy = jest.spyOn(profileOperations, 'lookUp');
		const [items] = await router.call(context);
		expect(items.map((i) => [i.json.error, i.pairedItem])).toEqual([
			['Invalid Handles (item 0): no handle is given', { item: 0 }],
			['Invalid Handles (item 1): no handle is given', { item: 1 }],
		]);
		expect(String((items[0].json.details as IDataObject).description)).toMatch(/no credits were spent/);
		expect(spy).toHaveBeenCalledTimes(2);
	});
});
