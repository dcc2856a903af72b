import { DATA_API_TERM_TYPES, PLATFORM_DISPLAY_NAMES } from './constants';
import type { PlatformStatus } from './types';

/** A platform's names (docs/service.md#platforms): the service's, the one shown to users, and what it may answer for it. */

/** The name users see (`X (Twitter)`, `Google Reviews`); the service's name otherwise. */
export function platformLabel(platform: string): string {
	return PLATFORM_DISPLAY_NAMES[platform] ?? platform;
}

/** The service's name of a platform, matched without regard to case (`x` and `X (Twitter)` name Twitter). */
export function canonicalPlatform(name: string): string | undefined {
	const wanted = name.trim().toLowerCase();
	if (!wanted) return undefined;
	if (wanted === 'x' || wanted === 'x (twitter)') return 'Twitter';
	return Object.keys(DATA_API_TERM_TYPES).find(
		(p) => p.toLowerCase() === wanted || platformLabel(p).toLowerCase() === wanted,
	);
}

/** The platform among `platforms` a name from the service stands for, in any case or as the alias `X` (docs/service.md#platforms). */
export function matchPlatform(name: unknown, platforms: string[]): string | undefined {
	const text = String(name ?? '');
	const canonical = canonicalPlatform(text);
	return platforms.find((p) => p.toLowerCase() === text.toLowerCase() || p === canonical);
}

/** A platform's entry in `meta.platforms`. */
export function platformStatus(statuses: PlatformStatus[], platform: string): PlatformStatus | undefined {
	return statuses.find((s) => matchPlatform(s?.platform, [platform]));
}
