import { NodeApiError, NodeOperationError, type IDataObject, type IHttpRequestOptions, type INodeExecutionData } from 'n8n-workflow';

import { requireText } from '../../../../nodes/SocialAggregator/common/checks';
import { outputItems, route } from '../../../../nodes/SocialAggregator/common/routing';
import { feedPostShape } from '../../../../nodes/shared/simplify';
import { DEFAULT_TIMEOUT_MS } from '../../../../nodes/shared/transport';
import { paginationContext, runRouting } from '../../support/paginationContext';

const page = (data: IDataObject[], pageNumber: number, totalPages: number) => ({
	body: { data, meta: { page: pageNumber, per_page: 100, total_count: 100 * (totalPages - 1) + data.length, total_pages: totalPages } },
});
const jsonOf = (items: INodeExecutionData[]) => items.map((item) => item.json);

describe('route: the checks a path\'s IDs add', () => {
	const refusal = async (parameters: IDataObject) => {
		const own = requireText('name', 'Name');
		const { context, requests } = paginationContext([], parameters);
		const routing = route({ method: 'PUT', url: '=/feeds/{{$parameter.feedId}}/sources/{{$parameter.sourceId}}', prepare: [own] });
		const error = (await runRouting(routing, context, '/feeds/x/sources/y').catch((caught: unknown) => caught)) as Error;
		expect(requests).toHaveLength(0);
		return error.message;
	};

	it('checks every ID in the path as a number before the spec\'s own steps, in path order', async () => {
		expect(await refusal({ feedId: 'abc', sourceId: 'x', name: '' })).toMatch(/^The Feed ID must be a number/);
		expect(await refusal({ feedId: '1', sourceId: 'x', name: '' })).toMatch(/^The Source ID must be a number/);
		expect(await refusal({ feedId: '1', sourceId: '2', name: '' })).toMatch(/Name/);
	});

	it('a delete outputs the path\'s last ID; a path without IDs checks nothing', async () => {
		const deleted = paginationContext([{ statusCode: 204 }], { feedId: '3', sourceId: '4' });
		const routing = route({ method: 'DELETE', url: '=/feeds/{{$parameter.feedId}}/sources/{{$parameter.sourceId}}' });
		expect(jsonOf(await runRouting(routing, deleted.context, '/feeds/3/sources/4'))).toEqual([{ deleted: true, id: 4 }]);
		const plain = paginationContext([{ statusCode: 200, body: { data: { name: 'Reddit' } } }], {});
		expect(jsonOf(await runRouting(route({ method: 'GET', url: '/platforms' }), plain.context, '/platforms'))).toEqual([{ name: 'Reddit' }]);
		expect(plain.requests).toHaveLength(1);
	});
});

describe('route: the request as sent', () => {
	const sent = async (url: string, extra: IDataObject, parameters: IDataObject = {}) => {
		const { context, requests } = paginationContext([{ statusCode: 200, body: { data: { id: 1 } } }], parameters);
		await runRouting(route({ method: 'GET', url: '/feeds' }), context, url, extra);
		return requests[0];
	};

	it('leaves out an empty body and blank query values, and closes blanks around the path\'s slashes', async () => {
		const request = await sent(' /feeds / 12 /posts', { body: {}, qs: { page: 1, q: '', since: undefined, until: null, zero: 0 } });
		expect(request.url).toBe('/feeds/12/posts');
		expect(request.qs).toEqual({ page: 1, zero: 0 });
		expect(request.body).toBeUndefined();
		expect(request.timeout).toBe(DEFAULT_TIMEOUT_MS);
	});

	it('takes the chosen timeout, and the default for none, zero, a negative or a non-number', async () => {
		for (const [chosen, expected] of [
			[5000, 5000],
			[0, DEFAULT_TIMEOUT_MS],
			[-1, DEFAULT_TIMEOUT_MS],
			[Number.NaN, DEFAULT_TIMEOUT_MS],
		]) {
			const request = await sent('/feeds', { body: { name: 'x' } }, { requestOptions: { timeout: chosen } });
			expect([request.body, request.timeout]).toEqual([{ name: 'x' }, expected]);
		}
	});
});

