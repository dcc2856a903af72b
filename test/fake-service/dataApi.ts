/** The Data API: GET /data/posts (per-platform pages with signed cursors) and GET /data/profiles. */
import { timingSafeEqual } from 'crypto';
import { DATA_PLATFORM_BY_NAME, DATA_PLATFORMS, DATA_TERM_TYPES, type DataPlatform, type TermType } from './catalog';
import { generatePost, makePoster, stripPrefix } from './content';
import { requireConfirmedForData } from './keys';
import type { Ctx } from './router';
import type { Service } from './service';
import type { DataStreamConfig, State } from './state';
import { ApiError, first, hash32, hmacHex, invalid, iso, MINUTE, rng } from './util';

export interface PlatformStatus {
	platform: string;
	success: boolean;
	count?: number;
	next_cursor?: string | null;
	has_more?: boolean;
	error_code?: string;
	message?: string;
}

const ADDED_SEQ_BASE = 1_000_000;

/** Term type when term_type is omitted: '#' → hashtag; '@' or no prefix → username. */
export function detectTermType(term: string): TermType {
	return term.startsWith('#') ? 'hashtag' : 'username';
}

export function streamKey(platform: string, termType: string, term: string): string {
	return `${platform}|${termType}|${stripPrefix(term).toLowerCase()}`;
}

function configFor(state: State, platform: DataPlatform, termType: string, term: string): { pageSize: number; total: number } & DataStreamConfig {
	const bare = stripPrefix(term).toLowerCase();
	const cfg: DataStreamConfig = {
		...(state.dataConfig.get(platform.name) ?? {}),
		...(state.dataConfig.get(`${platform.name}|*|${bare}`) ?? {}),
		...(state.dataConfig.get(`${platform.name}|${termType}|${bare}`) ?? {}),
	};
	const pageSize = cfg.pageSize ?? platform.pageSize;
	return { ...cfg, pageSize, total: cfg.totalPosts ?? pageSize * 2 + 7 };
}

/** Why a term is refused for a platform and term type (invalid_term), or null. */
export function termProblem(termType: string, term: string): string | null {
	const bare = stripPrefix(term.trim());
	if (!bare) return 'the term is empty';
	if (bare.length > 100) return 'the term is longer than 100 characters';
	switch (termType) {
		case 'reviews':
			return /^ChIJ[A-Za-z0-9_-]{8,}$/.test(bare) ? null : 'reviews need a Google place id from GET /data/profiles (it starts with ChIJ)';
		case 'hashtag':
			return /^[\p{L}\p{N}_]+$/u.test(bare) ? null : 'a hashtag has letters, digits and underscores only';
		case 'username':
		case 'channel':
			return /^[\p{L}\p{N}_.-]+$/u.test(bare) ? null : 'a username or channel has no spaces or special characters';
		default:
			return null;
	}
}

// --- cursors -------------------------------------------------------------

interface CursorPayload {
	v: 1;
	p: string;
	t: string;
	q: string;
	b: number;
	/** When it was issued, on the fake's clock: only in a stream with a cursorLifetimeMs (the others stay deterministic). */
	i?: number;
}

function cursorSecret(svc: Service): string {
	return `cursor-secret:${svc.seed}`;
}

export function encodeCursor(svc: Service, payload: Omit<CursorPayload, 'v'>): string {
	const body = Buffer.from(JSON.stringify({ v: 1, ...payload })).toString('base64url');
	const mac = Buffer.from(hmacHex(cursorSecret(svc), body), 'hex').subarray(0, 16).toString('base64url');
	return `${body}.${mac}`;
}

export type DecodedCursor = { ok: true; payload: CursorPayload } | { ok: false; platform: string | null; reason: string };

