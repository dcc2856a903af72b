/**
 * The package's error and retry rules on the declarative node: the error envelope as the
 * node's error (message, details per field, the upgrade or connection link, the code),
 * input checks before any request, continue-on-fail items paired with their input, and
 * retries of 429 and transient failures (POST and PATCH only on 429).
 */
import { SEEDED } from '../../fake-service';
import { recordSleeps, useFakeService } from '../support';
import { feed, NODE, runNode, sent } from './helpers';

const fake = useFakeService();
/** The waits the node asked for, instead of waiting. */
const waits = recordSleeps();

const F = SEEDED.feeds;
const P = SEEDED.firstPostId;

/** The service's error code the node kept on its error. */
function codeOf(raw: Record<string, unknown>): unknown {
	return (raw.context as Record<string, unknown> | undefined)?.apiErrorCode;
}

describe('the error envelope becomes the node error', () => {
	test('a plan-limit 422 shows the upgrade link, the code and the status', async () => {
		const run = await runNode(
			fake,
			{ resource: 'user', operation: 'invite', email: 'someone@busy.example', role: 'collaborator' },
			{ apiKey: fake.control.keys.proOwner },
		);

		expect(run.requests.map((r) => [r.method, r.path, r.status])).toEqual([['POST', '/users', 422]]);
		expect(run.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '422',
			message: 'Inviting users needs the Team or Enterprise plan; this account is on Pro.',
		});
		const link = new RegExp(`Upgrade to the Team plan: ${fake.control.origin}/web/upgrade\\?plan=team&token=\\w+`);
		expect(run.error?.description).toMatch(link);
		expect(run.error?.description).toContain('Error code: user_limit_reached');
		expect(codeOf(run.error!.raw)).toBe('user_limit_reached');
		expect(run.result.executionError?.description).toMatch(link);
	});

	test('a feed limit 422 links to the next plan', async () => {
		const run = await runNode(fake, { resource: 'feed', operation: 'create', name: 'One too many' }, { apiKey: fake.control.keys.freeOwner });
		expect(run.error).toMatchObject({ httpCode: '422' });
		expect(run.error?.description).toMatch(/Upgrade to the \w+ plan: http:\/\/127\.0\.0\.1:\d+\/web\/upgrade\?plan=/);
		expect(codeOf(run.error!.raw)).toBe('feed_limit_reached');
	});

	test('social_account_required shows the connection link, which connects the account', async () => {
		const run = await runNode(fake, {
			resource: 'source',
			operation: 'create',
			feedId: feed(F.productLaunch),
			platform: 'LinkedIn',
			termType: 'company',
			term: 'acme-corp',
		});
		expect(run.requests.map((r) => [r.path, r.status])).toEqual([[`/feeds/${F.productLaunch}/sources`, 422]]);
		expect(codeOf(run.error!.raw)).toBe('social_account_required');
		const match = /Connect the social account: (\S+)/.exec(String(run.error?.description));
		expect(match).not.toBeNull();
		expect(fake.control.openConnectionLink(match![1])).toMatchObject({ provider: 'linkedin' });
	});

	test('a validation 422 lists the details per field', async () => {
		const run = await runNode(fake, {
			resource: 'source',
			operation: 'create',
			feedId: feed(F.productLaunch),
			platform: 'Bluesky',
			termType: 'playlist',
			term: 'acme',
		});
		expect(run.error).toMatchObject({ httpCode: '422' });
		expect(run.error?.description).toMatch(/^term_type: is not supported by Bluesky/m);
		expect(run.error?.description).toContain('Error code: validation_failed');
	});

	test('a 404 keeps the service message and status', async () => {
		const run = await runNode(fake, { resource: 'post', operation: 'get', feedId: feed(F.brandMentions), postId: '99999' });
		expect(run.error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
		expect(codeOf(run.error!.raw)).toBe('not_found');
		expect(run.requests).toHaveLength(1);
	});

	test('a refused key gives 401 with advice, and the key appears nowhere in the run', async () => {
		const badKey = 'sag_live_0000not0a0real0key0000000000';
		const run = await runNode(fake, { resource: 'account', operation: 'get' }, { apiKey: badKey });
		expect(run.error).toMatchObject({ httpCode: '401' });
		expect(run.error?.description).toContain('The API key was refused');
		expect(run.result.dump()).not.toContain(badKey);

		const owner = await runNode(fake, { resource: 'user', operation: 'invite', email: 'x@busy.example' }, { apiKey: fake.control.keys.proOwner });
		expect(owner.error).toBeDefined();
		expect(owner.result.dump()).not.toContain(fake.control.keys.proOwner);
	});
});

