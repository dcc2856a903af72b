import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { isDigits, isObject, nonBlankText } from '../../shared/utils';
import { refuse, validOrThrow, type Checked } from '../../shared/refusal';
import type { Prepare } from './checks';
import type { After } from './routing';

// A feed's moderation settings: the fields, their check before any request, and how Create and Update send
// them. The service takes them on PATCH /feeds/{id} only, under names that differ from its feed record's
// (`queue` is answered as `moderation.enabled`, `profanity` as `moderation.profanity_filter`).

type Kind = 'switch' | 'words' | 'text' | 'strategy' | 'sentiments';

interface Setting {
	/** The parameter inside Additional Fields / Update Fields. */
	name: string;
	label: string;
	/** The name in PATCH /feeds/{id}'s body. */
	property: string;
	kind: Kind;
}

const SETTINGS: Setting[] = [
	{ name: 'queue', label: 'Hold New Posts for Approval', property: 'queue', kind: 'switch' },
	{ name: 'allowedWords', label: 'Allowed Words', property: 'allowed', kind: 'words' },
	{ name: 'blockedWords', label: 'Blocked Words', property: 'disallowed', kind: 'words' },
	{ name: 'profanityFilter', label: 'Profanity Filter', property: 'profanity', kind: 'switch' },
	{ name: 'preventDuplicates', label: 'Prevent Duplicates', property: 'prevent_duplicates', kind: 'switch' },
	{ name: 'deduplicationStrategy', label: 'Deduplication Strategy', property: 'deduplication_strategy', kind: 'strategy' },
	{ name: 'aiModeration', label: 'AI Moderation', property: 'ai_moderation', kind: 'switch' },
	{
		name: 'aiHarmfulContentFilter',
		label: 'AI Harmful Content Filter',
		property: 'ai_harmful_content_filter',
		kind: 'switch',
	},
	{ name: 'aiModerationRules', label: 'AI Moderation Rules', property: 'ai_moderation_rules', kind: 'text' },
	{ name: 'aiSentimentFilter', label: 'AI Sentiment Filter', property: 'ai_sentiment_filter', kind: 'sentiments' },
];

/** The labels of the settings by parameter name, for "Nothing to update" and the like. */
export const MODERATION_LABELS: Record<string, string> = Object.fromEntries(SETTINGS.map((s) => [s.name, s.label]));

const STRATEGIES = ['prioritize_top_source', 'distribute_across_sources'];
const SENTIMENTS = ['positive', 'neutral', 'negative'];

const quoted = (values: string[]) => values.map((v) => `"${v}"`).join(', ');
const shown = (value: unknown) => JSON.stringify(value) ?? String(value);

/** A list typed as text ("a, b") or given as a list by an expression; null for anything else. */
function listOf(value: unknown, separators: RegExp): string[] | null {
	const parts = Array.isArray(value) ? value : [value];
	if (!parts.every((part) => typeof part === 'string' || typeof part === 'number')) return null;
	return parts.flatMap((part) => String(part).split(separators)).map((v) => v.trim()).filter((v) => v !== '');
}

/** One setting's value as the service takes it, or why not. */
function checkSetting(setting: Setting, value: unknown): Checked<IDataObject[string]> {
	const refusal = (reason: string, hint?: string) => refuse<IDataObject[string]>({ field: setting.label, reason, hint });
	switch (setting.kind) {
		case 'switch': {
			if (typeof value === 'boolean') return { ok: true, value };
			const word = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
			if (word === 'true' || word === 'false') return { ok: true, value: word === 'true' };
			return refusal(`must be true or false, not ${shown(value)}`);
		}
		case 'words': {
			const words = listOf(value ?? '', /[,\n]/);
			if (words === null) {
				return refusal(`must be words separated by commas, not ${shown(value)}`, 'Enter words such as: spam, giveaway.');
			}
			// One string, as the service documents; an empty one clears the list.
			return { ok: true, value: [...new Set(words)].join(',') };
		}
		case 'text': {
			if (value === undefined || value === null) return { ok: true, value: '' };
			if (typeof value !== 'string') return refusal(`must be text, not ${shown(value)}`);
			return { ok: true, value: value.trim() };
		}
		case 'strategy': {
			if (typeof value === 'string' && STRATEGIES.includes(value)) return { ok: true, value };
			return refusal(`must be one of ${quoted(STRATEGIES)}, not ${shown(value)}`);
		}
		case 'sentiments': {
			const chosen = listOf(value ?? [], /,/);
			const wrong = chosen?.find((v) => !SENTIMENTS.includes(v.toLowerCase()));
			if (chosen === null || wrong !== undefined) {
				return refusal(`must be a list of ${quoted(SENTIMENTS)}, not ${shown(wrong ?? value)}`);
			}
			return { ok: true, value: [...new Set(chosen.map((v) => v.toLowerCase()))] };
		}
	}
}

