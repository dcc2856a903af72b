import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { canonicalPlatform } from './platforms';
import { isObject } from './utils';

// Output sized for people and agents (n8n's guideline: a Simplify toggle where an answer has more than ten
// fields, at most ten flat fields in the simplified record, the most useful first; for a node used as a tool,
// Output Fields: Simplified, Raw or Selected Fields). docs/answers.md's "Simplified output" section is the
// contract for the shapes below.

/** How the records of an answer are output. */
export type OutputChoice = { mode: 'raw' } | { mode: 'simplified' } | { mode: 'selected'; fields: string[] };

export const RAW: OutputChoice = { mode: 'raw' };

/** One kind of record: its simplified form, its raw fields to select from, and the fields always kept. */
export interface RecordShape {
	simplify: (record: IDataObject) => IDataObject;
	/** Raw top-level fields offered under Fields (Selected Fields). */
	fields: string[];
	/** Kept in Selected Fields whatever is chosen: what names the record. */
	always: string[];
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const child = (value: unknown): IDataObject => (isObject(value) ? (value as IDataObject) : {});

/** The poster's display name, else their handle. */
function posterName(value: unknown): string | null {
	if (!isObject(value)) return null;
	const p = value as IDataObject;
	return text(p.display_name) ?? text(p.name);
}

/**
 * A post of a feed, simplified: who said what, where and when, its link, reach and moderation, and its ID and feed,
 * which moderating it next (Approve, Reject, Pin …) takes.
 */
const simplifiedFeedPost = (post: IDataObject): IDataObject => ({
	id: post.id ?? null,
	feed_id: post.feed_id ?? null,
	platform: text(post.platform),
	poster_name: posterName(post.poster),
	message: text(post.message),
	posted_at: text(post.external_created_at),
	url: text(post.url),
	like_count: count(post.like_count),
	comment_count: count(post.comment_count),
	moderation_status: text(post.moderation_status),
});

const feedPostFields = [
	'ai_decision_reason',
	'ai_moderation_reasoning',
	'ai_sentiment',
	'bookmark_count',
	'comment_count',
	'created_at',
	'external_created_at',
	'external_id',
	'feed_id',
	'impression_count',
	'like_count',
	'media',
	'message',
	'moderation_status',
	'pinned',
	'platform',
	'poster',
	'quote_count',
	'referenced_post',
	'reshared_by',
	'share_count',
	'tagged_users',
	'url',
	'view_count',
];

/**
 * A post of a feed (Post › Get, Get Many, Download Media, Search Across Feeds, the Feed Trigger). A post of one
 * feed answered without `feed_id` gets that feed's before it is shaped (`ofFeed` in the Social Aggregator node's
 * routing, the Feed Trigger's items).
 */
export const feedPostShape: RecordShape = { simplify: simplifiedFeedPost, fields: feedPostFields, always: ['id', 'feed_id'] };

/** A post of the Data API (Data › Post › Search). */
export const dataPostShape: RecordShape = {
	simplify: (post) => ({
		platform: text(post.platform),
		platform_id: text(post.platform_id),
		poster_name: posterName(post.poster),
		message: text(post.message),
		posted_at: text(post.post_created_at),
		url: text(post.url),
		like_count: count(post.like_count),
		comment_count: count(post.comment_count),
	}),
	fields: [
		'bookmark_count',
		'comment_count',
		'impression_count',
		'like_count',
		'media',
		'message',
		'post_created_at',
		'poster',
		'quote_count',
		'referenced_post',
		'reshared_by',
		'share_count',
		'tagged_users',
		'url',
		'view_count',
	],
	always: ['platform', 'platform_id'],
};

/** An ID as text: the service's IDs may be strings or numbers. */
const idText = (value: unknown): string | null =>
	typeof value === 'number' && Number.isFinite(value) ? String(value) : text(value);

/**
 * Whether an ID can be a Google place ID: one token of URL-safe base64 (`ChIJ…`, `GhIJ…`, `Ei…`), not a bare
 * number (a place's numeric CID, or a record's ID, is no place ID) and not a name (spaces).
 */
const isPlaceId = (id: string): boolean => /^[A-Za-z0-9_-]+$/.test(id) && /[A-Za-z]/.test(id);

/**
 * A Google profile's place ID, which Post › Search with Term Type Reviews takes as it is: `place_id`, else the
 * platform's ID of the place (`platform_id`, `id`), else the live answer's handle (on Google, the place ID);
 * only a value that can be one, so a place's name or number never stands in for it.
 */
function placeId(profile: IDataObject): string | null {
	if (canonicalPlatform(String(profile.platform ?? '')) !== 'Google') return null;
	for (const field of ['place_id', 'platform_id', 'id', 'handle']) {
		const id = idText(profile[field]);
		if (id !== null && isPlaceId(id.trim())) return id.trim();
	}
	return null;
}

/**
 * A profile, one item each (Data › Profile › Look Up): the live shape's fields, or the flat shape's. It keeps the
 * IDs a next step takes: the platform's ID of the profile where the answer gives one, and on Google the place ID
 * (null elsewhere), always under these names whichever field the answer carried it in.
 */
export const profileShape: RecordShape = {
	simplify: (profile) => {
		const metrics = child(profile.metrics);
		return {
			platform: text(profile.platform),
			handle: text(profile.handle) ?? text(profile.name),
			platform_id: idText(profile.platform_id) ?? idText(profile.id),
			place_id: placeId(profile),
			url: text(profile.url),
			follower_count: count(metrics.follower_count ?? profile.follower_count),
			post_count: count(metrics.post_count ?? profile.post_count),
			term: text(profile.term),
			exact_match: typeof profile.exact_match === 'boolean' ? profile.exact_match : null,
		};
	},
	fields: ['display_name', 'exact_match', 'id', 'image', 'metrics', 'name', 'place_id', 'platform_id', 'term', 'url'],
	always: ['platform', 'handle'],
};

/** One record in the chosen output. */
export function shapeRecord(record: IDataObject, shape: RecordShape, choice: OutputChoice): IDataObject {
	if (choice.mode === 'raw') return record;
	if (choice.mode === 'simplified') return shape.simplify(record);
	const kept: IDataObject = {};
	for (const field of [...shape.always, ...choice.fields]) {
		if (field in record) kept[field] = record[field];
	}
	return kept;
}

/**
 * A group of profiles for one handle on one platform (Look Up, One Item per Handle and Platform): its
 * platform, term and exact_match as answered, its profiles in the chosen output.
 */
export function shapeProfileGroup(group: IDataObject, choice: OutputChoice): IDataObject {
	if (choice.mode === 'raw') return group;
	const profiles = (Array.isArray(group.profiles) ? group.profiles : []).filter(isObject);
	if (choice.mode === 'selected') {
		const { platform, term, exact_match } = group;
		return { platform, term, exact_match, profiles: profiles.map((p) => shapeRecord(p, profileShape, choice)) };
	}
	return {
		platform: text(group.platform),
		term: text(group.term),
		exact_match: typeof group.exact_match === 'boolean' ? group.exact_match : null,
		profiles: profiles.map((profile) => {
			const simplified = profileShape.simplify(profile);
			// The group already says these.
			for (const field of ['platform', 'term', 'exact_match']) delete simplified[field];
			return simplified;
		}),
	};
}

type Show = Record<string, unknown[]>;

const ACRONYMS: Record<string, string> = { ai: 'AI', id: 'ID', url: 'URL' };

/** A raw field's name as a dropdown title: `ai_sentiment` → "AI Sentiment". */
const label = (field: string) =>
	field
		.split('_')
		.map((word) => ACRONYMS[word] ?? word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');

/** Simplify, shown outside tool use: on for lists, off for a single record asked for. */
export function simplifyField(show: Show, byDefault: boolean): INodeProperties {
	const field: INodeProperties = {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		description: 'Whether to return a simplified version of the response instead of the raw data',
		displayOptions: { show: { ...show, '@tool': [false] } },
	};
	return byDefault ? { ...field, default: true } : field;
}

/** Output Fields and its Fields, shown when the node is an agent's tool. */
export function toolOutputFields(show: Show, shape: RecordShape): INodeProperties[] {
	const always = shape.always.join(' and ');
	return [
		{
			displayName: 'Output Fields',
			name: 'toolOutput',
			type: 'options',
			default: 'simplified',
			description: 'Which fields of each record to send to the agent',
			options: [
				{ name: 'Raw', value: 'raw', description: 'Every field the service answers' },
				{ name: 'Selected Fields', value: 'selected', description: `Only the fields you select, and ${always}` },
				{ name: 'Simplified', value: 'simplified', description: 'At most ten flat fields, the ones most tasks need' },
			],
			displayOptions: { show: { ...show, '@tool': [true] } },
		},
		{
			displayName: 'Fields',
			name: 'selectedFields',
			type: 'multiOptions',
			default: [],
			description: `The fields to send to the agent; ${always} are always included`,
			options: shape.fields.map((field) => ({ name: label(field), value: field })),
			displayOptions: { show: { ...show, '@tool': [true], toolOutput: ['selected'] } },
		},
	];
}

/** Reads a node parameter with a fallback for one that is not shown (Output Fields outside tool use). */
type ReadParameter = (name: string, fallback: unknown) => unknown;

/** The output chosen: Output Fields for a tool, else Simplify. */
export function outputChoice(read: ReadParameter): OutputChoice {
	const tool = read('toolOutput', '');
	if (tool === 'raw') return RAW;
	if (tool === 'selected') {
		const fields = read('selectedFields', []);
		return { mode: 'selected', fields: Array.isArray(fields) ? fields.map(String) : [] };
	}
	if (tool === 'simplified') return { mode: 'simplified' };
	return read('simplify', false) === true ? { mode: 'simplified' } : RAW;
}
