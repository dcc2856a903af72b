import type { IDataObject } from 'n8n-workflow';

import { checkDataSearch } from '../../../nodes/shared/dataSearch';
import {
	dataPostShape,
	feedPostShape,
	outputChoice,
	profileShape,
	shapeProfileGroup,
	shapeRecord,
	simplifyField,
	toolOutputFields,
} from '../../../nodes/shared/simplify';

const poster = { display_name: 'Ada Lovelace', name: 'ada', url: 'https://x.example/ada', image: 'i', platform_id: '7' };
const media = [
	{ type: 'video', url: 'https://cdn.example/v.mp4', preview_image_url: 'p', width: 1, height: 1, alt_text: '', platform_id: '1' },
	{ type: 'image', url: 'https://cdn.example/i.jpg' },
];

/** A raw post with every field Simplify reads and more. */
const rawPost = (): IDataObject => ({
	id: 1001,
	platform_id: 'p1',
	platform: 'Twitter',
	url: 'https://x.example/p/1',
	message: 'hello',
	external_created_at: '2025-05-01T10:00:00Z',
	post_created_at: '2025-05-01T10:00:00Z',
	poster,
	media,
	like_count: 5,
	comment_count: 2,
	moderation_status: 'public',
	pinned: true,
	referenced_post: { poster, message: 'quoted' },
});

describe('feed posts', () => {
	const post: IDataObject = {
		id: 1001,
		external_id: 'x1',
		platform: 'Twitter',
		url: 'https://x.example/p/1',
		message: 'hello',
		external_created_at: '2025-05-01T10:00:00Z',
		created_at: '2025-05-01T11:00:00Z',
		poster,
		media,
		like_count: 5,
		comment_count: 2,
		share_count: 9,
		moderation_status: 'public',
		pinned: false,
		ai_sentiment: 'positive',
	};

	test('simplified: at most ten flat fields, the most useful first; the poster as one name', () => {
		const simplified = feedPostShape.simplify({ ...post, feed_id: 2 });
		expect(simplified).toEqual({
			id: 1001,
			feed_id: 2,
			platform: 'Twitter',
			poster_name: 'Ada Lovelace',
			message: 'hello',
			posted_at: '2025-05-01T10:00:00Z',
			url: 'https://x.example/p/1',
			like_count: 5,
			comment_count: 2,
			moderation_status: 'public',
		});
		expect(Object.keys(simplified)).toEqual(Object.keys(feedPostShape.simplify({})));
	});

	test('a post keeps its ID and its feed, both of which moderating it next takes', () => {
		const simplified = feedPostShape.simplify({ ...post, feed_id: 2 });
		expect([simplified.id, simplified.feed_id]).toEqual([1001, 2]);
		expect(Object.keys(simplified).slice(0, 2)).toEqual(['id', 'feed_id']);
		// Selected Fields keeps both whatever is chosen.
		expect(shapeRecord({ ...post, feed_id: 2 }, feedPostShape, { mode: 'selected', fields: ['message'] })).toEqual({
			id: 1001,
			feed_id: 2,
			message: 'hello',
		});
	});

	test('missing or odd fields become null, never undefined or a crash', () => {
		const odd = feedPostShape.simplify({ id: 3, poster: 'nobody', media: [null, 1], like_count: '5', pinned: 'yes' });
		expect(odd).toEqual({
			id: 3,
			feed_id: null,
			platform: null,
			poster_name: null,
			message: null,
			posted_at: null,
			url: null,
			like_count: null,
			comment_count: null,
			moderation_status: null,
		});
		expect(feedPostShape.simplify({ poster: { name: 'only_handle' } }).poster_name).toBe('only_handle');
	});
});

test('data posts: eight flat fields, the counts null where the platform reports none', () => {
	const simplified = dataPostShape.simplify({
		platform: 'Google',
		platform_id: 'g1',
		url: null,
		post_created_at: '2025-05-01T10:00:00Z',
		message: '★★★★ good',
		poster,
		media: [],
		referenced_post: null,
	});
	expect(simplified).toEqual({
		platform: 'Google',
		platform_id: 'g1',
		poster_name: 'Ada Lovelace',
		message: '★★★★ good',
		posted_at: '2025-05-01T10:00:00Z',
		url: null,
		like_count: null,
		comment_count: null,
	});
});