export function decodeCursor(svc: Service, cursor: string): DecodedCursor {
	const parts = cursor.split('.');
	let payload: Partial<CursorPayload> | null = null;
	try {
		payload = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Partial<CursorPayload>;
	} catch {
		payload = null;
	}
	const platform = payload && typeof payload.p === 'string' ? payload.p : null;
	if (parts.length !== 2 || !payload) return { ok: false, platform, reason: 'the cursor is malformed' };
	const expected = Buffer.from(hmacHex(cursorSecret(svc), parts[0]), 'hex').subarray(0, 16);
	const given = Buffer.from(parts[1], 'base64url');
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, platform, reason: 'the cursor signature does not match' };
	if (payload.v !== 1 || typeof payload.p !== 'string' || typeof payload.t !== 'string' || typeof payload.q !== 'string' || typeof payload.b !== 'number' || (payload.i !== undefined && typeof payload.i !== 'number')) {
		return { ok: false, platform, reason: 'the cursor is malformed' };
	}
	return { ok: true, payload: payload as CursorPayload };
}

// --- posts -----------------------------------------------------------------

interface StreamItem {
	seq: number;
	createdAt: number;
}

function streamItems(svc: Service, platform: DataPlatform, termType: string, term: string): { items: StreamItem[]; pageSize: number; pinned: boolean } {
	const state = svc.state;
	const { pageSize, total, pinned } = configFor(state, platform, termType, term);
	const key = streamKey(platform.name, termType, term);
	const h = hash32(`${svc.seed}|${key}`);
	const interval = (15 + (h % 75)) * MINUTE;
	const anchor = svc.clock.startMs - (5 + (h % 30)) * MINUTE;
	const added = (state.dataAdded.get(key) ?? []).slice().sort((a, b) => b.seq - a.seq);
	const items: StreamItem[] = [...added];
	for (let seq = total; seq >= 1; seq--) items.push({ seq, createdAt: anchor - (total - seq) * interval });
	return { items, pageSize, pinned: pinned === true };
}

/**
 * One page of a stream after the cursor's position (the newest for a first page), whether more follow, and the
 * position the next page starts below. A pinned stream's oldest item opens every first page and no later one.
 */
function streamPage(stream: { items: StreamItem[]; pageSize: number; pinned: boolean }, cursorBefore?: number): { page: StreamItem[]; more: boolean; next: number } {
	const { items, pageSize, pinned } = stream;
	const before = cursorBefore ?? Number.MAX_SAFE_INTEGER;
	const pin = pinned && items.length > 1 ? items[items.length - 1] : undefined;
	const opensWithPin = pin !== undefined && cursorBefore === undefined;
	const rest = items.filter((it) => it.seq < before && it !== pin);
	const others = rest.slice(0, opensWithPin ? pageSize - 1 : pageSize);
	const page = opensWithPin && pin ? [pin, ...others] : others;
	const next = others.length > 0 ? others[others.length - 1].seq : before;
	return { page, more: rest.length > others.length, next };
}

/** Whether a cursor issued at `issuedAt` is past the stream's cursorLifetimeMs on the fake's clock. */
function cursorExpired(svc: Service, platform: DataPlatform, termType: string, term: string, issuedAt: number | undefined): boolean {
	const { cursorLifetimeMs } = configFor(svc.state, platform, termType, term);
	return cursorLifetimeMs !== undefined && issuedAt !== undefined && svc.clock.now() - issuedAt > cursorLifetimeMs;
}

export function dataPostJson(svc: Service, platform: DataPlatform, termType: string, term: string, item: StreamItem): Record<string, unknown> {
	const g = generatePost(platform.name, termType, term, item.seq, item.createdAt, svc.seed);
	const post: Record<string, unknown> = {
		platform: platform.name,
		platform_id: g.platformId,
		url: g.url,
		post_created_at: iso(item.createdAt),
		message: platform.name === 'Google' && item.seq % 6 === 0 ? null : g.message,
	};
	for (const field of platform.engagement) post[field] = g.counts[field];
	post.tagged_users = g.taggedUsers;
	post.poster = g.poster;
	post.media = g.media;
	post.referenced_post = g.referencedPost;
	post.reshared_by = g.resharedBy;
	return post;
}

