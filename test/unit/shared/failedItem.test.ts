import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import { failedItem } from '../../../nodes/shared/failedItem';
import { StoppedPartWay } from '../../../nodes/shared/pages';
import { NODE } from '../support/context';

const output = (records: IDataObject[]) => records.map((json) => ({ json, pairedItem: { item: 2 } }));

describe('failedItem', () => {
	it('throws the error as n8n’s, for the item, without Continue On Fail', () => {
		expect(() => failedItem(NODE, new Error('boom'), { itemIndex: 2, continueOnFail: false, output })).toThrow(NodeOperationError);
		expect(() => failedItem(NODE, new StoppedPartWay(new Error('late'), [{ id: 1 }], 1), { itemIndex: 2, continueOnFail: false, output })).toThrow(
			'late',
		);
	});

	it('with Continue On Fail: an error item for the item', () => {
		expect(failedItem(NODE, new Error('boom'), { itemIndex: 2, continueOnFail: true, output })).toEqual([
			{ json: { error: 'boom' }, pairedItem: { item: 2 } },
		]);
	});

	it('with Continue On Fail: what a list fetched before it stopped, in order, then the error item', () => {
		const stopped = new StoppedPartWay(new Error('late'), [{ id: 1 }, { id: 2 }], 1);
		expect(failedItem(NODE, stopped, { itemIndex: 2, continueOnFail: true, output })).toEqual([
			{ json: { id: 1 }, pairedItem: { item: 2 } },
			{ json: { id: 2 }, pairedItem: { item: 2 } },
			{ json: { error: 'late' }, pairedItem: { item: 2 } },
		]);
	});

	it('reports the error `explain` makes of the reason, and tells it the list that stopped', () => {
		const stopped = new StoppedPartWay(new Error('late'), [{ id: 1 }], 1, 3);
		const seen: unknown[] = [];
		const explain = (reason: unknown, list: StoppedPartWay<IDataObject> | undefined) => {
			seen.push(reason, list);
			return new NodeApiError(NODE, { message: 'explained' }, { message: 'explained', itemIndex: 2 });
		};
		const items = failedItem(NODE, stopped, { itemIndex: 2, continueOnFail: true, output, explain });
		expect(items.at(-1)?.json.error).toBe('explained');
		expect(seen).toEqual([stopped.reason, stopped]);
	});
});