/**
 * The moderation settings among a collection's fields, under the service's names and types; only those the
 * user added. A refusal names the first wrong field, `also` the others.
 */
function checkModeration(fields: unknown): Checked<IDataObject> {
	const given = isObject(fields) ? fields : {};
	const body: IDataObject = {};
	const refusals = [];
	for (const setting of SETTINGS) {
		if (!(setting.name in given)) continue;
		const checked = checkSetting(setting, given[setting.name]);
		if (checked.ok) body[setting.property] = checked.value;
		else refusals.push(checked.refusal);
	}
	if (refusals.length > 0) return { ok: false, refusal: refusals[0], also: refusals.slice(1) };
	return { ok: true, value: body };
}

/** What reads the parameters: a prepare step's context or an after step's. */
interface Reader {
	getNode(): INode;
	getNodeParameter(name: string, fallback: unknown): unknown;
}

/** The settings of the collection at `path`, checked (naming the field and the item), before any request. */
function settingsAt(context: Reader, path: string, itemIndex: number): IDataObject {
	return validOrThrow(context.getNode(), checkModeration(context.getNodeParameter(path, {})), itemIndex);
}

/** Update: the settings go into the PATCH body with the other fields. */
export function bodyModeration(path: string): Prepare {
	return function (request, itemIndex) {
		const settings = settingsAt(this, path, itemIndex);
		if (Object.keys(settings).length === 0) return;
		const body = isObject(request.body) ? request.body : {};
		request.body = { ...body, ...settings };
	};
}

/** Create: the settings are checked before the feed is created (they are sent after it, see `applyModeration`). */
export function checkModerationFirst(path: string): Prepare {
	return function (_request, itemIndex) {
		settingsAt(this, path, itemIndex);
	};
}

/**
 * Create: POST /feeds takes a name and a sync interval only, so the settings follow in a PATCH of the new feed.
 * If that PATCH fails (a plan without AI moderation, say), the new feed is deleted again: the operation has then
 * created nothing, and running it again (by hand or by Retry On Fail) makes no second feed.
 */
export function applyModeration(path: string): After {
	return async function (record, sendMore, itemIndex) {
		const settings = settingsAt(this, path, itemIndex);
		if (Object.keys(settings).length === 0) return record;
		const id = typeof record.id === 'number' || isDigits(String(record.id ?? '')) ? String(record.id) : undefined;
		if (id === undefined) {
			throw new NodeOperationError(
				this.getNode(),
				`The feed "${String(record.name ?? '')}" was created, but its moderation settings were not set: the service's answer has no feed ID`,
				{
					itemIndex,
					description:
						'Find the feed with Feed › Get Many and set the settings with Feed › Update; running Create again would make a second feed.',
				},
			);
		}
		const url = `/feeds/${id}`;
		let answer;
		try {
			answer = await sendMore('PATCH', url, settings);
		} catch (refused) {
			try {
				await sendMore('DELETE', url);
			} catch (undo) {
				throw withContext(
					refused,
					`Feed ${id} was created, but its moderation settings were not set: ${messageOf(refused)}`,
					`Deleting the feed again failed too (${messageOf(undo)}). Set the settings with Feed › Update on feed ${id}, or delete it; running Create again would make a second feed.`,
				);
			}
			throw withContext(
				refused,
				`The feed was not created, because setting its moderation failed: ${messageOf(refused)}`,
				'Create made the feed, then the moderation settings failed, so the feed was deleted again: nothing was created, and running the node again makes no second feed.',
			);
		}
		// The PATCH answers the feed with its settings; without a usable body, the created record stands.
		const body: unknown = answer.body;
		return isObject(body) && isObject(body.data) ? body.data : record;
	};
}