function takeFailure(state: State, platform: string, term: string): { errorCode: string; message: string } | null {
	const bare = stripPrefix(term).toLowerCase();
	for (const f of state.dataFailures) {
		if (f.remaining <= 0 || f.platform !== platform) continue;
		if (f.term !== undefined && stripPrefix(f.term).toLowerCase() !== bare) continue;
		f.remaining--;
		return { errorCode: f.errorCode, message: f.message };
	}
	return null;
}

function spend(ctx: Ctx, platform: DataPlatform): void {
	const credits = ctx.state.credits;
	credits.total += platform.credits;
	credits.byPlatform[platform.name] = (credits.byPlatform[platform.name] ?? 0) + platform.credits;
	ctx.credits = (ctx.credits ?? 0) + platform.credits;
}

function checkCredits(ctx: Ctx, platforms: DataPlatform[]): void {
	const balance = ctx.auth?.account.creditBalance;
	if (balance === null || balance === undefined) return;
	const needed = platforms.reduce((a, p) => a + p.credits, 0);
	if (balance < needed) {
		throw new ApiError(402, 'insufficient_credits', `This request needs ${needed} credits; ${balance} left`, {}, { type: 'buy_credits', checkout_url: `${ctx.svc.origin}/web/upgrade?credits=1` });
	}
}

function charge(ctx: Ctx, platforms: DataPlatform[]): void {
	for (const p of platforms) spend(ctx, p);
	ctx.state.credits.requests++;
	const account = ctx.auth?.account;
	if (account && account.creditBalance !== null) account.creditBalance -= platforms.reduce((a, p) => a + p.credits, 0);
}

function splitList(value: string | undefined): string[] {
	return [...new Set((value ?? '').split(',').map((s) => s.trim()).filter(Boolean))];
}

function unknownPlatform(name: string): PlatformStatus {
	return {
		platform: name,
		success: false,
		error_code: 'unknown_platform',
		message: `Unknown platform "${name}". Supported: ${DATA_PLATFORMS.map((p) => p.name).join(', ')}`,
	};
}

/** A Data API platform by its request name; live, `X` names Twitter too (the service's own node sends it). */
function dataPlatformNamed(svc: Service, name: string): DataPlatform | undefined {
	if (name === 'X' && svc.shapes === 'live') return DATA_PLATFORM_BY_NAME.get('Twitter');
	return DATA_PLATFORM_BY_NAME.get(name);
}

