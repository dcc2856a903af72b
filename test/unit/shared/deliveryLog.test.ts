import type { IDataObject } from 'n8n-workflow';

import { deliveryLogMiss, noDeliveryLogMessage } from '../../../nodes/shared/deliveryLog';
import { scriptedContext, type Answer } from '../support/context';

const list = (ids: number[], page = 1, totalPages = 1): Answer => ({
	body: { data: ids.map((id) => ({ id })), meta: { page, per_page: 100, total_count: 100 * (totalPages - 1) + ids.length, total_pages: totalPages } },
});
const notFound: Answer = { statusCode: 404, body: { error: { code: 'not_found', message: 'No route', details: {} } } };
const logPage: Answer = { body: { data: [], meta: { page: 1, per_page: 1, total_count: 0, total_pages: 0 } } };

function run(answers: Answer[]) {
	const { context, requests } = scriptedContext(answers, `sag_live_${Math.random().toString(36).slice(2)}`);
	const sent = () => requests.map((request) => [request.method, request.url.replace(/^.*\/v1/, ''), request.qs as IDataObject | undefined]);
	return { context, sent };
}

describe('the log\'s path', () => {
	it('encodes the ID as one path segment', () => {
		expect(noDeliveryLogMessage('7')).toContain('GET /webhooks/7/deliveries ');
		expect(noDeliveryLogMessage('7/../8')).toContain('GET /webhooks/7%2F..%2F8/deliveries ');
	});
});

describe('the subscription looked for', () => {
	it('looks through GET /webhooks page by page until it finds the ID or the list ends', async () => {
		const found = run([list([1, 2], 1, 2), list([7], 2, 2)]);
		expect(await deliveryLogMiss.call(found.context, '7', false)).toBe('noLog');
		expect(found.sent().map(([, , qs]) => qs)).toEqual([
			{ page: 1, per_page: 100 },
			{ page: 2, per_page: 100 },
		]);
		expect(await deliveryLogMiss.call(run([list([1, 2])]).context, '7', false)).toBe('noSubscription');
	});
});

describe('the log asked', () => {
	it('asks one delivery of the log; a 404 there says the service keeps no log', async () => {
		const offered = run([list([7]), logPage]);
		expect(await deliveryLogMiss.call(offered.context, '7', true)).toBe('noDelivery');
		expect(offered.sent()[1]).toEqual(['GET', '/webhooks/7/deliveries', { page: 1, per_page: 1 }]);
		expect(await deliveryLogMiss.call(run([list([7]), notFound]).context, '7', true)).toBe('noLog');
	});
});

describe('deliveryLogMiss: what a 404 of a delivery-log route meant', () => {
	it('a subscription not in the list: the subscription is missing, nothing more asked', async () => {
		const missing = run([list([1])]);
		expect(await deliveryLogMiss.call(missing.context, '7', true)).toBe('noSubscription');
		expect(missing.sent()).toHaveLength(1);
	});

	it('the log\'s own 404 for a subscription that exists: no log', async () => {
		expect(await deliveryLogMiss.call(run([list([7])]).context, '7', false)).toBe('noLog');
	});

	it('a redelivery\'s 404: no log when the log answers 404 too, else the delivery is not in it', async () => {
		const noLog = run([list([7]), notFound]);
		expect(await deliveryLogMiss.call(noLog.context, '7', true)).toBe('noLog');
		expect(noLog.sent().map(([method, path]) => `${String(method)} ${String(path)}`)).toEqual(['GET /webhooks', 'GET /webhooks/7/deliveries']);
		expect(await deliveryLogMiss.call(run([list([7]), logPage]).context, '7', true)).toBe('noDelivery');
	});

	it('a look-up that fails is that failure, not a guess', async () => {
		const refused: Answer = { statusCode: 403, body: { error: { code: 'forbidden', message: 'Not yours', details: {} } } };
		await expect(deliveryLogMiss.call(run([refused]).context, '7', false)).rejects.toThrow('Not yours');
	});
});

it('noDeliveryLogMessage names the subscription, the route and what to do instead', () => {
	expect(noDeliveryLogMessage('7')).toMatch(/^The service keeps no delivery log for webhook 7: it answers 404 to GET \/webhooks\/7\/deliveries .* Post › Get Many\.$/);
});