describe('route: the items of an answer', () => {
	const answered = async (spec: Parameters<typeof route>[0], answer: { statusCode: number; body?: unknown }) => {
		const { context } = paginationContext([answer], {});
		return jsonOf(await runRouting(route(spec), context, spec.url));
	};

	it('takes a write answered without a body as done, but not a read', async () => {
		for (const body of [undefined, null, '']) {
			expect(await answered({ method: 'POST', url: '/feeds' }, { statusCode: 204, body })).toEqual([{ success: true }]);
			await expect(answered({ method: 'GET', url: '/feeds' }, { statusCode: 200, body })).rejects.toThrow(/GET \/feeds/);
		}
	});

	it('reads a record from `data`, and a list\'s records for a list or an answer that is one', async () => {
		expect(await answered({ method: 'POST', url: '/feeds' }, { statusCode: 201, body: { data: { id: 1 } } })).toEqual([{ id: 1 }]);
		const list = { statusCode: 200, body: { data: [{ id: 1 }, { id: 2 }] } };
		expect(await answered({ method: 'GET', url: '/feeds', list: 'whole' }, list)).toEqual([{ id: 1 }, { id: 2 }]);
		expect(await answered({ method: 'GET', url: '/feeds', answersList: true }, list)).toEqual([{ id: 1 }, { id: 2 }]);
		await expect(answered({ method: 'GET', url: '/feeds' }, list)).rejects.toThrow('`data` is a list, not an object');
	});
});

describe('outputItems', () => {
	it('leaves out the fields to omit without changing the record, and pairs each item with its input', () => {
		const record = { id: 3, url: 'https://example.com/hook', secret: 'whsec_abc' };
		const items = outputItems([record], { omit: ['secret'] }, 4);
		expect(items).toEqual([{ json: { id: 3, url: 'https://example.com/hook' }, pairedItem: { item: 4 } }]);
		expect(record.secret).toBe('whsec_abc');
	});

	it('shapes records by the output chosen, and not without a choice', () => {
		const shape = { simplify: (record: IDataObject) => ({ id: record.id }), fields: ['id', 'text'], always: ['id'] };
		const record = { id: 1, text: 'hello', extra: true };
		expect(jsonOf(outputItems([record], { shape }, 0, { mode: 'simplified' }))).toEqual([{ id: 1 }]);
		expect(jsonOf(outputItems([record], { shape }, 0))).toEqual([record]);
		expect(jsonOf(outputItems([record], { shape }, 0, { mode: 'raw' }))).toEqual([record]);
	});
});

describe('route: the posts of one feed', () => {
	const posts = '=/feeds/{{$parameter.feedId}}/posts';
	const run = async (parameters: IDataObject, data: IDataObject[]) => {
		const { context } = paginationContext([page(data, 1, 1)], { feedId: { __rl: true, mode: 'id', value: '3' }, returnAll: true, ...parameters });
		return jsonOf(await runRouting(route({ method: 'GET', url: posts, list: 'paged', shape: feedPostShape, ofFeed: true }), context, '/feeds/3/posts'));
	};

	it('shaped, each carries its feed, which moderating it next takes: as answered, else the feed asked for; raw, as answered', async () => {
		const answered = [{ id: 1001, message: 'a' }, { id: 1002, feed_id: 3, message: 'b' }, { id: 1003, feed_id: null }];
		const simplified = await run({ simplify: true }, answered.map((post) => ({ ...post })));
		expect(simplified.map((post) => [post.id, post.feed_id])).toEqual([
			[1001, 3],
			[1002, 3],
			[1003, 3],
		]);
		expect((await run({ simplify: false }, [{ id: 1001, message: 'a' }]))[0]).toEqual({ id: 1001, message: 'a' });
		expect((await run({ toolOutput: 'selected', selectedFields: ['message'] }, [{ id: 1001, message: 'a' }]))[0]).toEqual({
			id: 1001,
			feed_id: 3,
			message: 'a',
		});
	});
});