function dataPosts(ctx: Ctx): Record<string, unknown> {
	const svc = ctx.svc;
	const term = first(ctx.query, 'term');
	const platformsRaw = first(ctx.query, 'platforms');
	const termTypeRaw = first(ctx.query, 'term_type');
	const details: Record<string, string[]> = {};
	if (!term || !term.trim()) details.term = ['is required'];
	const names = splitList(platformsRaw);
	if (!names.length) details.platforms = ['is required (comma-separated platform names)'];
	if (termTypeRaw !== undefined && termTypeRaw !== '' && !(DATA_TERM_TYPES as string[]).includes(termTypeRaw)) {
		details.term_type = [`must be one of ${DATA_TERM_TYPES.join(', ')}`];
	}
	if (Object.keys(details).length || !term) throw invalid(details);
	const termType = termTypeRaw ? (termTypeRaw as TermType) : detectTermType(term.trim());
	const cleanTerm = term.trim();

	// Rule 5: match cursors to the platforms they encode.
	const cursorOf = new Map<string, { before: number; issuedAt?: number } | { error: string }>();
	const stray: PlatformStatus[] = [];
	const cursors = (first(ctx.query, 'cursor') ?? '').split(',').map((c) => c.trim());
	cursors.forEach((c, i) => {
		if (!c) return;
		const d = decodeCursor(svc, c);
		if (d.ok) {
			const p = d.payload;
			if (!names.includes(p.p)) return; // a cursor for a platform not requested is ignored
			if (cursorOf.has(p.p)) cursorOf.set(p.p, { error: `more than one cursor for ${p.p}` });
			else if (p.t !== termType || p.q !== stripPrefix(cleanTerm).toLowerCase()) cursorOf.set(p.p, { error: 'the cursor belongs to another term or term type' });
			else cursorOf.set(p.p, { before: p.b, issuedAt: p.i });
			return;
		}
		let target = d.platform && names.includes(d.platform) ? d.platform : null;
		if (!target && i < names.length && !cursorOf.has(names[i])) target = names[i];
		if (target) cursorOf.set(target, { error: d.reason });
		else stray.push({ platform: d.platform ?? 'unknown', success: false, error_code: 'invalid_cursor', message: d.reason });
	});

	const entries: PlatformStatus[] = [];
	const data: Record<string, unknown>[] = [];
	const pages: Array<{ platform: DataPlatform; posts: Record<string, unknown>[]; entry: PlatformStatus }> = [];
	for (const name of names) {
		const platform = dataPlatformNamed(svc, name);
		if (!platform) {
			entries.push(unknownPlatform(name));
			continue;
		}
		if (!platform.termTypes.includes(termType)) {
			entries.push({
				platform: name,
				success: false,
				error_code: 'invalid_term_type',
				message: termTypeRaw
					? `${name} does not support term_type ${termType} (supported: ${platform.termTypes.join(', ')})`
					: `${name} needs an explicit term_type (one of ${platform.termTypes.join(', ')}); "${cleanTerm}" was read as ${termType}`,
			});
			continue;
		}
		const problem = termProblem(termType, cleanTerm);
		if (problem) {
			entries.push({ platform: name, success: false, error_code: 'invalid_term', message: `${name}: ${problem}` });
			continue;
		}
		const c = cursorOf.get(name);
		const cursorError = c && 'error' in c ? c.error : c && cursorExpired(svc, platform, termType, cleanTerm, c.issuedAt) ? 'the cursor has expired' : undefined;
		if (cursorError) {
			entries.push({ platform: name, success: false, error_code: 'invalid_cursor', message: `${name}: ${cursorError}` });
			continue;
		}
		const failure = takeFailure(ctx.state, name, cleanTerm);
		if (failure) {
			entries.push({ platform: name, success: false, error_code: failure.errorCode, message: failure.message });
			continue;
		}
		const stream = streamItems(svc, platform, termType, cleanTerm);
		const { page, more: deeper, next: b } = streamPage(stream, c && 'before' in c ? c.before : undefined);
		const more = platform.paginated && deeper;
		const issued = configFor(svc.state, platform, termType, cleanTerm).cursorLifetimeMs === undefined ? {} : { i: svc.clock.now() };
		const next = more ? encodeCursor(svc, { p: name, t: termType, q: stripPrefix(cleanTerm).toLowerCase(), b, ...issued }) : null;
		// Live, a platform with nothing to give answers success without a cursor; SPEC.md's rule 3 gives every success one.
		const entry: PlatformStatus =
			page.length === 0 && svc.shapes === 'live'
				? { platform: name, success: true, count: 0 }
				: { platform: name, success: true, count: page.length, next_cursor: next, has_more: next !== null };
		entries.push(entry);
		// Posts carry the platform's name as it was asked for (`X` or `Twitter`).
		pages.push({ platform, posts: page.map((it) => ({ ...dataPostJson(svc, platform, termType, cleanTerm, it), platform: name })), entry });
	}
	checkCredits(ctx, pages.map((p) => p.platform));
	charge(ctx, pages.map((p) => p.platform));
	for (const p of pages) data.push(...p.posts);
	return { data, meta: { total_results: data.length, platforms: [...entries, ...stray] } };
}

function placeId(name: string): string {
	const h1 = hash32(`place:${name.toLowerCase()}`).toString(36);
	const h2 = hash32(`place2:${name.toLowerCase()}`).toString(36);
	return `ChIJ${h1}${h2}`.replace(/[^A-Za-z0-9_-]/g, '').padEnd(20, 'Q');
}

/**
 * The spec shape (CONTRIBUTING.md's earlier choice, SPEC.md shows none): one record per platform and handle, the
 * profile's fields at the top. A Google place's name is in `name`, its place ID in `place_id` or, as the state
 * says (`placeIds`), in `platform_id`.
 */