test('every simplified record: at most ten fields, none of them an object', () => {
	const records = [
		feedPostShape.simplify({ ...rawPost(), feed_id: 2 }),
		dataPostShape.simplify(rawPost()),
		profileShape.simplify({
			platform: 'Google',
			handle: 'h',
			metrics: { follower_count: 1 },
			place_id: 'ChIJabcdefgh',
			platform_id: 'g1',
			id: 4,
			term: 't',
			exact_match: true,
		}),
	];
	for (const record of records) {
		expect(Object.keys(record).length).toBeLessThanOrEqual(10);
		for (const value of Object.values(record)) expect(typeof value === 'object' && value !== null).toBe(false);
	}
});

describe('profiles', () => {
	const PLACE = 'ChIJN1t_tDeuEmsRUsoyG83frY4';

	test('the live shape: metrics flattened; nulls kept; no IDs answered, none made up', () => {
		const live = { platform: 'Twitter', handle: 'nasa', url: 'u', metrics: { follower_count: 10, post_count: null }, term: 'nasa', exact_match: true };
		expect(profileShape.simplify(live)).toEqual({
			platform: 'Twitter',
			handle: 'nasa',
			platform_id: null,
			place_id: null,
			url: 'u',
			follower_count: 10,
			post_count: null,
			term: 'nasa',
			exact_match: true,
		});
	});

	test('the flat shape: the name is the handle, the platform\'s ID of the profile is kept (platform_id, else id)', () => {
		const flat = { platform: 'Twitter', term: 'nasa', name: 'nasa', display_name: 'NASA', url: 'u', image: 'i', platform_id: '11348282' };
		expect(profileShape.simplify(flat)).toEqual({
			platform: 'Twitter',
			handle: 'nasa',
			platform_id: '11348282',
			place_id: null,
			url: 'u',
			follower_count: null,
			post_count: null,
			term: 'nasa',
			exact_match: null,
		});
		expect(profileShape.simplify({ platform: 'Bluesky', handle: 'nasa', id: 42 }).platform_id).toBe('42');
		// A place ID belongs to Google alone.
		expect(profileShape.simplify({ platform: 'Twitter', handle: 'nasa', place_id: PLACE }).place_id).toBeNull();
	});

	describe('a Google profile keeps its place ID as place_id, whichever field the answer carries it in', () => {
		const answers: Array<[string, IDataObject]> = [
			['place_id beside the profile\'s own platform_id', { platform: 'Google', term: 'Cafe', name: 'Cafe', url: 'u', place_id: PLACE, platform_id: 'g1' }],
			['platform_id, the place\'s name apart', { platform: 'Google', term: 'nasa', name: 'NASA Headquarters', url: 'u', platform_id: PLACE }],
			['id, the place\'s name apart', { platform: 'google', term: 'nasa', name: 'NASA Headquarters', id: PLACE }],
			['the live answer\'s handle', { platform: 'Google', handle: PLACE, url: 'u', metrics: { follower_count: null, post_count: 3 } }],
		];
		test.each(answers)('in %s', (_, answer) => {
			const simplified = profileShape.simplify(answer);
			expect(simplified.place_id).toBe(PLACE);
			// What Data › Post › Search with Term Type Reviews takes as it is ({{ $json.place_id }}).
			expect(checkDataSearch({ term: simplified.place_id, platforms: ['Google'], termType: 'reviews' }).ok).toBe(true);
		});

		test('the answer\'s own fields keep their meaning: the handle is the name, platform_id as answered', () => {
			const [[, besides], [, inPlatformId]] = answers;
			expect(profileShape.simplify(inPlatformId)).toMatchObject({ handle: 'NASA Headquarters', platform_id: PLACE, place_id: PLACE });
			expect(profileShape.simplify(besides)).toMatchObject({ handle: 'Cafe', platform_id: 'g1', place_id: PLACE });
		});

		test('place_id first, then platform_id, id and the handle; only a value that can be a place ID', () => {
			const other = 'GhIJQWDl0CIeQUARxks3icF8U8A';
			expect(profileShape.simplify({ platform: 'Google', place_id: PLACE, platform_id: other }).place_id).toBe(PLACE);
			expect(profileShape.simplify({ platform: 'Google', platform_id: other, id: PLACE }).place_id).toBe(other);
			// A place's numeric CID, a record's number and a name with spaces are no place IDs.
			expect(profileShape.simplify({ platform: 'Google', platform_id: '3287194310384471240', id: 7, handle: PLACE }).place_id).toBe(PLACE);
			expect(profileShape.simplify({ platform: 'Google', handle: 'Acme Coffee Berlin', id: 12 }).place_id).toBeNull();
			expect(profileShape.simplify({ platform: 'Google', name: PLACE }).place_id).toBeNull();
			expect(profileShape.simplify({ platform: 'Google', place_id: ' ', handle: `${PLACE} ` }).place_id).toBe(PLACE);
		});
	});

	test('a group: its platform, term and exact_match once, its profiles without them', () => {
		const group = {
			platform: 'Twitter',
			term: 'fizz',
			exact_match: false,
			profiles: [{ platform: 'Twitter', handle: 'fizz_official', url: 'u', metrics: { follower_count: 1, post_count: 2 } }, 'junk'],
		};
		expect(shapeProfileGroup(group, { mode: 'simplified' })).toEqual({
			platform: 'Twitter',
			term: 'fizz',
			exact_match: false,
			profiles: [{ handle: 'fizz_official', platform_id: null, place_id: null, url: 'u', follower_count: 1, post_count: 2 }],
		});
		expect(shapeProfileGroup(group, { mode: 'raw' })).toBe(group);
		expect(shapeProfileGroup(group, { mode: 'selected', fields: ['url'] })).toEqual({
			platform: 'Twitter',
			term: 'fizz',
			exact_match: false,
			profiles: [{ platform: 'Twitter', handle: 'fizz_official', url: 'u' }],
		});
	});
});

