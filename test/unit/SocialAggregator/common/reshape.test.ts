import { NodeApiError, type IDataObject, type IHttpRequestOptions, type INodeExecutionData } from 'n8n-workflow';

import { reshapedRoute, wrapHook, type OperationHook } from '../../../../nodes/SocialAggregator/common/reshape';
import { route } from '../../../../nodes/SocialAggregator/common/routing';
import { paginationContext, runRouting } from '../../support/paginationContext';

const jsonOf = (items: INodeExecutionData[]) => items.map((item) => item.json);

describe('reshapedRoute', () => {
	it('makes a successful answer SPEC.md\'s shape before the path checks and outputs it, handing the reshape what was sent', async () => {
		const seen: Array<[unknown, string]> = [];
		const reshape = (body: unknown, request: IHttpRequestOptions) => {
			seen.push([body, request.url]);
			return { data: (body as string[]).map((name) => ({ name })) };
		};
		const { context, requests } = paginationContext([{ body: ['post.created', 'feed.synced'] }], {});
		const routing = reshapedRoute({ method: 'GET', url: '/webhook_events', answersList: true }, reshape);
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
		const routing = reshapedRoute({ method: 'POST', url: '/feeds/1/posts/bulk' }, reshape);
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
		const routing = reshapedRoute({ method: 'GET', url: '/webhook_events', answersList: true }, (body) => body);
		const error = (await runRouting(routing, context, '/webhook_events').catch((caught: unknown) => caught)) as Error;
		expect(error.message).toBe("The service's answer to GET /webhook_events (HTTP 200) cannot be used: `data` is missing");
	});
});

describe('wrapHook', () => {
	it('hands the wrapper route()\'s hook and keeps the request and the paging switch', async () => {
		const routing = route({ method: 'GET', url: '/account' });
		let inner: OperationHook | undefined;
		const wrapped = wrapHook(routing, (hook) => {
			inner = hook;
			return async function (this, requestData) {
				return [...(await hook.call(this, requestData)), { json: { after: true } as IDataObject }];
			};
		});
		expect(inner).toBe(routing.operations?.pagination);
		expect(wrapped.request).toEqual(routing.request);
		expect(wrapped.send).toEqual({ paginate: true });
		const { context } = paginationContext([{ body: { data: { id: 1 } } }], {});
		expect(jsonOf(await runRouting(wrapped, context, '/account'))).toEqual([{ id: 1 }, { after: true }]);
	});
});