function flatProfile(svc: Service, state: State, name: string, term: string): Record<string, unknown> {
	const r = rng(hash32(`${svc.seed}|profile|${name}|${term.toLowerCase()}`));
	const handle = stripPrefix(term).toLowerCase().replace(/[^a-z0-9_.-]+/g, '');
	const poster = makePoster(name, handle, r);
	const google = name === 'Google';
	const profile: Record<string, unknown> = {
		platform: name,
		term,
		platform_id: google && state.placeIdField === 'platform_id' ? placeId(term) : poster.platform_id,
		name: google ? term : poster.name,
		display_name: google ? term : poster.display_name,
		url: google ? `https://maps.google.com/?cid=${hash32(term)}` : poster.url,
		image: poster.image,
	};
	if (google && state.placeIdField === 'place_id') profile.place_id = placeId(term);
	return profile;
}

/** Platforms that report no follower count for a profile (the live answer's metrics are nullable). */
const NO_FOLLOWERS = new Set(['Google', 'Giphy', 'Flickr']);

/**
 * The live shape (SERVICE-NOTES.md): one group per platform and handle, `{ platform, term, exact_match,
 * profiles: [{ platform, handle, url, metrics }] }`. A handle containing `zz` finds no exact profile, only two
 * similar ones; one containing `nobody` finds none. On Google the handle is the place ID.
 */
function profileGroup(svc: Service, name: string, term: string): Record<string, unknown> {
	const r = rng(hash32(`${svc.seed}|profile|${name}|${term.toLowerCase()}`));
	const handle = stripPrefix(term).toLowerCase().replace(/[^a-z0-9_.-]+/g, '');
	const profile = (h: string) => {
		const poster = makePoster(name, h, r);
		const google = name === 'Google';
		return {
			platform: name,
			handle: google ? placeId(h === handle ? term : h) : poster.name,
			url: google ? `https://maps.google.com/?cid=${hash32(h === handle ? term : h)}` : poster.url,
			metrics: {
				follower_count: NO_FOLLOWERS.has(name) ? null : Math.floor(r() * 2_000_000),
				post_count: Math.floor(r() * 5_000),
			},
		};
	};
	if (handle.includes('nobody')) return { platform: name, term, exact_match: false, profiles: [] };
	if (handle.includes('zz')) return { platform: name, term, exact_match: false, profiles: [profile(`${handle}_official`), profile(`the${handle}`)] };
	return { platform: name, term, exact_match: true, profiles: [profile(handle)] };
}

function dataProfiles(ctx: Ctx): Record<string, unknown> {
	const svc = ctx.svc;
	const terms = splitList(first(ctx.query, 'term'));
	const names = splitList(first(ctx.query, 'platforms'));
	const details: Record<string, string[]> = {};
	if (!terms.length) details.term = ['is required'];
	else if (terms.length > 5) details.term = ['takes at most 5 comma-separated handles'];
	if (!names.length) details.platforms = ['is required (comma-separated platform names)'];
	if (Object.keys(details).length) throw invalid(details);
	const entries: PlatformStatus[] = [];
	const ok: DataPlatform[] = [];
	const data: Record<string, unknown>[] = [];
	for (const name of names) {
		const platform = dataPlatformNamed(svc, name);
		if (!platform) {
			entries.push(unknownPlatform(name));
			continue;
		}
		const failure = takeFailure(ctx.state, name, terms[0]);
		if (failure) {
			entries.push({ platform: name, success: false, error_code: failure.errorCode, message: failure.message });
			continue;
		}
		for (const term of terms) data.push(svc.shapes === 'spec' ? flatProfile(svc, ctx.state, name, term) : profileGroup(svc, name, term));
		ok.push(platform);
		entries.push({ platform: name, success: true, count: terms.length, next_cursor: null, has_more: false });
	}
	checkCredits(ctx, ok);
	charge(ctx, ok);
	return { data, meta: { total_results: data.length, platforms: entries } };
}