function messageOf(error: unknown): string {
	return nonBlankText((error as { message?: unknown })?.message) ?? 'unknown error';
}

/** The error with a message that says what happened to the feed; its description (the link, the code) kept after ours. */
function withContext(error: unknown, message: string, first: string): Error {
	const target = error instanceof Error ? error : new Error(String(error));
	const described = target as Error & { description?: string | null };
	described.description = [first, nonBlankText(described.description)].filter(Boolean).join('\n');
	target.message = message;
	return target;
}

/** The fields of the moderation settings, for Additional Fields (Create) and Update Fields (Update). */
export const moderationFields: INodeProperties[] = [
	{
		displayName: 'AI Harmful Content Filter',
		name: 'aiHarmfulContentFilter',
		type: 'boolean',
		default: true,
		description: 'Whether AI moderation hides posts with harmful content (used when AI Moderation is on)',
	},
	{
		displayName: 'AI Moderation',
		name: 'aiModeration',
		type: 'boolean',
		default: true,
		description:
			'Whether AI checks new posts by the rules and filters below. Needs a plan with AI moderation: on other plans the service refuses with a link to upgrade.',
	},
	{
		displayName: 'AI Moderation Rules',
		name: 'aiModerationRules',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		placeholder: 'e.g. Hide posts that mention competitors. Keep product reviews.',
		description: 'Rules in plain language that AI moderation applies to new posts. Empty clears them.',
	},
	{
		displayName: 'AI Sentiment Filter',
		name: 'aiSentimentFilter',
		type: 'multiOptions',
		options: [
			{ name: 'Negative', value: 'negative' },
			{ name: 'Neutral', value: 'neutral' },
			{ name: 'Positive', value: 'positive' },
		],
		default: [],
		description: 'The sentiments AI moderation filters posts by. None chosen turns the filter off.',
	},
	{
		displayName: 'Allowed Words',
		name: 'allowedWords',
		type: 'string',
		default: '',
		placeholder: 'e.g. acme, launch',
		description: 'Comma-separated words: only posts that contain one of them are shown. Empty clears the list.',
	},
	{
		displayName: 'Blocked Words',
		name: 'blockedWords',
		type: 'string',
		default: '',
		placeholder: 'e.g. spam, giveaway',
		description: 'Comma-separated words: posts that contain any of them are hidden. Empty clears the list.',
	},
	{
		displayName: 'Deduplication Strategy',
		name: 'deduplicationStrategy',
		type: 'options',
		options: [
			{
				name: 'Distribute Across Sources',
				value: 'distribute_across_sources',
				description: 'Spread the copies kept across the sources',
			},
			{
				name: 'Prioritize Top Source',
				value: 'prioritize_top_source',
				description: "Keep the copy from the feed's top source",
			},
		],
		default: 'prioritize_top_source',
		description: 'Which source keeps a post that several sources collected (used when Prevent Duplicates is on)',
	},
	{
		displayName: 'Hold New Posts for Approval',
		name: 'queue',
		type: 'boolean',
		default: true,
		description: 'Whether new posts wait as moderated until approved (Post › Approve) instead of showing at once',
	},
	{
		displayName: 'Prevent Duplicates',
		name: 'preventDuplicates',
		type: 'boolean',
		default: true,
		description: 'Whether a post that several sources collected shows once',
	},
	{
		displayName: 'Profanity Filter',
		name: 'profanityFilter',
		type: 'boolean',
		default: true,
		description: 'Whether posts with profanity are hidden',
	},
];
