import { createHash, createHmac } from 'crypto';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = Record<string, unknown>;
export type Query = Record<string, string | string[]>;
export type Details = Record<string, string[]>;

/** An error answered with SPEC.md's envelope `{ error: { code, message, details, action? } }`. */
export class ApiError extends Error {
	constructor(
		public readonly status: number,
		public readonly code: string,
		message: string,
		public readonly details: Details = {},
		public readonly action?: JsonObject,
		public readonly headers: Record<string, string> = {},
		public readonly extra: JsonObject = {},
	) {
		super(message);
	}

	body(): JsonObject {
		const error: JsonObject = { code: this.code, message: this.message, details: this.details };
		if (this.action) error.action = this.action;
		Object.assign(error, this.extra);
		return { error };
	}
}

export function notFound(what: string): ApiError {
	return new ApiError(404, 'not_found', `${what} not found`);
}

export function invalid(details: Details, message?: string): ApiError {
	const first = Object.entries(details)[0];
	return new ApiError(
		422,
		'validation_failed',
		message ?? (first ? `${first[0]} ${first[1][0]}` : 'Validation failed'),
		details,
	);
}

export function forbidden(message: string, code = 'forbidden'): ApiError {
	return new ApiError(403, code, message);
}

/** FNV-1a 32-bit hash of a string. */
export function hash32(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

/** mulberry32: a small deterministic PRNG returning numbers in [0, 1). */
export function rng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function pick<T>(r: () => number, items: readonly T[]): T {
	return items[Math.floor(r() * items.length) % items.length];
}

export function int(r: () => number, min: number, max: number): number {
	return min + Math.floor(r() * (max - min + 1));
}

export function sha256Hex(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

export function hmacHex(secret: string, data: string | Buffer): string {
	return createHmac('sha256', secret).update(data).digest('hex');
}

export function iso(ms: number): string {
	return new Date(ms).toISOString();
}

export function isoDate(ms: number): string {
	return new Date(ms).toISOString().slice(0, 10);
}

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export function first(query: Query, name: string): string | undefined {
	const value = query[name];
	if (value === undefined) return undefined;
	return Array.isArray(value) ? value[0] : value;
}

export function parseIntStrict(value: string): number | undefined {
	if (!/^-?\d+$/.test(value.trim())) return undefined;
	return Number(value.trim());
}

export interface Paging {
	page: number;
	perPage: number;
}

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** page (from 1) and per_page (1..100, default 20); anything else is 422 validation_failed. */
export function parsePaging(query: Query): Paging {
	const details: Details = {};
	let page = 1;
	let perPage = DEFAULT_PER_PAGE;
	const rawPage = first(query, 'page');
	if (rawPage !== undefined) {
		const n = parseIntStrict(rawPage);
		if (n === undefined || n < 1) details.page = ['must be an integer greater than or equal to 1'];
		else page = n;
	}
	const rawPer = first(query, 'per_page');
	if (rawPer !== undefined) {
		const n = parseIntStrict(rawPer);
		if (n === undefined || n < 1) details.per_page = ['must be an integer greater than or equal to 1'];
		else if (n > MAX_PER_PAGE) details.per_page = [`must be less than or equal to ${MAX_PER_PAGE}`];
		else perPage = n;
	}
	if (Object.keys(details).length) throw invalid(details);
	return { page, perPage };
}

export function paginate<T, R>(items: T[], paging: Paging, map: (item: T) => R): { data: R[]; meta: JsonObject } {
	const start = (paging.page - 1) * paging.perPage;
	const slice = items.slice(start, start + paging.perPage);
	return {
		data: slice.map(map),
		meta: {
			page: paging.page,
			per_page: paging.perPage,
			total_count: items.length,
			total_pages: Math.ceil(items.length / paging.perPage),
		},
	};
}

export function isPlainObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Body must be a JSON object (or absent, which counts as {}). */
export function bodyObject(body: unknown): JsonObject {
	if (body === undefined || body === null) return {};
	if (!isPlainObject(body)) throw invalid({ body: ['must be a JSON object'] });
	return body;
}

export function parseTime(value: string): number | undefined {
	if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? undefined : ms;
}

export function parseDateOnly(value: string): number | undefined {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
	const ms = Date.parse(`${value}T00:00:00.000Z`);
	return Number.isNaN(ms) ? undefined : ms;
}

export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