// --- controls ------------------------------------------------------------

export interface DataConfigureOptions {
	/** Only this term (prefix ignored); default every term. */
	term?: string;
	/** With term: only this term type. */
	termType?: string;
	totalPosts?: number;
	/** Shortcut: totalPosts = pages × page size (the last page full). */
	pages?: number;
	pageSize?: number;
	/** Cursors older than this on the fake's clock are refused with `invalid_cursor` ("the cursor has expired"). */
	cursorLifetimeMs?: number;
	/** The stream's oldest post opens every first page (a pinned post on a profile's timeline) and no later page. */
	pinned?: boolean;
}

export function configureData(state: State, platform: string, options: DataConfigureOptions): void {
	const info = DATA_PLATFORM_BY_NAME.get(platform);
	if (!info) throw new Error(`unknown Data API platform ${platform}`);
	const key = options.term === undefined ? platform : `${platform}|${options.termType ?? '*'}|${stripPrefix(options.term).toLowerCase()}`;
	const prev = state.dataConfig.get(key) ?? {};
	const pageSize = options.pageSize ?? prev.pageSize ?? info.pageSize;
	const cfg: DataStreamConfig = { ...prev };
	if (options.pageSize !== undefined) cfg.pageSize = options.pageSize;
	if (options.pages !== undefined) cfg.totalPosts = options.pages * pageSize;
	if (options.totalPosts !== undefined) cfg.totalPosts = options.totalPosts;
	if (options.cursorLifetimeMs !== undefined) cfg.cursorLifetimeMs = options.cursorLifetimeMs;
	if (options.pinned !== undefined) cfg.pinned = options.pinned;
	state.dataConfig.set(key, cfg);
}

/** Where flat Google profiles (the `spec` shape) carry their place ID from now on, until a reset or `data.clear()`. */
export function placeIds(state: State, field: string): void {
	if (field !== 'place_id' && field !== 'platform_id') throw new Error(`a place ID is in "place_id" or "platform_id", not ${JSON.stringify(field)}`);
	state.placeIdField = field;
}

export interface DataFailOptions {
	/** e.g. 'fetch_timeout', 'platform_error', or any code. */
	errorCode: string;
	/** How many requests fail (default: always). */
	times?: number;
	term?: string;
	message?: string;
}

export function failData(state: State, platform: string, options: DataFailOptions): void {
	state.dataFailures.push({
		platform,
		term: options.term,
		errorCode: options.errorCode,
		message: options.message ?? (options.errorCode === 'fetch_timeout' ? `${platform} did not answer in time` : `${platform} returned an error`),
		remaining: options.times ?? Infinity,
	});
}

/** New posts (newest first on the next first page) for a platform and term. */
export function addDataPosts(svc: Service, platform: string, term: string, count: number, termType?: string): Record<string, unknown>[] {
	const info = DATA_PLATFORM_BY_NAME.get(platform);
	if (!info) throw new Error(`unknown Data API platform ${platform}`);
	const tt = termType ?? detectTermType(term);
	const key = streamKey(platform, tt, term);
	const list = svc.state.dataAdded.get(key) ?? [];
	svc.state.dataAdded.set(key, list);
	const out: Record<string, unknown>[] = [];
	for (let i = 0; i < count; i++) {
		const last = list[list.length - 1];
		const item = { seq: last ? last.seq + 1 : ADDED_SEQ_BASE + 1, createdAt: Math.max(svc.clock.now(), (last?.createdAt ?? 0) + 1000) };
		list.push(item);
		out.unshift(dataPostJson(svc, info, tt, term, item));
	}
	return out;
}

export function registerDataApi(svc: Service): void {
	svc.api.get('/data/posts', (ctx) => {
		requireConfirmedForData(ctx);
		return { status: 200, body: dataPosts(ctx) };
	});
	svc.api.get('/data/profiles', (ctx) => {
		requireConfirmedForData(ctx);
		return { status: 200, body: dataProfiles(ctx) };
	});
}
