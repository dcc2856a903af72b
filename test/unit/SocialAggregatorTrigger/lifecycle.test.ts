import type { IHookFunctions } from 'n8n-workflow';

import { SocialAggregatorTrigger } from '../../../nodes/SocialAggregatorTrigger/SocialAggregatorTrigger.node';
import { hookContext, WebhookApiStub } from '../support/triggerStub';

const URL_LIVE = 'https://n8n.example.com/webhook/wf1/webhook';
const URL_TEST = 'https://n8n.example.com/webhook-test/wf1/webhook';

const node = new SocialAggregatorTrigger();
const methods = node.webhookMethods.default;

function run(method: 'checkExists' | 'create' | 'delete', context: unknown) {
	return methods[method].call(context as IHookFunctions);
}

describe('webhook lifecycle', () => {
	it('finds its subscription in GET /webhooks when the service has no GET /webhooks/{id} (the live endpoint map)', async () => {
		const api = new WebhookApiStub();
		api.singleRead = false;
		for (let i = 0; i < 120; i++) api.add(`https://elsewhere.example/${i}`, ['post.created']);
		const { context, staticData } = hookContext({ api, url: URL_LIVE });
		expect(await run('create', context)).toBe(true);
		const stored = structuredClone(staticData.subscriptions);
		api.requests = [];
		expect(await run('checkExists', context)).toBe(true);
		// Its own read answered 404; the second page of the list holds it, and nothing was registered again.
		expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /webhooks/121', 'GET /webhooks', 'GET /webhooks']);
		expect(staticData.subscriptions).toEqual(stored);
		expect(api.subscriptions).toHaveLength(121);
	});

	it('without GET /webhooks/{id}, a subscription missing from the list too is registered again', async () => {
		const api = new WebhookApiStub();
		api.singleRead = false;
		const { context, staticData } = hookContext({ api, url: URL_LIVE });
		expect(await run('create', context)).toBe(true);
		api.subscriptions = [];
		expect(await run('checkExists', context)).toBe(false);
		expect(staticData.subscriptions).toEqual({});
	});

	it('creates a subscription for the webhook URL and keeps its id and secret', async () => {
		const api = new WebhookApiStub();
		const { context, staticData } = hookContext({ api, url: URL_LIVE, parameters: { events: ['post.created', 'social_account.expired'] } });
		expect(await run('checkExists', context)).toBe(false);
		expect(await run('create', context)).toBe(true);
		expect(api.subscriptions).toHaveLength(1);
		expect(api.subscriptions[0]).toMatchObject({ url: URL_LIVE, subscribed_events: ['post.created', 'social_account.expired'] });
		expect(staticData.subscriptions).toEqual({
			live: {
				id: '1',
				secret: api.secrets.get(1),
				url: URL_LIVE,
				events: ['post.created', 'social_account.expired'],
				test: false,
				// The stub answers no created_at: this n8n's clock. The catch-up reads no post from before it.
				createdAt: expect.any(Number),
			},
		});
		expect(Math.abs((staticData.subscriptions as { live: { createdAt: number } }).live.createdAt - Date.now())).toBeLessThan(60_000);
		expect(api.requests.some((r) => r.path.endsWith('/test'))).toBe(false);
		expect(await run('checkExists', context)).toBe(true);
	});

	it('subscribes to typed-in events as well, without repeats', async () => {
		const api = new WebhookApiStub();
		const { context } = hookContext({
			api,
			url: URL_LIVE,
			parameters: { events: ['post.created'], options: { additionalEvents: ' feed.synced , post.created' } },
		});
		await run('create', context);
		expect(api.subscriptions[0].subscribed_events).toEqual(['feed.synced', 'post.created']);
	});

	it('deletes the subscription, and a subscription already gone is fine', async () => {
		const api = new WebhookApiStub();
		const { context, staticData } = hookContext({ api, url: URL_LIVE });
		await run('create', context);
		expect(await run('delete', context)).toBe(true);
		expect(api.subscriptions).toHaveLength(0);
		expect(staticData.subscriptions).toEqual({});

		await run('create', context);
		api.subscriptions = [];
		expect(await run('delete', context)).toBe(true);
		expect(api.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/webhooks/2' });
		expect(staticData.subscriptions).toEqual({});
	});

	it('removes subscriptions at its URL when nothing is stored (static data lost)', async () => {
		const api = new WebhookApiStub();
		api.add(URL_LIVE, ['post.created']);
		api.add('https://other.example.com/hook', ['post.created']);
		const { context } = hookContext({ api, url: URL_LIVE });
		expect(await run('delete', context)).toBe(true);
		expect(api.subscriptions.map((s) => s.url)).toEqual(['https://other.example.com/hook']);
	});

	it('keeps the stored subscription when the service cannot remove it, and says so', async () => {
		const api = new WebhookApiStub();
		const { context, staticData, logs } = hookContext({ api, url: URL_LIVE });
		await run('create', context);
		const handle = api.handle.bind(api);
		api.handle = async (request) =>
			request.method === 'DELETE' ? { statusCode: 422, headers: {}, body: { error: { code: 'locked', message: 'Locked' } } } : await handle(request);
		expect(await run('delete', context)).toBe(false);
		expect((staticData.subscriptions as { live?: unknown }).live).toBeDefined();
		expect(logs.some((l) => l.level === 'warn' && l.message.includes('could not be removed'))).toBe(true);
	});

	it.each([
		['disabled', (s: { status: string }) => (s.status = 'disabled')],
		['paused', (s: { status: string }) => (s.status = 'paused')],
		['pointing elsewhere', (s: { url: string }) => (s.url = 'https://elsewhere.example.com/hook')],
		['with other events', (s: { subscribed_events: string[] }) => (s.subscribed_events = ['social_account.expired'])],
	])('replaces a subscription %s', async (_label, change) => {
		const api = new WebhookApiStub();
		const { context, staticData } = hookContext({ api, url: URL_LIVE });
		await run('create', context);
		change(api.subscriptions[0] as never);
		expect(await run('checkExists', context)).toBe(false);
		expect(api.subscriptions).toHaveLength(0);
		expect(await run('create', context)).toBe(true);
		expect(api.subscriptions.map((s) => s.id)).toEqual([2]);
		expect((staticData.subscriptions as { live: { id: string } }).live.id).toBe('2');
	});

	it('forgets a subscription deleted at the service and registers again', async () => {
		const api = new WebhookApiStub();
		const { context } = hookContext({ api, url: URL_LIVE });
		await run('create', context);
		api.subscriptions = [];
		expect(await run('checkExists', context)).toBe(false);
		await run('create', context);
		expect(api.subscriptions.map((s) => s.id)).toEqual([2]);
	});

	it('removes subscriptions at the same URL whose secret was lost, and leaves others alone', async () => {
		const api = new WebhookApiStub();
		api.add(URL_LIVE, ['post.created']);
		api.add('https://other.example.com/hook', ['post.created']);
		for (let i = 0; i < 120; i++) api.add(`https://filler.example.com/${i}`, ['post.created']);
		api.add(URL_LIVE, ['post.created'], 'disabled');
		const { context, staticData } = hookContext({ api, url: URL_LIVE });
		expect(await run('checkExists', context)).toBe(false);
		await run('create', context);
		const atUrl = api.subscriptions.filter((s) => s.url === URL_LIVE);
		expect(atUrl).toHaveLength(1);
		expect(api.subscriptions).toHaveLength(122);
		expect((staticData.subscriptions as { live: { id: string } }).live.id).toBe(String(atUrl[0].id));
		// The listing was read past its first page.
		expect(api.requests.filter((r) => r.method === 'GET' && r.path === '/webhooks')).toHaveLength(2);
	});

	it('in test mode requests one test delivery and keeps the test subscription apart', async () => {
		const api = new WebhookApiStub();
		const live = hookContext({ api, url: URL_LIVE });
		await run('create', live.context);
		const test = hookContext({ api, url: URL_TEST, mode: 'manual', activation: 'manual', staticData: live.staticData });
		expect(await run('checkExists', test.context)).toBe(false);
		await run('create', test.context);
		const tests = api.requests.filter((r) => r.method === 'POST' && /\/webhooks\/\d+\/test$/.test(r.path));
		expect(tests).toEqual([{ method: 'POST', path: '/webhooks/2/test', body: undefined }]);
		const stored = live.staticData.subscriptions as Record<string, { id: string; test: boolean }>;
		expect(stored.live.id).toBe('1');
		expect(stored.test).toMatchObject({ id: '2', test: true });

		// n8n removes the test webhook with another mode: the URL tells which one it is.
		const removal = hookContext({ api, url: URL_TEST, mode: 'internal', activation: 'update', staticData: live.staticData });
		expect(await run('delete', removal.context)).toBe(true);
		expect(api.subscriptions.map((s) => s.id)).toEqual([1]);
		expect(Object.keys(live.staticData.subscriptions as object)).toEqual(['live']);
	});

	it('still listens when the test delivery cannot be requested', async () => {
		const api = new WebhookApiStub();
		api.testStatus = 500;
		const { context, logs } = hookContext({ api, url: URL_TEST, mode: 'manual', activation: 'manual' });
		expect(await run('create', context)).toBe(true);
		expect(logs.some((l) => l.level === 'warn' && l.message.includes('test delivery'))).toBe(true);
	});

	it('refuses a plain HTTP URL before any request, unless allowed', async () => {
		const api = new WebhookApiStub();
		const { context } = hookContext({ api, url: 'http://localhost:5678/webhook/wf1/webhook' });
		await expect(run('create', context)).rejects.toThrow('The webhook URL must use HTTPS');
		expect(api.requests).toHaveLength(0);

		const allowed = hookContext({ api, url: 'http://localhost:5678/webhook/wf1/webhook', parameters: { options: { allowHttp: true } } });
		expect(await run('create', allowed.context)).toBe(true);
	});

	it('refuses to subscribe to no event', async () => {
		const api = new WebhookApiStub();
		const { context } = hookContext({ api, url: URL_LIVE, parameters: { events: [] } });
		await expect(run('create', context)).rejects.toThrow('Choose at least one event');
		expect(api.requests).toHaveLength(0);
	});

	it('never logs the secret', async () => {
		const api = new WebhookApiStub();
		api.add(URL_LIVE, ['post.created']);
		const { context, logs } = hookContext({ api, url: URL_LIVE });
		await run('create', context);
		api.subscriptions[0].status = 'disabled';
		await run('checkExists', context);
		await run('create', context);
		await run('delete', context);
		const text = JSON.stringify(logs);
		for (const secret of api.secrets.values()) expect(text).not.toContain(secret);
		expect(logs.length).toBeGreaterThan(0);
	});
});
