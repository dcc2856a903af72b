import type { IDataObject } from 'n8n-workflow';

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

	test('simplified: the documented fields, in order; the poster and the first medium flattened to what a reader needs', () => {
		const simplified = feedPostShape.simplify(post);
		expect(simplified).toEqual({
			id: 1001,
			platform: 'Twitter',
			url: 'https://x.example/p/1',
			message: 'hello',
			posted_at: '2025-05-01T10:00:00Z',
			poster: { name: 'Ada Lovelace', handle: 'ada', url: 'https://x.example/ada' },
			media: { type: 'video', url: 'https://cdn.example/v.mp4' },
			like_count: 5,
			comment_count: 2,
			moderation_status: 'public',
			pinned: false,
		});
		expect(Object.keys(simplified)).toEqual(Object.keys(feedPostShape.simplify({})));
	});

	test('a cross-feed search result keeps its feed_id', () => {
		expect(feedPostShape.simplify({ ...post, feed_id: 2 })).toMatchObject({ id: 1001, feed_id: 2 });
	});

	test('missing or odd fields become null, never undefined or a crash', () => {
		const odd = feedPostShape.simplify({ id: 3, poster: 'nobody', media: [null, 1], like_count: '5', pinned: 'yes' });
		expect(odd).toEqual({
			id: 3,
			platform: null,
			url: null,
			message: null,
			posted_at: null,
			poster: null,
			media: null,
			like_count: null,
			comment_count: null,
			moderation_status: null,
			pinned: null,
		});
		expect(feedPostShape.simplify({ poster: { name: 'only_handle' } }).poster).toEqual({ name: 'only_handle', handle: 'only_handle', url: null });
	});
});

test('data posts: nine fields, the counts null where the platform reports none', () => {
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
		url: null,
		message: '★★★★ good',
		posted_at: '2025-05-01T10:00:00Z',
		poster: { name: 'Ada Lovelace', handle: 'ada', url: 'https://x.example/ada' },
		media: null,
		like_count: null,
		comment_count: null,
	});
});

describe('profiles', () => {
	test('the live shape: metrics flattened; nulls kept', () => {
		const live = { platform: 'Twitter', handle: 'nasa', url: 'u', metrics: { follower_count: 10, post_count: null }, term: 'nasa', exact_match: true };
		expect(profileShape.simplify(live)).toEqual({
			platform: 'Twitter',
			handle: 'nasa',
			url: 'u',
			follower_count: 10,
			post_count: null,
			term: 'nasa',
			exact_match: true,
		});
	});

	test('the flat shape: the name is the handle, a Google place ID is kept', () => {
		const flat = { platform: 'Google', term: 'Cafe', name: 'Cafe', display_name: 'Cafe', url: 'u', image: 'i', place_id: 'ChIJabc', platform_id: '1' };
		expect(profileShape.simplify(flat)).toEqual({
			platform: 'Google',
			handle: 'Cafe',
			url: 'u',
			follower_count: null,
			post_count: null,
			term: 'Cafe',
			exact_match: null,
			place_id: 'ChIJabc',
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
			profiles: [{ handle: 'fizz_official', url: 'u', follower_count: 1, post_count: 2 }],
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
	test('a workflow: Simplify decides; version 1 (neither shown) is raw', () => {
		expect(outputChoice(reader({ simplify: true }))).toEqual({ mode: 'simplified' });
		expect(outputChoice(reader({ simplify: false }))).toEqual({ mode: 'raw' });
		expect(outputChoice(reader({}))).toEqual({ mode: 'raw' });
	});
});

test('the fields are shown from version 1.1 on, Simplify outside tool use and Output Fields inside it', () => {
	const on = simplifyField({ operation: ['getAll'] }, true);
	expect(on).toMatchObject({ name: 'simplify', default: true });
	expect(on.displayOptions?.show).toEqual({ operation: ['getAll'], '@version': [{ _cnd: { gte: 1.1 } }], '@tool': [false] });
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
