import { DATA_API_TERM_TYPES, DATA_TERM_TYPES, PLATFORM_DISPLAY_NAMES, type DataTermType } from './constants';

/**
 * Checks of a Data API post search made before any request (and any credit)
 * is spent, following SPEC.md's table of platforms and term types.
 */

export interface DataSearchInput {
	term: unknown;
	/** Platform names as chosen or typed (any case; an array or a comma-separated string). */
	platforms: unknown;
	/** A term type, or empty / `auto` to let the service infer it from the term. */
	termType?: unknown;
}

export interface DataSearch {
	term: string;
	/** Canonical platform names (as SPEC.md spells them), in the order given, without repeats. */
	platforms: string[];
	/** The term type to send; undefined to let the service infer it. */
	termType?: DataTermType;
}

export interface DataSearchProblem {
	/** The parameter at fault: `term`, `platforms` or `termType`. */
	field: 'term' | 'platforms' | 'termType';
	message: string;
	platform?: string;
}

export function platformLabel(platform: string): string {
	return PLATFORM_DISPLAY_NAMES[platform] ?? platform;
}

/** SPEC.md's name of a platform, matched without regard to case (`x` and `X (Twitter)` name Twitter). */
export function canonicalPlatform(name: string): string | undefined {
	const wanted = name.trim().toLowerCase();
	if (!wanted) return undefined;
	if (wanted === 'x' || wanted === 'x (twitter)') return 'Twitter';
	return Object.keys(DATA_API_TERM_TYPES).find(
		(p) => p.toLowerCase() === wanted || platformLabel(p).toLowerCase() === wanted,
	);
}

/** The term type the service applies when none is sent (SPEC.md: `#` hashtag, else username). */
export function inferredTermType(term: string): DataTermType {
	return term.trim().startsWith('#') ? 'hashtag' : 'username';
}

function platformList(value: unknown): string[] {
	if (Array.isArray(value)) return value.map((v) => String(v ?? '').trim()).filter(Boolean);
	if (typeof value === 'string') return value.split(',').map((v) => v.trim()).filter(Boolean);
	return [];
}

/** Every problem of a search, none when it may be sent. */
export function dataSearchProblems(input: DataSearchInput): { search: DataSearch; problems: DataSearchProblem[] } {
	const problems: DataSearchProblem[] = [];
	const term = typeof input.term === 'string' || typeof input.term === 'number' ? String(input.term).trim() : '';
	if (!term) problems.push({ field: 'term', message: 'Term is empty: enter a handle, hashtag, keyword or place ID' });

	const platforms: string[] = [];
	const given = platformList(input.platforms);
	if (given.length === 0) problems.push({ field: 'platforms', message: 'Choose at least one platform' });
	for (const name of given) {
		const platform = canonicalPlatform(name);
		if (!platform) {
			problems.push({
				field: 'platforms',
				platform: name,
				message: `Platform "${name}" is not a Data API platform. Choose from: ${Object.keys(DATA_API_TERM_TYPES).map(platformLabel).join(', ')}`,
			});
		} else if (!platforms.includes(platform)) {
			platforms.push(platform);
		}
	}

	const rawType = typeof input.termType === 'string' ? input.termType.trim() : '';
	let termType: DataTermType | undefined;
	if (rawType && rawType !== 'auto') {
		if ((DATA_TERM_TYPES as string[]).includes(rawType)) {
			termType = rawType as DataTermType;
		} else {
			problems.push({
				field: 'termType',
				message: `Term type "${rawType}" is unknown. Use one of: ${DATA_TERM_TYPES.join(', ')}`,
			});
		}
	}

	if (term && (termType || !rawType || rawType === 'auto')) {
		const effective = termType ?? inferredTermType(term);
		for (const platform of platforms) {
			const allowed = DATA_API_TERM_TYPES[platform];
			if (allowed.includes(effective)) continue;
			const how = termType ? `term type "${effective}"` : `the inferred term type "${effective}"`;
			problems.push({
				field: 'termType',
				platform,
				message: `${platformLabel(platform)} does not take ${how}; it takes ${allowed.join(' or ')}`,
			});
		}
	}

	return { search: { term, platforms, termType }, problems };
}

/** One message naming each field at fault, for a `NodeOperationError`. */
export function describeProblems(problems: DataSearchProblem[]): { message: string; description: string } {
	const fields = Array.from(new Set(problems.map((p) => p.field)));
	const labels: Record<DataSearchProblem['field'], string> = {
		term: 'Term',
		platforms: 'Platforms',
		termType: 'Term Type',
	};
	const message =
		problems.length === 1
			? `${labels[problems[0].field]}: ${problems[0].message}`
			: `Invalid ${fields.map((f) => labels[f]).join(', ')}: ${problems[0].message}`;
	const description = problems.map((p) => `${labels[p.field]}: ${p.message}`).join('\n');
	return { message, description };
}
