/**
 * Post › Moderate Many, run as workflow JSON through n8n-core against the fake service in both legal shapes (live:
 * a count, a delete 204 without a body; spec: a result per post), and against answers in the other forms the node
 * accepts: every one output as the same summary `{ action, ids, count, failedIds?, results? }`.
 */
import { SEEDED, SHAPES } from '../../fake-service';
import { useFakeService, type NodeRun } from '../support';
import { feed, runNode, sent } from './helpers';

const fake = useFakeService();

const F = SEEDED.feeds;
const BULK = `/feeds/${F.brandMentions}/posts/bulk`;

function outputOf(run: NodeRun) {
	expect(run.error).toBeUndefined();
	for (const item of run.items) expect(item.pairedItem).toEqual({ item: 0 });
	return run.items.map((item) => item.json);
}

/** IDs of the brand-mentions feed's posts in a moderation state. */
function postsIn(status: string, count: number): number[] {
	const ids: number[] = [];
	for (let id = SEEDED.firstPostId; ids.length < count; id++) {
		const post = fake.control.getPost(id);
		if (post?.feed_id === F.brandMentions && post.moderation_status === status && !post.deleted) ids.push(id);
	}
	return ids;
}

const moderateMany = (bulkAction: string, postIds: unknown) => ({
	resource: 'post',
	operation: 'moderateMany',
	feedId: feed(F.brandMentions),
	bulkAction,
	postIds,
});

describe.each(SHAPES)('in the %s shape', (shapes) => {
	const live = shapes === 'live';
	beforeEach(() => fake.control.setShapes(shapes));

	test(`Approve sends { action, ids } in one request and outputs the count${live ? '' : ' and the post it could not act on'}`, async () => {
		const held = postsIn('moderated', 2);
		const elsewhere = SEEDED.firstPostId + 130; // a post of another feed
		const run = await runNode(fake, moderateMany('approve', ` ${held.join(' , ')}, ${elsewhere} `));
		expect(run.requests.map(sent)).toEqual([
			{ method: 'POST', path: BULK, query: {}, body: { action: 'approve', ids: [...held, elsewhere] } },
		]);
		const [summary] = outputOf(run);
		expect(run.items).toHaveLength(1);
		if (live) expect(summary).toEqual({ action: 'approve', ids: [...held, elsewhere], count: 2 });
		else {
			expect(summary).toEqual({
				action: 'approve',
				ids: [...held, elsewhere],
				count: 2,
				failedIds: [elsewhere],
				results: [
					...held.map((id) => ({ id, success: true, moderation_status: 'public', deleted: false })),
					{ id: elsewhere, success: false, error: { code: 'not_found', message: 'Post not found' } },
				],
			});
		}
		for (const id of held) expect(fake.control.getPost(id)).toMatchObject({ moderation_status: 'public' });
	});

	test(`Delete takes the IDs as an expression's list; ${live ? 'a 204 without a body counts every post' : 'each result counted'}`, async () => {
		const shown = postsIn('public', 3);
		const run = await runNode(fake, moderateMany('delete', `={{ ${JSON.stringify(shown)} }}`));
		expect(run.requests.map((r) => [r.body, r.status])).toEqual([[{ action: 'delete', ids: shown }, live ? 204 : 200]]);
		expect(outputOf(run)).toEqual([expect.objectContaining({ action: 'delete', ids: shown, count: 3 })]);
		for (const id of shown) expect(fake.control.getPost(id)).toMatchObject({ deleted: true });
	});

	test('Reject of one post per input item: one request and one summary each, paired with its item', async () => {
		const [first, second] = postsIn('public', 2);
		const run = await runNode(fake, moderateMany('reject', '={{ $json.post }}'), { items: [{ post: first }, { post: second }] });
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => r.body).sort((a, b) => (a as { ids: number[] }).ids[0] - (b as { ids: number[] }).ids[0])).toEqual([
			{ action: 'reject', ids: [first] },
			{ action: 'reject', ids: [second] },
		]);
		expect(run.items.map((item) => [item.json.ids, item.json.count, item.pairedItem])).toEqual([
			[[first], 1, { item: 0 }],
			[[second], 1, { item: 1 }],
		]);
	});
});

describe('Moderate Many', () => {
	test('checks the IDs and the action before any request', async () => {
		const refused = [
			[moderateMany('approve', ' , '), 'No Post IDs given [item 0]'],
			[moderateMany('approve', '1001, abc'), 'The Post IDs must be numbers, not "abc" [item 0]'],
			[moderateMany('={{ "pin" }}', '1001'), 'The Action must be "approve" or "reject" or "delete", not "pin" [item 0]'],
		] as const;
		for (const [parameters, message] of refused) {
			const run = await runNode(fake, parameters);
			expect([run.error?.message, run.requests]).toEqual([message, []]);
		}
	});

	test.each([
		['a count in data, under another name', { data: { updated_count: 2, job: 'b1' } }, { job: 'b1', count: 2 }],
		['a bare count', { count: 1 }, { count: 1 }],
		['a number', 3, { count: 3 }],
		[
			'a bare list of results by post_id and error',
			[{ post_id: 1001, error: 'locked' }, { id: 1002, status: 'rejected' }],
			{ count: 1, failedIds: [1001], results: [{ post_id: 1001, error: 'locked' }, { id: 1002, status: 'rejected' }] },
		],
		['results under data.results', { data: { results: [{ id: 1001, success: true }] } }, { count: 1, failedIds: [] }],
		['an empty object (every post)', { data: {} }, { count: 2 }],
	])('reads an answer of %s', async (_name, body, expected) => {
		fake.control.answers.add({ method: 'POST', path: '/feeds/:id/posts/bulk', body });
		const run = await runNode(fake, moderateMany('reject', '1001, 1002'));
		expect(outputOf(run)).toEqual([expect.objectContaining({ action: 'reject', ids: [1001, 1002], ...expected })]);
	});

	test('an answer none of those is an unusable answer naming the request', async () => {
		fake.control.answers.add({ method: 'POST', path: '/feeds/:id/posts/bulk', body: true });
		const run = await runNode(fake, moderateMany('reject', '1001'));
		expect(run.error?.message).toBe(`The service's answer to POST ${BULK} (HTTP 200) cannot be used: the answer is a boolean, not an object`);
	});

	test('a request whose connection drops after the service acted is not repeated: check the posts first', async () => {
		fake.control.injectFault({ kind: 'drop', method: 'POST', path: '/feeds/:id/posts/bulk', when: 'after' });
		const run = await runNode(fake, moderateMany('approve', '1001'));
		expect(run.requests).toHaveLength(1);
		expect(run.error?.description).toContain('The service may have acted on the request');
		expect(run.error?.description).toContain('the posts (Post › Get Many with a Status filter)');
	});
});
