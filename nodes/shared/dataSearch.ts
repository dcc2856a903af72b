import { DATA_API_TERM_TYPES, DATA_TERM_TYPES, type DataTermType } from './constants';
import { toList } from './input';
import { canonicalPlatform, platformLabel } from './platforms';
import { refuse, type Checked, type InputRefusal } from './refusal';

/** A Data API search's input, shared by the Data node and the Data Trigger: checked by docs/service.md#term-types (one round's request is in rounds.ts). */

export interface DataSearch {
	term: string;
	/** Canonical platform names (as the service spells them: docs/service.md#platforms), in the order given, without repeats. */
	platforms: string[];
	/** The term type to send; undefined to let the service infer it (auto-detect). */
	termType?: DataTermType;
}

interface CheckedDataSearch extends DataSearch {
	/** The term type each platform will apply, after auto-detection. */
	resolved: Record<string, DataTermType>;
}

/** The Term Type value that leaves `term_type` out, so the service infers it from the term. */
export const AUTO_DETECT = 'auto';

/** The term type the service applies when none is sent (docs/service.md#data-posts: `#` hashtag, else username). */
function inferredTermType(term: string): DataTermType {
	return term.trim().startsWith('#') ? 'hashtag' : 'username';
}

/** Every fault of a platform choice, and the platforms as request names, without duplicates, in the order given. */
function platformRefusals(value: unknown, field: string): { platforms: string[]; refusals: InputRefusal[] } {
	const names = toList(value);
	if (names.length === 0) {
		return { platforms: [], refusals: [{ field, reason: 'no platform is chosen', hint: 'Choose at least one platform.' }] };
	}
	const platforms: string[] = [];
	const refusals: InputRefusal[] = [];
	for (const name of names) {
		const platform = canonicalPlatform(name);
		if (!platform) {
			refusals.push({
				field,
				platform: name,
				reason: `"${name}" is not a platform the Data API can search without a connected account`,
				hint: `Known platforms: ${Object.keys(DATA_API_TERM_TYPES).join(', ')}.`,
			});
		} else if (!platforms.includes(platform)) {
			platforms.push(platform);
		}
	}
	return { platforms, refusals };
}

function checked<T>(value: T, refusals: InputRefusal[]): Checked<T> {
	if (refusals.length === 0) return { ok: true, value };
	const [refusal, ...also] = refusals;
	return also.length > 0 ? { ok: false, refusal, also } : refuse(refusal);
}

/** The platforms chosen, as request names, without duplicates, in the order given. */
export function checkPlatforms(value: unknown, field = 'Platforms'): Checked<string[]> {
	const { platforms, refusals } = platformRefusals(value, field);
	return checked(platforms, refusals);
}

function allowedText(platform: string): string {
	const allowed = DATA_API_TERM_TYPES[platform] ?? [];
	return allowed.length === 1 ? allowed[0] : `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}`;
}

/** Advice per platform whose term types cannot be auto-detected. */
const TERM_TYPE_HINTS: Record<string, string> = {
	Reddit: 'Reddit needs an explicit Term Type: Channel for a subreddit, or Mentions for a keyword search.',
	Google:
		'Google reviews need Term Type Reviews and a place ID as the term (Profiles → Look Up on Google returns it as place_id), and Reviews applies to Google only, so search Google in a node of its own.',
};

function termRefusal(value: unknown, term: string): InputRefusal | undefined {
	if (value !== undefined && value !== null && typeof value !== 'string' && typeof value !== 'number') {
		const kind = Array.isArray(value) ? 'a list' : `a ${typeof value}`;
		return { field: 'Term', reason: `the term is ${kind}, not text`, hint: 'Enter a handle, hashtag, keyword or place ID.' };
	}
	if (term === '') {
		return { field: 'Term', reason: 'the term is empty', hint: 'Enter a handle, hashtag, keyword or place ID.' };
	}
	if (term === '#' || term === '@') {
		return { field: 'Term', reason: `the term "${term}" has a prefix but no name` };
	}
	return undefined;
}

/** Checks a search before any request: a term, known platforms, a term type each takes; every fault reported. */
export function checkDataSearch(raw: { term: unknown; platforms: unknown; termType: unknown }): Checked<CheckedDataSearch> {
	const term = typeof raw.term === 'string' || typeof raw.term === 'number' ? String(raw.term).trim() : '';
	const badTerm = termRefusal(raw.term, term);
	const refusals: InputRefusal[] = badTerm ? [badTerm] : [];

	const { platforms, refusals: badPlatforms } = platformRefusals(raw.platforms, 'Platforms');
	refusals.push(...badPlatforms);

	const chosen = String(raw.termType ?? AUTO_DETECT).trim() || AUTO_DETECT;
	let termType: DataTermType | undefined;
	if (chosen !== AUTO_DETECT) {
		if (DATA_TERM_TYPES.includes(chosen as DataTermType)) {
			termType = chosen as DataTermType;
		} else {
			refusals.push({
				field: 'Term Type',
				reason: `"${chosen}" is not a term type`,
				hint: `Use one of: ${DATA_TERM_TYPES.join(', ')}, or auto-detect.`,
			});
		}
	}

	const resolved: Record<string, DataTermType> = {};
	// Which term type applies can be told only of a usable term and a known term type.
	if (!badTerm && (termType || chosen === AUTO_DETECT)) {
		const applied = termType ?? inferredTermType(term);
		for (const platform of platforms) {
			const allowed = DATA_API_TERM_TYPES[platform] ?? [];
			if (allowed.includes(applied)) {
				resolved[platform] = applied;
				continue;
			}
			const how = termType
				? `Term Type ${applied} is applied to every platform`
				: `auto-detect reads "${term}" as ${applied}`;
			refusals.push({
				field: 'Term Type',
				platform,
				reason: `${platformLabel(platform)} does not take ${applied} terms (${how}); it takes ${allowedText(platform)}`,
				hint:
					TERM_TYPE_HINTS[platform] ??
					`Choose a Term Type ${platformLabel(platform)} takes, or search it in a node of its own.`,
			});
		}
		if (applied === 'reviews' && (/^[#@]/.test(term) || /\s/.test(term))) {
			refusals.push({
				field: 'Term',
				platform: 'Google',
				reason: `Google reviews take a place ID, and "${term}" is not one`,
				hint: TERM_TYPE_HINTS.Google,
			});
		}
	}

	return checked({ term, platforms, termType, resolved }, refusals);
}