describe('route: one operation run for an item', () => {
	it('refuses an ID that is not a number before any request, naming the field and the item', async () => {
		const { context, requests } = paginationContext([], { feedId: { __rl: true, mode: 'id', value: 'abc' } }, { itemIndex: 2 });
		const routing = route({ method: 'GET', url: '=/feeds/{{$parameter.feedId}}' });
		const error = await runRouting(routing, context, '/feeds/abc').catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as Error).message).toBe('The Feed ID must be a number, not "abc" [item 2]');
		expect(requests).toHaveLength(0);
	});

	it('refuses a Limit out of range before any request', async () => {
		const { context, requests } = paginationContext([], { returnAll: false, limit: 0 });
		const error = await runRouting(route({ method: 'GET', url: '/feeds', list: 'paged' }), context, '/feeds').catch((caught: unknown) => caught);
		expect((error as Error).message).toMatch(/Limit/);
		expect(requests).toHaveLength(0);
	});

	it('reads every page of a Return All with the service\'s page size, in order', async () => {
		const first = Array.from({ length: 100 }, (_, i) => ({ id: i + 1 }));
		const { context, requests } = paginationContext([page(first, 1, 2), page([{ id: 101 }], 2, 2)], { returnAll: true });
		const items = await runRouting(route({ method: 'GET', url: '/feeds', list: 'paged' }), context, '/feeds');
		expect(items.map((item) => item.json.id)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
		expect(requests.map((request) => request.qs)).toEqual([
			{ page: 1, per_page: 100 },
			{ page: 2, per_page: 100 },
		]);
		expect(requests.every((request) => request.headers?.Authorization?.toString().startsWith('Bearer '))).toBe(true);
	});

	it('stops at the Limit, asking no page more than it needs', async () => {
		const { context, requests } = paginationContext([page([{ id: 1 }, { id: 2 }, { id: 3 }], 1, 5)], { returnAll: false, limit: 2 });
		const items = await runRouting(route({ method: 'GET', url: '/feeds', list: 'paged' }), context, '/feeds');
		expect(jsonOf(items)).toEqual([{ id: 1 }, { id: 2 }]);
		expect(requests).toHaveLength(1);
		expect(requests[0].qs).toEqual({ page: 1, per_page: 2 });
	});

	it('outputs what a delete deleted, with the ID as a number', async () => {
		const { context, requests } = paginationContext([{ statusCode: 204 }], { userId: '12' });
		const items = await runRouting(route({ method: 'DELETE', url: '=/users/{{$parameter.userId}}' }), context, '/users/12');
		expect(jsonOf(items)).toEqual([{ deleted: true, id: 12 }]);
		expect(requests[0].method).toBe('DELETE');
		expect(requests[0].body).toBeUndefined();
	});

	it('looks for a record the service answers 404 for in its list, and fails with the 404 when it is not there', async () => {
		const spec = { method: 'GET' as const, url: '=/webhooks/{{$parameter.webhookId}}', findIn: '/webhooks', omit: ['secret'] };
		const listed = paginationContext([{ statusCode: 404, body: { error: 'not found' } }, page([{ id: 6 }, { id: 7, secret: 's' }], 1, 1)], { webhookId: '7' });
		expect(jsonOf(await runRouting(route(spec), listed.context, '/webhooks/7'))).toEqual([{ id: 7 }]);
		expect(listed.requests.map((request) => [request.method, request.url, request.qs])).toEqual([
			['GET', '/webhooks/7', undefined],
			['GET', '/webhooks', { page: 1, per_page: 100 }],
		]);

		const missing = paginationContext([{ statusCode: 404, body: { error: 'not found' } }, page([{ id: 6 }], 1, 1)], { webhookId: '7' });
		const error = await runRouting(route(spec), missing.context, '/webhooks/7').catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).httpCode).toBe('404');
	});

	it('sends a write\'s further requests by the same rules and outputs what its step returns', async () => {
		const { context, requests } = paginationContext(
			[{ statusCode: 201, body: { data: { id: 9 } } }, { statusCode: 200, body: { data: { id: 9, moderated: true } } }],
			{},
		);
		const routing = route({
			method: 'POST',
			url: '/feeds',
			body: { name: 'News' },
			after: async (record, sendMore) => {
				const answer = await sendMore('PATCH', `/feeds/${String(record.id)}/moderation`, { moderated: true });
				return (answer.body as IDataObject).data as IDataObject;
			},
		});
		expect(jsonOf(await runRouting(routing, context, '/feeds'))).toEqual([{ id: 9, moderated: true }]);
		expect(requests.map((request) => [request.method, request.url, request.body])).toEqual([
			['POST', '/feeds', { name: 'News' }],
			['PATCH', '/feeds/9/moderation', { moderated: true }],
		]);
		expect(requests[1].headers?.Authorization).toBe(requests[0].headers?.Authorization);
	});

	it('with Continue On Fail, outputs the pages a list fetched before it failed, then the error item that counts them', async () => {
		const first = Array.from({ length: 100 }, (_, i) => ({ id: i + 1 }));
		const answers = [page(first, 1, 2), { statusCode: 403, body: { error: 'forbidden' } }];
		const kept = paginationContext(answers, { returnAll: true }, { continueOnFail: true });
		const items = await runRouting(route({ method: 'GET', url: '/feeds', list: 'paged' }), kept.context, '/feeds');
		expect(items).toHaveLength(101);
		expect(items.slice(0, 100).map((item) => item.json.id)).toEqual(first.map((record) => record.id));
		const last = items[100].json as IDataObject;
		expect(String(last.error)).toMatch(/403|forbidden|permission/i);
		expect(JSON.stringify(last)).toContain('Stopped after 1 page of 2. The 100 items of page 1 of 2 are output before this error item');

		const thrown = paginationContext([page(first, 1, 2), { statusCode: 403, body: { error: 'forbidden' } }], { returnAll: true });
		const error = await runRouting(route({ method: 'GET', url: '/feeds', list: 'paged' }), thrown.context, '/feeds').catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(NodeApiError);
	});

	it('names an answer it cannot use with the request and the item, and never the key', async () => {
		const { context, apiKey } = paginationContext([{ statusCode: 200, body: { data: 'nope' } }], { feedId: '5' }, { itemIndex: 1 });
		const error = (await runRouting(route({ method: 'GET', url: '=/feeds/{{$parameter.feedId}}' }), context, '/feeds/5').catch(
			(caught: unknown) => caught,
		)) as NodeApiError;
		expect(error.message).toMatch(/GET \/feeds\/5/);
		expect(error.context.itemIndex).toBe(1);
		expect(JSON.stringify(error)).not.toContain(apiKey);
	});
});