describe('input checks, before any request', () => {
	test.each([
		[
			'a non-numeric feed ID from an expression',
			{ resource: 'feed', operation: 'get', feedId: feed('={{ "feed-one" }}', 'id') },
			'The Feed ID must be a number, not "feed-one" [item 0]',
		],
		[
			'an empty post ID',
			{ resource: 'post', operation: 'pin', feedId: feed(F.brandMentions), postId: ' ' },
			'The Post ID is empty [item 0]',
		],
		['an empty search text from an expression', { resource: 'post', operation: 'search', query: '={{ "  " }}' }, 'The Search Text is empty [item 0]'],
		[
			'an end date before the start date',
			{ resource: 'analytics', operation: 'get', feedId: feed(F.brandMentions), startDate: '2025-05-10T00:00:00', endDate: '2025-05-01T00:00:00' },
			'The End Date (2025-05-01) is before the Start Date (2025-05-10) [item 0]',
		],
		[
			'a Before filter earlier than After',
			{ resource: 'post', operation: 'getAll', feedId: feed(F.brandMentions), filters: { after: '2025-05-10T00:00:00', before: '2025-05-01T00:00:00' } },
			'The Before date (2025-05-01T00:00:00.000Z) is before the After date (2025-05-10T00:00:00.000Z) [item 0]',
		],
		[
			'a date that is none',
			{ resource: 'analytics', operation: 'get', feedId: feed(F.brandMentions), startDate: '2025-02-30' },
			'The Start Date is not a date [item 0]',
		],
		[
			'source options that are not JSON',
			{ resource: 'source', operation: 'create', feedId: feed(F.brandMentions), platform: 'Bluesky', termType: 'username', term: 'a', options: { sourceOptions: '{nope' } },
			'The Source Options is not valid JSON [item 0]',
		],
		[
			'a webhook URL that is no address',
			{ resource: 'webhook', operation: 'create', url: 'hooks.example.com', events: ['post.created'] },
			'The URL "hooks.example.com" is not a web address [item 0]',
		],
		['a webhook without events', { resource: 'webhook', operation: 'create', url: 'https://hooks.example.com/x' }, 'No events chosen [item 0]'],
		['an update without fields', { resource: 'feed', operation: 'update', feedId: feed(F.reviews) }, 'Nothing to update [item 0]'],
		[
			'a webhook update whose only field is an empty event list',
			{ resource: 'webhook', operation: 'update', webhookId: '1', updateFields: { events: [] } },
			'Nothing to update [item 0]',
		],
		[
			'an email that is none',
			{ resource: 'user', operation: 'invite', email: 'not-an-email', role: 'collaborator' },
			'The Email "not-an-email" is not an email address [item 0]',
		],
		[
			'feed IDs that are not numbers',
			{ resource: 'user', operation: 'invite', email: 'a@acme.example', role: 'collaborator', feedIds: '={{ ["1", "two"] }}' },
			'The Feed IDs must be numbers, not "two" [item 0]',
		],
	])('%s fails the item with a message naming the field and sends nothing', async (_case, parameters, message) => {
		const run = await runNode(fake, parameters);
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toBe(message);
		expect((run.error?.raw.context as Record<string, unknown>).itemIndex).toBe(0);
	});
});

describe('literal values n8n checks itself before the run', () => {
	test('a typed feed ID that is no number, and an empty required field', async () => {
		await expect(runNode(fake, { resource: 'feed', operation: 'get', feedId: feed('feed-one', 'id') })).rejects.toThrow(
			'A feed ID is a number, such as 42',
		);
		await expect(runNode(fake, { resource: 'post', operation: 'search', query: '' })).rejects.toThrow(
			'Parameter "Search Text" is required',
		);
		expect(fake.control.requests.list()).toEqual([]);
	});
});