test('Selected Fields: the chosen raw fields and the naming ones, nothing else; raw is the record itself', () => {
	const post = { id: 1, message: 'm', url: 'u', poster };
	expect(shapeRecord(post, feedPostShape, { mode: 'selected', fields: ['message', 'not_there'] })).toEqual({ id: 1, message: 'm' });
	expect(shapeRecord(post, feedPostShape, { mode: 'raw' })).toBe(post);
	expect(shapeRecord({ platform: 'X', platform_id: '9', url: 'u' }, dataPostShape, { mode: 'selected', fields: [] })).toEqual({
		platform: 'X',
		platform_id: '9',
	});
});

describe('outputChoice', () => {
	const reader = (values: Record<string, unknown>) => (name: string, fallback: unknown) => (name in values ? values[name] : fallback);
	test('a tool: Output Fields decides', () => {
		expect(outputChoice(reader({ toolOutput: 'raw', simplify: true }))).toEqual({ mode: 'raw' });
		expect(outputChoice(reader({ toolOutput: 'simplified' }))).toEqual({ mode: 'simplified' });
		expect(outputChoice(reader({ toolOutput: 'selected', selectedFields: ['message'] }))).toEqual({ mode: 'selected', fields: ['message'] });
	});
	test('a workflow: Simplify decides; not set, raw', () => {
		expect(outputChoice(reader({ simplify: true }))).toEqual({ mode: 'simplified' });
		expect(outputChoice(reader({ simplify: false }))).toEqual({ mode: 'raw' });
		expect(outputChoice(reader({}))).toEqual({ mode: 'raw' });
	});
});

test('the fields are shown in the node’s one version, Simplify outside tool use and Output Fields inside it', () => {
	const on = simplifyField({ operation: ['getAll'] }, true);
	expect(on).toMatchObject({ name: 'simplify', default: true });
	expect(on.displayOptions?.show).toEqual({ operation: ['getAll'], '@tool': [false] });
	expect(simplifyField({}, false).default).toBe(false);
	const [output, fields] = toolOutputFields({}, feedPostShape);
	expect(output).toMatchObject({ name: 'toolOutput', default: 'simplified' });
	expect(output.displayOptions?.show?.['@tool']).toEqual([true]);
	expect(fields.displayOptions?.show?.toolOutput).toEqual(['selected']);
	expect(fields.options?.map((o) => ('value' in o ? o.value : undefined))).toContain('ai_sentiment');
});

test('the Fields dropdown names raw fields in title case', () => {
	const [, fields] = toolOutputFields({}, feedPostShape);
	const names = fields.options?.map((o) => o.name);
	expect(names).toEqual(expect.arrayContaining(['AI Sentiment', 'External ID', 'URL', 'Moderation Status', 'Feed ID']));
});
