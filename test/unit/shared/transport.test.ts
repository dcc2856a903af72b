import { RESET_MARGIN_MS, retryTiming } from '../../../nodes/shared/retry';
import { apiRequest, apiRequestFull } from '../../../nodes/shared/transport';
import type { IAllExecuteFunctions } from 'n8n-workflow';
import { scriptedContext, type Answer } from '../support/context';
import { serviceCode } from '../support/serviceCode';
import { keyBudget } from '../../../nodes/shared/runBudget';

const ok = (body: unknown) => ({ statusCode: 200, body });
const tooMany = (retryAfter?: string): Answer => ({
	statusCode: 429,
	headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
	body: { error: { code: 'rate_limit_exceeded', message: 'Rate limit exceeded', details: {} } },
});
/**
 * Each test its own key: what this process counted of a key's budget (per Base URL and key) lasts as long as the
 * process, and a test starts with all of it.
 */
let testKey = '';
let tests = 0;
const scripted = (answers: Answer[], apiKey = testKey) => scriptedContext(answers, apiKey);
const serverError = { statusCode: 500, body: { error: { code: 'internal', message: 'Boom' } } };

describe('transport', () => {
	const realSleep = retryTiming.sleep;
	const realRandom = retryTiming.random;
	const realNow = retryTiming.now;
	let waits: number[];

	beforeEach(() => {
		waits = [];
		retryTiming.sleep = async (ms: number) => {
			waits.push(ms);
		};
		retryTiming.random = () => 0.5;
		// The clock stands still: a wait until a told reset is exact.
		retryTiming.now = () => 1_000_000;
		testKey = `sag_live_transporttest${String(++tests).padStart(4, '0')}`;
	});
	afterEach(() => {
		retryTiming.sleep = realSleep;
		retryTiming.random = realRandom;
		retryTiming.now = realNow;
	});

	it('joins the base URL and path, tolerating slashes, and sends JSON with the credential', async () => {
		const { context, requests } = scripted([ok({ data: { id: 1 } })]);
		const body = await apiRequest.call(context, { method: 'GET', path: '/feeds/1', qs: { include: 'sources' } });
		expect(body).toEqual({ data: { id: 1 } });
		expect(requests[0].url).toBe('http://127.0.0.1:9/v1/feeds/1');
		expect(requests[0].qs).toEqual({ include: 'sources' });
		expect(requests[0].json).toBe(true);
		expect(requests[0].headers?.Authorization).toMatch(/^Bearer /);
	});

	it('keeps absolute URLs the service handed out, and joins a path without its slash', async () => {
		const { context, requests } = scripted([ok({ data: {} }), ok({ data: {} })]);
		await apiRequest.call(context, { method: 'GET', path: 'http://b/v1/authorize/x' });
		await apiRequest.call(context, { method: 'GET', path: 'feeds' });
		expect(requests.map((request) => request.url)).toEqual(['http://b/v1/authorize/x', 'http://127.0.0.1:9/v1/feeds']);
		const doubled = scripted([ok({ data: {} })]);
		Object.assign(doubled.context, { getCredentials: async () => ({ apiKey: doubled.apiKey, baseUrl: 'http://127.0.0.1:9/v1//' }) });
		await apiRequest.call(doubled.context, { method: 'GET', path: 'feeds' });
		expect(doubled.requests[0].url).toBe('http://127.0.0.1:9/v1/feeds');
	});

	it('waits Retry-After: 3 once and then succeeds', async () => {
		const { context, requests } = scripted([tooMany('3'), ok({ data: [] })]);
		const body = await apiRequest.call(context, { method: 'GET', path: '/feeds' });
		expect(body).toEqual({ data: [] });
		expect(waits).toEqual([3000]);
		expect(requests).toHaveLength(2);
	});

	it('retries a 429 on a POST too: the service did not act', async () => {
		const { context, requests } = scripted([tooMany('1'), { statusCode: 201, body: { data: { id: 9 } } }]);
		const response = await apiRequestFull.call(context, { method: 'POST', path: '/feeds', body: { name: 'x' } });
		expect(response.statusCode).toBe(201);
		expect(requests).toHaveLength(2);
	});

	it('backs off with growing, bounded waits after transient failures', async () => {
		const answers = Array.from({ length: 6 }, () => ({ statusCode: 503, body: { error: { code: 'x', message: 'Busy' } } }));
		const { context } = scripted(answers);
		const retry = { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 4000, maxTotalWaitMs: 60_000 };
		await expect(apiRequest.call(context, { method: 'GET', path: '/feeds', retry })).rejects.toThrow();
		expect(waits).toEqual([750, 1500, 3000, 3000, 3000]);
	});

	it('waits out the documented window (a minute) after a 429 without Retry-After, instead of probing every second', async () => {
		const { context, requests } = scripted([tooMany(), tooMany(), ok({ data: [] })]);
		const body = await apiRequest.call(context, { method: 'GET', path: '/feeds' });
		expect(body).toEqual({ data: [] });
		expect(waits).toEqual([60_000, 60_000]);
		expect(requests).toHaveLength(3);
	});

	it('gives up on a 429 without Retry-After once the next window would pass the longest wait, saying how to wait longer', async () => {
		const { context, requests } = scripted([tooMany(), tooMany(), tooMany()]);
		const error = await apiRequest
			.call(context, { method: 'GET', path: '/feeds', retry: { maxTotalWaitMs: 90_000 } })
			.catch((e: Error) => e);
		expect(requests).toHaveLength(2);
		expect(waits).toEqual([60_000]);
		expect((error as Error).message).toBe('The service kept answering 429 (rate limit exceeded) after 2 attempts and 60 s of waiting');
		expect((error as { description?: string }).description).toContain('raise "Max Retry Wait (Seconds)"');
	});

	it('waits until X-RateLimit-Reset (and a little) after a 429 without Retry-After, not the minute', async () => {
		const reset = (headers: Record<string, string>): Answer => ({ ...tooMany(), headers });
		const { context, requests } = scripted([
			reset({ 'x-ratelimit-reset': '5' }),
			reset({ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' }),
			ok({ data: [] }),
		]);
		expect(await apiRequest.call(context, { method: 'GET', path: '/feeds' })).toEqual({ data: [] });
		expect(requests).toHaveLength(3);
		expect(waits).toEqual([5000 + RESET_MARGIN_MS, 5000 + RESET_MARGIN_MS]);
	});

	it('a burst 429 (the window still has requests left) waits the burst minute of the window the service tells', async () => {
		const told = (remaining: number, reset: number) => ({ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset) });
		const { context } = scripted([
			{ ...ok({ data: [] }), headers: told(29, 12) },
			{ ...tooMany(), headers: told(20, 11) },
			ok({ data: [] }),
		]);
		await apiRequest.call(context, { method: 'GET', path: '/feeds' });
		await apiRequest.call(context, { method: 'GET', path: '/feeds' });
		// A 12 s window: its "minute" is a fifth of a second.
		expect(waits).toEqual([200]);
	});

	it('says the service kept answering 429 when the budget runs out', async () => {
		const { context } = scripted(Array.from({ length: 3 }, () => tooMany('2')));
		const error = await apiRequest
			.call(context, { method: 'GET', path: '/feeds', retry: { maxAttempts: 3 } })
			.catch((e: Error) => e);
		expect((error as Error).message).toContain('kept answering 429');
		expect(serviceCode(error)).toBe('rate_limit_exceeded');
		expect(waits).toEqual([2000, 2000]);
	});

	it('stops early when Retry-After is longer than the wait budget allows', async () => {
		const { context, requests } = scripted([tooMany('600')]);
		const error = await apiRequest
			.call(context, { method: 'GET', path: '/feeds', retry: { maxTotalWaitMs: 10_000 } })
			.catch((e: Error) => e);
		expect((error as Error).message).toContain('kept answering 429');
		expect(requests).toHaveLength(1);
		expect(waits).toEqual([]);
	});

	it('does not retry a POST on a 500', async () => {
		const { context, requests } = scripted([serverError, ok({})]);
		await expect(apiRequest.call(context, { method: 'POST', path: '/feeds', body: { name: 'x' } })).rejects.toThrow('Boom');
		expect(requests).toHaveLength(1);
		expect(waits).toEqual([]);
	});

	it('retries a GET on a 500 and a reset connection', async () => {
		const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		const { context, requests } = scripted([serverError, { throws: reset }, ok({ data: 1 })]);
		expect(await apiRequest.call(context, { method: 'GET', path: '/account' })).toEqual({ data: 1 });
		expect(requests).toHaveLength(3);
	});

	it('retries a GET whose body is not JSON, and reports it when it stays so', async () => {
		const { context } = scripted([ok('{"data": [1, 2'), ok('{"data": [1, 2')]);
		const error = await apiRequest
			.call(context, { method: 'GET', path: '/feeds', retry: { maxAttempts: 2 } })
			.catch((e: Error) => e);
		expect((error as Error).message).toContain('not a JSON object');
	});

	it('accepts statuses the caller names as answers', async () => {
		const { context } = scripted([{ statusCode: 410, body: { error: { code: 'authorization_gone', message: 'Gone' } } }]);
		const response = await apiRequestFull.call(context, {
			method: 'GET',
			path: 'http://127.0.0.1:9/v1/authorize/abc',
			authenticated: false,
			baseUrl: 'http://127.0.0.1:9/v1',
			acceptStatuses: [202, 410],
		});
		expect(response.statusCode).toBe(410);
	});

	it('fails at once, without the key, when the request cannot be sent at all', async () => {
		const apiKey = 'sag_live_invalidurl987654';
		const cause = Object.assign(new TypeError(`Invalid URL: http://x/?k=${apiKey}`), { code: 'ERR_INVALID_URL' });
		const { context, requests } = scripted([{ throws: cause }, ok({})], apiKey);
		const error = await apiRequest.call(context, { method: 'GET', path: '/account' }).catch((e: Error) => e);
		expect((error as Error).message).toContain('Invalid URL');
		expect((error as Error).message).not.toContain(apiKey);
		expect(requests).toHaveLength(1);
	});

	describe('a redirect is never followed', () => {
		const redirect = (location: string, statusCode = 302): Answer => ({ statusCode, headers: { location }, body: '' });

		it('asks n8n not to follow one, nor to send the key across origins', async () => {
			const { context, requests } = scripted([ok({ data: {} }), ok({ data: {} })]);
			await apiRequest.call(context, { method: 'GET', path: '/account' });
			await apiRequest.call(context, { method: 'POST', path: '/authorize', authenticated: false, baseUrl: 'http://127.0.0.1:9/v1', body: {} });
			for (const request of requests) {
				expect(request).toMatchObject({ disableFollowRedirect: true, maxRedirects: 0, sendCredentialsOnCrossOriginRedirect: false });
			}
		});

		it('a 3xx is an error after one attempt, naming where it leads (without its query) and what the Base URL must be', async () => {
			const { context, requests, apiKey } = scripted([redirect(`http://127.0.0.1:8500/v1/feeds?token=abc&key=x`), ok({})]);
			const error = (await apiRequest.call(context, { method: 'GET', path: '/feeds' }).catch((e: Error) => e)) as Error & { description?: string };
			expect(requests).toHaveLength(1);
			expect(waits).toEqual([]);
			expect(error.message).toBe(
				"The service's address answered GET /feeds with a redirect (HTTP 302 to http://127.0.0.1:8500/v1/feeds): enter the address the API itself answers at, ending in /v1",
			);
			expect(error.description).toMatch(/never follow a redirect/);
			expect(serviceCode(error)).toBe('redirect_not_followed');
			expect(JSON.stringify(error)).not.toContain('token=abc');
			expect(JSON.stringify(error)).not.toContain(apiKey);
		});

		it('a relative Location is read against the request; one that holds the key or is no address is not repeated', async () => {
			const { context, apiKey } = scripted([redirect('../login?next=/v1', 301)]);
			const error = (await apiRequest.call(context, { method: 'POST', path: '/feeds', body: {} }).catch((e: Error) => e)) as Error;
			expect(error.message).toContain('(HTTP 301 to http://127.0.0.1:9/login)');
			const leaking = scripted([redirect(`http://evil.example/${apiKey}`)]);
			const leaked = (await apiRequest.call(leaking.context, { method: 'GET', path: '/account' }).catch((e: Error) => e)) as Error;
			expect(leaked.message).toContain('to http://evil.example/[redacted]');
			expect(JSON.stringify(leaked)).not.toContain(apiKey);
			const nowhere = scripted([{ statusCode: 307, headers: {}, body: '' }]);
			const none = (await apiRequest.call(nowhere.context, { method: 'GET', path: '/account' }).catch((e: Error) => e)) as Error;
			expect(none.message).toContain('(HTTP 307 without a valid Location)');
		});

		it('where a redirect leads is named without user, password, query and fragment', async () => {
			const named = async (location: string) => {
				const { context } = scripted([redirect(location)]);
				return ((await apiRequest.call(context, { method: 'GET', path: '/feeds' }).catch((e: Error) => e)) as Error).message;
			};
			expect(await named('https://user:pw@host.example:8443/a/b?x=1#f')).toContain('(HTTP 302 to https://host.example:8443/a/b)');
			expect(await named('/v2/feeds')).toContain('(HTTP 302 to http://127.0.0.1:9/v2/feeds)');
			expect(await named('http://[::1')).toContain('(HTTP 302 without a valid Location)');
		});
	});

	describe('the API key never leaks', () => {
		const leaks = (error: unknown, key: string) => {
			const e = error as { message: string; description?: string };
			return [e.message, e.description ?? '', JSON.stringify(error), JSON.stringify(Object.entries(e))].some((text) =>
				text.includes(key),
			);
		};

		it('not from a 401', async () => {
			const { context, apiKey } = scripted([
				{ statusCode: 401, body: { error: { code: 'unauthorized', message: 'Invalid API key' } } },
			]);
			const error = await apiRequest.call(context, { method: 'GET', path: '/account' }).catch((e: Error) => e);
			expect((error as Error).message).toBe('Invalid API key');
			expect(leaks(error, apiKey)).toBe(false);
		});

		it('not from a network failure whose cause carries the request headers', async () => {
			const apiKey = 'sag_live_networkleak123456';
			const cause = Object.assign(new Error(`connect ECONNREFUSED (Authorization: Bearer ${apiKey})`), {
				code: 'ECONNREFUSED',
				config: { headers: { Authorization: `Bearer ${apiKey}` } },
			});
			const { context } = scripted(
				Array.from({ length: 2 }, () => ({ throws: cause })),
				apiKey,
			);
			const error = await apiRequest
				.call(context, { method: 'GET', path: '/account', retry: { maxAttempts: 2 } })
				.catch((e: Error) => e);
			expect((error as Error).message).toContain('ECONNREFUSED');
			expect(leaks(error, apiKey)).toBe(false);
		});
	});
});

test('one budget ledger per service and key, however the Base URL is typed', async () => {
	const ledgerOf = async (baseUrl: string, apiKey = 'key-ledger-typed') => {
		const ctx = { getCredentials: async () => ({ apiKey, baseUrl }) } as unknown as IAllExecuteFunctions;
		return (await keyBudget(ctx, 0))?.ledger;
	};
	const typed = await ledgerOf('https://api.example.com/v1');
	expect(typed).toBeDefined();
	for (const same of ['https://api.example.com/v1/', ' https://API.example.com/v1// ', 'HTTPS://api.example.com:443/v1']) {
		expect(await ledgerOf(same)).toBe(typed);
	}
	expect(await ledgerOf('https://api.example.com/other/v1')).not.toBe(typed);
	expect(await ledgerOf('https://api.example.com/v1', 'another-key')).not.toBe(typed);
});
