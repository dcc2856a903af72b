import { useFakeService } from '../support';
import { isStatus, postsOf, q, runNode } from './helpers';

const fake = useFakeService();

const lookUp = (parameters: Record<string, unknown>) => ({ resource: 'profile', operation: 'lookUp', ...parameters });

test('Look Up: one request for every handle on every platform, one item per profile (the flat answer shape)', async () => {
	fake.control.setShapes('spec');
	const run = await runNode(fake, lookUp({ term: 'nasa, esa', platforms: ['Bluesky', 'Google'] }));
	expect(run.error).toBeUndefined();
	expect(run.requests).toHaveLength(1);
	expect(run.requests[0]).toMatchObject({ method: 'GET', path: '/data/profiles', status: 200 });
	expect(q(run.requests[0], 'term')).toBe('nasa,esa');
	expect(q(run.requests[0], 'platforms')).toBe('Bluesky,Google');
	expect(run.items.map((i) => `${String(i.json.platform)}:${String(i.json.term)}`)).toEqual([
		'Bluesky:nasa',
		'Bluesky:esa',
		'Google:nasa',
		'Google:esa',
	]);
	expect(run.items.every((i) => JSON.stringify(i.pairedItem) === '{"item":0}')).toBe(true);
	expect(run.items[2].json.place_id).toMatch(/^ChIJ/);
});

describe('the place ID of a Google profile, as Look Up outputs it by default, feeds a reviews search by expression', () => {
	const answers: Array<[string, () => void]> = [
		['the live grouped answer (the place ID as the handle)', () => undefined],
		['the flat answer with place_id', () => fake.control.setShapes('spec')],
		[
			'the flat answer with the place ID in platform_id, the name apart',
			() => {
				fake.control.setShapes('spec');
				fake.control.data.placeIds('platform_id');
			},
		],
	];
	test.each(answers)('%s', async (_, answer) => {
		answer();
		const run = await runNode(fake, lookUp({ term: 'Blue Bottle Coffee', platforms: ['Google'] }), {
			then: {
				name: 'Reviews',
				parameters: { resource: 'post', operation: 'search', term: '={{ $json.place_id }}', platforms: ['Google'], termType: 'reviews', limit: 5 },
			},
		});
		expect(run.error).toBeUndefined();
		expect(run.result.error('Reviews')).toBeUndefined();
		const [profile] = run.items;
		expect(profile.json.place_id).toMatch(/^ChIJ/);
		const searches = run.requests.filter((r) => r.path === '/data/posts');
		expect(searches.map((r) => [q(r, 'term'), q(r, 'term_type'), r.status])).toEqual([[profile.json.place_id, 'reviews', 200]]);
		expect(postsOf(run.result.items('Reviews'))).toHaveLength(5);
	});
});

test('a platform that fails is retried alone and then reported; the others are kept', async () => {
	fake.control.data.fail('TikTok', { errorCode: 'fetch_timeout', times: 1 });
	fake.control.data.fail('Vimeo', { errorCode: 'platform_error' });
	const run = await runNode(fake, lookUp({ term: 'nasa', platforms: ['Bluesky', 'TikTok', 'Vimeo'] }));
	expect(run.requests.map((r) => q(r, 'platforms'))).toEqual(['Bluesky,TikTok,Vimeo', 'TikTok,Vimeo', 'Vimeo']);
	expect(run.items.filter((i) => !isStatus(i)).map((i) => i.json.platform)).toEqual(['Bluesky', 'TikTok']);
	expect(run.items.filter(isStatus).map((i) => i.json)).toEqual([
		expect.objectContaining({ platform: 'Vimeo', success: false, error_code: 'platform_error', failed_attempts: 3 }),
	]);

	const failing = await runNode(fake, lookUp({ term: 'nasa', platforms: ['Bluesky', 'Vimeo'], options: { onPlatformFailure: 'fail' } }));
	expect(failing.error?.message).toMatch(/Vimeo failed: Vimeo returned an error \(platform_error\)/);
});

test('Continue On Fail: a refused item (6 handles) becomes an error item; the next item is looked up, each paired with its input', async () => {
	const run = await runNode(fake, lookUp({ term: '={{ $json.handles }}', platforms: ['Bluesky'] }), {
		items: [{ handles: 'a,b,c,d,e,f' }, { handles: 'nasa' }],
		onError: 'continueRegularOutput',
	});
	expect(run.error).toBeUndefined();
	expect(run.requests).toHaveLength(1);
	expect(run.items).toEqual([
		{ json: expect.objectContaining({ error: expect.stringMatching(/Invalid Handles \(item 0\): 6 handles/) }), pairedItem: { item: 0 } },
		{ json: expect.objectContaining({ platform: 'Bluesky', term: 'nasa' }), pairedItem: { item: 1 } },
	]);

	const stopped = await runNode(fake, lookUp({ term: '={{ $json.handles }}', platforms: ['Bluesky'] }), {
		items: [{ handles: 'a,b,c,d,e,f' }, { handles: 'nasa' }],
	});
	expect(stopped.error?.message).toMatch(/Invalid Handles/);
	expect(stopped.requests).toHaveLength(0);
});

test('Continue On Fail with the error output: the failed item goes to the error branch', async () => {
	const run = await runNode(fake, lookUp({ term: '={{ $json.handles }}', platforms: ['Bluesky'] }), {
		items: [{ handles: '' }, { handles: 'nasa' }],
		onError: 'continueErrorOutput',
	});
	expect(run.result.output('Social Aggregator Data', 0).map((i) => i.json.term)).toEqual(['nasa']);
	const errors = run.result.output('Social Aggregator Data', 1);
	expect(errors).toHaveLength(1);
	expect(String(errors[0].json.error)).toMatch(/Invalid Handles \(item 0\)/);
});

const UNKNOWN_KEY = ['sk', 'not', 'a', 'key', '1234'].join('_');

test('an unauthorized key: the service’s message, with Continue On Fail an error item', async () => {
	const run = await runNode(fake, lookUp({ term: 'nasa', platforms: ['Bluesky'] }), {
		apiKey: UNKNOWN_KEY,
		onError: 'continueRegularOutput',
	});
	expect(run.items).toEqual([
		{
			json: { error: 'Invalid API key', details: expect.objectContaining({ code: 'unauthorized', httpCode: '401' }) },
			pairedItem: { item: 0 },
		},
	]);
	expect(run.result.dump()).not.toContain(UNKNOWN_KEY);
});
