/**
 * What the property-based suites of this folder share (one file per kind of answer, so that jest
 * runs them on both cores): the seed and run count, the odd values put where numbers, lists or
 * objects belong, and what a clear error reads like.
 *
 * Seeded and reproducible: FC_SEED=<n> replays a run, FC_RUNS=<n> changes the count; a
 * failure prints its seed and path.
 */
import fc from 'fast-check';

import type { RecordedError } from '../../harness';

export const SEED = Number(process.env.FC_SEED ?? 20261125);
export const RUNS = Number(process.env.FC_RUNS ?? 1000);
export const settings = { seed: SEED, numRuns: RUNS, endOnFailure: true };

export type Json = Record<string, unknown>;

/** What a user must never read: an internal failure or a value pasted as it is. */
export const UNCLEAR = /TypeError|Cannot read prop|is not a function|is not iterable|\[object Object\]|undefined|NaN/;

export function expectClearError(error: RecordedError, request: string): void {
	expect(typeof error.message).toBe('string');
	expect(error.message.trim()).not.toBe('');
	expect(error.message).not.toMatch(UNCLEAR);
	expect(error.message).toContain(request);
	expect(error.message).toMatch(/HTTP \d{3}/);
}

/** Odd values where numbers, lists or objects belong. */
export const oddValue = fc.oneof(
	fc.constantFrom(null, true, false, '', ' ', 'x', '3', 0, -1, 1.5, 2 ** 53, 1e308, [], {}, [null], [1, 'a']),
	fc.jsonValue({ maxDepth: 2 }),
);
