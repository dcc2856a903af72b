/** The in-memory state of one fake service instance. Rebuilt from the seed on reset. */
import { type Clock } from './clock';
import { KEY_PREFIX, PLANS, type Plan } from './catalog';
import type {
	Account,
	ApiKey,
	ConnectionLink,
	Delivery,
	DeviceRequest,
	EmailRecord,
	Feed,
	FeedPost,
	Person,
	SignInToken,
	SocialAccount,
	Source,
	User,
	Webhook,
} from './types';
import { hmacHex, iso, sha256Hex } from './util';

export interface DataStreamConfig {
	totalPosts?: number;
	pageSize?: number;
	/** A cursor older than this on the fake's clock is refused (`invalid_cursor`); none: cursors never expire. */
	cursorLifetimeMs?: number;
	/** The stream's oldest post opens every first page and is left out of the later ones (a pinned post). */
	pinned?: boolean;
}

/**
 * Where a flat Google profile carries its place ID (SPEC.md shows no profile fields, so both are legal): `place_id`
 * beside the profile's own `platform_id`, or as the `platform_id` itself, the place's name in `name`.
 */
export type PlaceIdField = 'place_id' | 'platform_id';

export interface DataFailure {
	platform: string;
	term?: string;
	errorCode: string;
	message: string;
	remaining: number;
}

export interface AddedDataPost {
	seq: number;
	createdAt: number;
}

/** A key string derived from a label: stable across runs and seeds. */
export function fixedKey(label: string): string {
	return KEY_PREFIX + sha256Hex(`social-aggregator-fake-key:${label}`).slice(0, 32);
}

export class State {
	accounts = new Map<number, Account>();

	persons = new Map<string, Person>();

	users = new Map<number, User>();

	/** By key string. */
	keys = new Map<string, ApiKey>();

	feeds = new Map<number, Feed>();

	sources = new Map<number, Source>();

	posts = new Map<number, FeedPost>();

	/** Per feed, newest first (externalCreatedAt desc, id desc). */
	feedPosts = new Map<number, FeedPost[]>();

	/** Per source: the last content sequence number used. */
	sourceSeq = new Map<number, number>();

	socialAccounts = new Map<number, SocialAccount>();

	connectionLinks = new Map<string, ConnectionLink>();

	webhooks = new Map<number, Webhook>();

	deliveries = new Map<string, Delivery>();

	signInTokens: SignInToken[] = [];

	deviceRequests = new Map<string, DeviceRequest>();

	emails: EmailRecord[] = [];

	/** Data API: per-platform / per-term configuration and failures, posts added later. */
	dataConfig = new Map<string, DataStreamConfig>();

	dataFailures: DataFailure[] = [];

	dataAdded = new Map<string, AddedDataPost[]>();

	/** Where the flat profile shape (`spec`) gives a Google place ID (dataApi.ts, `placeIds`). */
	placeIdField: PlaceIdField = 'place_id';

	credits = { total: 0, byPlatform: {} as Record<string, number>, requests: 0 };

	private counters = new Map<string, number>();

	constructor(
		readonly clock: Clock,
		readonly seed: string,
	) {}

	now(): number {
		return this.clock.now();
	}

	nowIso(): string {
		return iso(this.clock.now());
	}

	nextId(kind: string, start = 1): number {
		const n = (this.counters.get(kind) ?? start - 1) + 1;
		this.counters.set(kind, n);
		return n;
	}

	/** A deterministic secret-looking token (hex), unique per kind and call. */
	token(kind: string, length = 32): string {
		const n = this.nextId(`token:${kind}`);
		return hmacHex(`seed:${this.seed}`, `${kind}:${n}`).slice(0, length);
	}

	plan(account: Account): Plan {
		return PLANS[account.plan];
	}

	account(id: number): Account {
		const account = this.accounts.get(id);
		if (!account) throw new Error(`no account ${id}`);
		return account;
	}

	feedsOf(accountId: number): Feed[] {
		return [...this.feeds.values()].filter((f) => f.accountId === accountId).sort((a, b) => a.id - b.id);
	}

	sourcesOf(feedId: number): Source[] {
		return [...this.sources.values()].filter((s) => s.feedId === feedId).sort((a, b) => a.id - b.id);
	}

	sourceCount(accountId: number): number {
		const feedIds = new Set(this.feedsOf(accountId).map((f) => f.id));
		let n = 0;
		for (const s of this.sources.values()) if (feedIds.has(s.feedId)) n++;
		return n;
	}

	usersOf(accountId: number): User[] {
		return [...this.users.values()].filter((u) => u.accountId === accountId).sort((a, b) => a.id - b.id);
	}

	userByEmail(accountId: number, email: string): User | undefined {
		const e = email.toLowerCase();
		return this.usersOf(accountId).find((u) => u.email.toLowerCase() === e);
	}

	membershipsOf(email: string): User[] {
		const e = email.toLowerCase();
		return [...this.users.values()].filter((u) => u.email.toLowerCase() === e);
	}

	ensurePerson(email: string, confirmed: boolean): Person {
		const e = email.toLowerCase();
		let person = this.persons.get(e);
		if (!person) {
			person = { email: e, confirmed, createdAt: this.now() };
			this.persons.set(e, person);
		}
		return person;
	}

	createAccount(name: string, plan: Account['plan'], ownerEmail: string, confirmed = true, extra: Partial<Account> = {}): { account: Account; owner: User } {
		const id = this.nextId('account');
		const now = this.now();
		const userId = this.nextId('user');
		const account: Account = {
			id,
			name,
			plan,
			ownerUserId: userId,
			signInTokensEnabled: true,
			whiteLabelHost: null,
			creditBalance: null,
			createdAt: now,
			...extra,
		};
		this.accounts.set(id, account);
		this.ensurePerson(ownerEmail, confirmed);
		const owner: User = {
			id: userId,
			accountId: id,
			email: ownerEmail.toLowerCase(),
			role: 'owner',
			invitationPending: false,
			invitationAccepted: true,
			feedIds: [],
			createdAt: now,
		};
		this.users.set(userId, owner);
		return { account, owner };
	}

	addKey(key: ApiKey): ApiKey {
		this.keys.set(key.key, key);
		return key;
	}

	findKey(keyOrId: string): ApiKey | undefined {
		const direct = this.keys.get(keyOrId);
		if (direct) return direct;
		for (const k of this.keys.values()) if (k.id === keyOrId) return k;
		return undefined;
	}

	/** Insert posts into a feed keeping newest-first order. */
	insertPosts(feedId: number, posts: FeedPost[]): void {
		let list = this.feedPosts.get(feedId);
		if (!list) {
			list = [];
			this.feedPosts.set(feedId, list);
		}
		for (const p of posts) {
			this.posts.set(p.id, p);
			list.push(p);
		}
		list.sort((a, b) => b.externalCreatedAt - a.externalCreatedAt || b.id - a.id);
	}

	visiblePosts(feedId: number): FeedPost[] {
		return (this.feedPosts.get(feedId) ?? []).filter((p) => !p.deleted);
	}

	email(to: string, kind: EmailRecord['kind'], accountId: number | null, feedId: number | null = null): void {
		this.emails.push({ to, kind, accountId, feedId, at: this.nowIso() });
	}
}