describe('continue on fail', () => {
	const items = [
		{ post: String(P) },
		{ post: 'abc' },
		{ post: '99999' },
		{ post: String(P + 1) },
	];
	const parameters = { resource: 'post', operation: 'get', feedId: feed(F.brandMentions), postId: '={{ $json.post }}' };

	test('a failing item becomes an error item paired with it, and the next items still run', async () => {
		const run = await runNode(fake, parameters, { items, onError: 'continueRegularOutput' });

		expect(run.error).toBeUndefined();
		expect(run.result.executionError).toBeUndefined();
		// No request for the invalid ID; the others each once.
		expect(run.requests.map(sent).map((r) => r.path).sort()).toEqual(
			[`/feeds/${F.brandMentions}/posts/${P}`, `/feeds/${F.brandMentions}/posts/99999`, `/feeds/${F.brandMentions}/posts/${P + 1}`].sort(),
		);
		expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(run.items[0].json).toMatchObject({ id: P });
		expect(run.items[1].json).toEqual({ error: 'The Post ID must be a number, not "abc" [item 1]', details: expect.any(Object) });
		expect(run.items[2].json).toMatchObject({ error: expect.any(String), details: { code: 'not_found', httpCode: '404' } });
		expect(run.items[3].json).toMatchObject({ id: P + 1 });
	});

	test('with an error output, the failed items go there, paired, with the upgrade link in their details', async () => {
		const run = await runNode(
			fake,
			{ resource: 'user', operation: 'invite', email: '={{ $json.email }}', role: 'collaborator' },
			{ items: [{ email: 'bad' }, { email: 'fine@busy.example' }], onError: 'continueErrorOutput', apiKey: fake.control.keys.proOwner },
		);

		expect(run.result.executionError).toBeUndefined();
		expect(run.result.output(NODE, 0)).toEqual([]);
		const failed = run.result.output(NODE, 1);
		expect(failed.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(failed[0].json.error).toBe('The Email "bad" is not an email address [item 0]');
		expect(failed[1].json).toMatchObject({
			error: 'Inviting users needs the Team or Enterprise plan; this account is on Pro.',
			details: { code: 'user_limit_reached', httpCode: '422', link: expect.stringContaining('/web/upgrade?plan=team') },
		});
		expect(run.requests).toHaveLength(1);
	});

	test('a list operation pairs every output item with its input item', async () => {
		const run = await runNode(
			fake,
			{ resource: 'source', operation: 'getAll', feedId: feed('={{ $json.feed }}', 'id'), returnAll: true },
			{ items: [{ feed: F.brandMentions }, { feed: 'x' }, { feed: F.reviews }], onError: 'continueRegularOutput' },
		);
		expect(run.items.map((item) => [item.pairedItem, item.json.id ?? item.json.error])).toEqual([
			[{ item: 0 }, 1],
			[{ item: 0 }, 2],
			[{ item: 0 }, 3],
			[{ item: 0 }, 4],
			[{ item: 0 }, 5],
			[{ item: 1 }, 'The Feed ID must be a number, not "x" [item 1]'],
			[{ item: 2 }, 10],
			[{ item: 2 }, 11],
		]);
	});

	test('without continue on fail the first failure stops the node', async () => {
		const run = await runNode(fake, parameters, { items });
		expect(run.error?.message).toBe('The Post ID must be a number, not "abc" [item 1]');
		expect(run.result.executionError).toBeDefined();
	});
});

describe('retries on single-request operations', () => {
	test('a GET that meets a 503 is retried', async () => {
		fake.control.injectFault({ kind: 'error', status: 503, method: 'GET', path: '/feeds/:id' });
		const run = await runNode(fake, { resource: 'feed', operation: 'get', feedId: feed(F.brandMentions) });
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => r.status)).toEqual([503, 200]);
		expect(run.items).toHaveLength(1);
		expect(waits).toHaveLength(1);
	});

	test('a DELETE that meets a dropped connection is retried', async () => {
		fake.control.injectFault({ kind: 'drop', method: 'DELETE', path: '/webhooks/:id' });
		const run = await runNode(fake, { resource: 'webhook', operation: 'delete', webhookId: '2' });
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => [r.method, r.fault === null ? r.status : 'dropped'])).toEqual([
			['DELETE', 'dropped'],
			['DELETE', 204],
		]);
		expect(run.items.map((item) => item.json)).toEqual([{ deleted: true, id: 2 }]);
	});

	test('a GET whose body is garbled is asked again', async () => {
		fake.control.injectFault({ kind: 'malformed', method: 'GET', path: '/account' });
		const run = await runNode(fake, { resource: 'account', operation: 'get' });
		expect(run.error).toBeUndefined();
		expect(run.requests).toHaveLength(2);
		expect(run.items[0].json).toMatchObject({ id: SEEDED.accounts.acme });
	});

	test('a GET that times out (the timeout set under Request Options) is retried', async () => {
		fake.control.injectFault({ kind: 'delay', method: 'GET', path: '/account', delayMs: 2000 });
		const run = await runNode(fake, { resource: 'account', operation: 'get', requestOptions: { timeout: 300 } });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ id: SEEDED.accounts.acme });
		// The node gave up on the slow answer and asked again (a retry is the only way to a wait).
		expect(waits).toHaveLength(1);
		// The fake logs the slow request once it has answered it, after the node gave up on it.
		while (fake.control.requests.list().length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
		expect(fake.control.requests.list().map((r) => [r.path, r.fault])).toEqual([
			['/account', null],
			['/account', expect.stringMatching(/delay/)],
		]);
	});

	test('a POST that meets a 429 waits Retry-After and is sent again', async () => {
		fake.control.injectFault({ kind: 'error', status: 429, method: 'POST', path: '/feeds/:id/posts/:post/pin', retryAfter: 3 });
		const run = await runNode(fake, { resource: 'post', operation: 'pin', feedId: feed(F.brandMentions), postId: String(P) });
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => r.status)).toEqual([429, 200]);
		expect(waits).toEqual([3000]);
		expect(run.items[0].json).toMatchObject({ id: P, pinned: true });
	});

	test('a POST that meets a 500 is not repeated: the service may have acted', async () => {
		fake.control.injectFault({ kind: 'error', status: 500, method: 'POST', path: '/feeds' });
		const run = await runNode(fake, { resource: 'feed', operation: 'create', name: 'Once' });
		expect(run.requests.map((r) => r.status)).toEqual([500]);
		expect(run.error).toMatchObject({ httpCode: '500' });
		// A 500 may come after the service acted: look before running again.
		expect(run.error?.description).toContain('The service may have acted on the request');
		expect(run.error?.description).toContain('first check whether the feed exists (Feed › Get Many)');
		expect(run.error?.description).not.toContain('Run the node again in a moment');
		expect(waits).toEqual([]);
	});

	test('a POST whose connection drops after the service acted is not repeated', async () => {
		fake.control.injectFault({ kind: 'drop', method: 'POST', path: '/webhooks', when: 'after' });
		const run = await runNode(fake, {
			resource: 'webhook',
			operation: 'create',
			url: 'https://hooks.example.com/once',
			events: ['post.created'],
		});
		expect(run.requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/^The connection to the service failed after the request was sent \(\w+\); its answer never came$/);
		expect(run.error?.description).toContain('The service may have acted on the request');
		expect(run.error?.description).toContain('Webhook › Get Many');
		expect(run.error?.description).toContain('signing secret');
		expect(run.error?.description).not.toMatch(/check the base url/i);
		const list = await runNode(fake, { resource: 'webhook', operation: 'getAll', returnAll: true });
		expect(list.items.filter((item) => item.json.url === 'https://hooks.example.com/once')).toHaveLength(1);
	});

	test('a PATCH that meets a 503 is not repeated', async () => {
		fake.control.injectFault({ kind: 'error', status: 503, method: 'PATCH', path: '/feeds/:id' });
		const run = await runNode(fake, { resource: 'feed', operation: 'update', feedId: feed(F.reviews), updateFields: { name: 'X' } });
		expect(run.requests.map((r) => r.status)).toEqual([503]);
		expect(run.error).toMatchObject({ httpCode: '503' });
	});

	test('a service that cannot be reached is tried as often as the policy allows, then named as such', async () => {
		const run = await runNode(fake, { resource: 'account', operation: 'get' }, { baseUrl: 'http://127.0.0.1:1/v1' });
		expect(run.error?.message).toBe('The service could not be reached (ECONNREFUSED) after 6 attempts');
		expect(run.error?.description).toContain('Check the Base URL');
		expect(waits).toHaveLength(5);
		expect(run.result.dump()).not.toContain(fake.control.keys.owner);
	});

	test('an address the request cannot go to fails at once, without retries, naming the credential field', async () => {
		const run = await runNode(fake, { resource: 'account', operation: 'get' }, { baseUrl: 'ftp://127.0.0.1/v1' });
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toMatch(/Invalid Base URL \(of the Social Aggregator API credential\) \(item 0\)/);
		expect(waits).toEqual([]);
		expect(run.result.dump()).not.toContain(fake.control.keys.owner);
	});

	test('a 429 that does not end gives up after the policy’s attempts, saying so', async () => {
		fake.control.injectFault({ kind: 'error', status: 429, method: 'GET', path: '/account', count: 'always' });
		const run = await runNode(fake, { resource: 'account', operation: 'get' });
		expect(run.requests.map((r) => r.status)).toEqual(Array(6).fill(429));
		expect(waits).toEqual(Array(5).fill(1000));
		expect(run.error).toMatchObject({ httpCode: '429' });
		expect(run.error?.message).toBe('The service kept answering 429 (rate limit exceeded) after 6 attempts and 5 s of waiting');
		expect(codeOf(run.error!.raw)).toBe('rate_limit_exceeded');
	});
});