describe('route with reshape', () => {
	it('makes a successful answer the documented shape before the path checks and outputs it, handing the reshape what was sent', async () => {
		const seen: Array<[unknown, string]> = [];
		const reshape = (body: unknown, request: IHttpRequestOptions) => {
			seen.push([body, request.url]);
			return { data: (body as string[]).map((name) => ({ name })) };
		};
		const { context, requests } = paginationContext([{ body: ['post.created', 'feed.synced'] }], {});
		const routing = route({ method: 'GET', url: '/webhook_events', answersList: true, reshape });
		expect(jsonOf(await runRouting(routing, context, '/webhook_events'))).toEqual([{ name: 'post.created' }, { name: 'feed.synced' }]);
		expect(seen).toEqual([[['post.created', 'feed.synced'], '/webhook_events']]);
		// Sent by the path's own rules: the credential's key, the default timeout.
		expect(requests[0].headers?.Authorization).toMatch(/^Bearer /);
		expect(requests[0].timeout).toBeGreaterThan(0);
	});

	it('leaves an error answer as it came: the service\'s message, Continue On Fail\'s item, no reshape', async () => {
		const reshape = jest.fn((body: unknown) => body);
		const refused = { statusCode: 422, body: { error: { code: 'validation_failed', message: 'ids is required', details: {} } } };
		const thrown = paginationContext([refused], {});
		const routing = route({ method: 'POST', url: '/feeds/1/posts/bulk', reshape });
		const error = await runRouting(routing, thrown.context, '/feeds/1/posts/bulk').catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toBe('ids is required');
		const kept = paginationContext([refused], {}, { continueOnFail: true });
		expect(jsonOf(await runRouting(routing, kept.context, '/feeds/1/posts/bulk'))).toEqual([
			expect.objectContaining({ error: 'ids is required', details: expect.objectContaining({ code: 'validation_failed', httpCode: '422' }) }),
		]);
		expect(reshape).not.toHaveBeenCalled();
	});

	it('a reshape that cannot read the answer hands it on, for the path\'s check to name', async () => {
		const { context } = paginationContext([{ body: { unexpected: true } }], {});
		const routing = route({ method: 'GET', url: '/webhook_events', answersList: true, reshape: (body) => body });
		const error = (await runRouting(routing, context, '/webhook_events').catch((caught: unknown) => caught)) as Error;
		expect(error.message).toBe("The service's answer to GET /webhook_events (HTTP 200) cannot be used: `data` is missing");
	});
});
