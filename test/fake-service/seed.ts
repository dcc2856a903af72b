/**
 * The seeded state. Keys and ids are fixed (they do not depend on the seed option);
 * `SEEDED` lists them for tests.
 */
import { createFeed, createSource } from './feeds';
import { createPosts } from './posts';
import type { Service } from './service';
import { addSocialAccount } from './social';
import { fixedKey, State } from './state';
import type { ApiKey, Role } from './types';
import { DAY, HOUR, MINUTE } from './util';

export const SEEDED = {
	accounts: {
		/** Team plan: can invite users; sign-in tokens enabled; no white-label host. */
		acme: 1,
		/** Free plan: 1 feed and 3 sources (both limits reached); cannot invite; sign-in tokens disabled. */
		solo: 2,
		/** Enterprise plan with white-label host social.agency.example. */
		agency: 3,
		/** Pro plan with a feed: cannot invite. */
		busy: 4,
		/** Free plan, no feeds. */
		freeNoFeeds: 5,
		/** Free plan, owner email not confirmed. */
		unconfirmed: 6,
	},
	users: {
		acmeOwner: 1,
		acmeManager: 2,
		/** Collaborator assigned to feed 1 (brandMentions). */
		acmeCollaborator: 3,
		/** Collaborator with no feeds. */
		acmeCollaboratorNoFeeds: 4,
		/** A manager whose admin invitation is pending. */
		acmePendingManager: 5,
		soloOwner: 6,
		agencyOwner: 7,
		/** Collaborator of the enterprise account, assigned to feed 5. */
		agencyCollaborator: 8,
		busyOwner: 9,
		freeNoFeedsOwner: 10,
		unconfirmedOwner: 11,
	},
	emails: {
		acmeOwner: 'owner@acme.example',
		acmeManager: 'manager@acme.example',
		acmeCollaborator: 'collaborator@acme.example',
		acmeCollaboratorNoFeeds: 'collaborator2@acme.example',
		acmePendingManager: 'pending.manager@acme.example',
		soloOwner: 'solo@solo.example',
		agencyOwner: 'owner@agency.example',
		agencyCollaborator: 'client@agency.example',
		busyOwner: 'pro@busy.example',
		freeNoFeedsOwner: 'free@nofeeds.example',
		unconfirmedOwner: 'unconfirmed@new.example',
	},
	feeds: {
		/** Account acme; 5 sources (Twitter, Instagram, YouTube, Facebook page, Reddit); 120 posts, some moderated/rejected. */
		brandMentions: 1,
		/** Account acme; 4 sources (TikTok, LinkedIn, Bluesky, Pinterest); 60 posts. */
		productLaunch: 2,
		/** Account acme; Google reviews and RSS; 24 posts. */
		reviews: 3,
		solo: 4,
		agencyClient: 5,
		busy: 6,
	},
	sources: {
		twitterAcme: 1,
		instagramAcme: 2,
		youtubeAcme: 3,
		facebookPage: 4,
		redditAcme: 5,
		tiktokLaunch: 6,
		linkedinAcme: 7,
		blueskyAcme: 8,
		pinterestAcme: 9,
		googleReviews: 10,
		rssBlog: 11,
	},
	socialAccounts: {
		/** acme, facebook, expires in 60 days. */
		acmeFacebook: 1,
		/** acme, instagram, expires in 3 days (already inside the 5-day window at start: no event). */
		acmeInstagram: 2,
		agencyFacebook: 3,
	},
	webhooks: {
		/** acme, https://hooks.acme.example/social, post.created, active (a .example sink: always 200). */
		acmeActive: 1,
		/** acme, every event, paused. */
		acmePaused: 2,
	},
	/** Post ids of feed 1 are 1001..1120, feed 2 1121..1180, feed 3 1181..1204. */
	firstPostId: 1001,
	googlePlaceId: 'ChIJacmeCoffeeBerlin01',
} as const;

export const KEY_LABELS = {
	owner: 'acme-owner',
	manager: 'acme-manager',
	collaborator: 'acme-collaborator',
	collaboratorNoFeeds: 'acme-collaborator-nofeeds',
	/** Free plan: cannot invite, sign-in tokens disabled, feed and source limits reached. */
	freeOwner: 'solo-owner',
	/** Enterprise with white-label host. */
	enterpriseOwner: 'agency-owner',
	/** Pro plan: cannot invite. */
	proOwner: 'busy-owner',
	freeNoFeedsOwner: 'free-nofeeds-owner',
	/** Temporary key of acme's owner, issued 13 hours before the clock start: expired. */
	expired: 'acme-owner-expired',
	/** Temporary key (Mode A) of an unconfirmed email, issued at the clock start: valid 2 hours, 60/h. */
	unconfirmed: 'unconfirmed-temp',
} as const;

export type SeededKeyName = keyof typeof KEY_LABELS;

/** The seeded API keys (fixed strings, all with the sag_live_ prefix). */
export const KEYS: Record<SeededKeyName, string> = Object.fromEntries(
	Object.entries(KEY_LABELS).map(([name, label]) => [name, fixedKey(label)]),
) as Record<SeededKeyName, string>;

/** Secrets of the seeded webhooks (tests need them; the API shows a secret only at creation). */
export const SEEDED_WEBHOOK_SECRETS: Record<number, string> = {
	1: 'whsec_seeded_acme_active_0000000000000000',
	2: 'whsec_seeded_acme_paused_0000000000000000',
};

export function buildSeed(svc: Service): State {
	const state = new State(svc.clock, svc.seed);
	const now = svc.clock.startMs;
	const key = (name: SeededKeyName, userId: number, role: Role, extra: Partial<ApiKey> = {}): void => {
		const user = state.users.get(userId);
		if (!user || user.role !== role) throw new Error(`seed: user ${userId} is not ${role}`);
		state.addKey({ id: `key_${KEY_LABELS[name]}`, key: KEYS[name], accountId: user.accountId, userId, type: 'permanent', confirmed: true, issuedAt: now - 30 * DAY, expiresAt: null, ...extra });
	};
	const member = (accountId: number, email: string, role: Role, feedIds: number[], pending = false) => {
		const id = state.nextId('user');
		state.users.set(id, { id, accountId, email, role, invitationPending: pending, invitationAccepted: !pending, feedIds, createdAt: now - 20 * DAY });
		state.ensurePerson(email, !pending);
		return id;
	};
	const E = SEEDED.emails;

	// Accounts and users (ids in SEEDED order).
	const acme = state.createAccount('Acme Media', 'team', E.acmeOwner, true).account;
	member(acme.id, E.acmeManager, 'manager', []);
	member(acme.id, E.acmeCollaborator, 'collaborator', []);
	member(acme.id, E.acmeCollaboratorNoFeeds, 'collaborator', []);
	member(acme.id, E.acmePendingManager, 'manager', [], true);
	const solo = state.createAccount('Solo Studio', 'free', E.soloOwner, true, { signInTokensEnabled: false }).account;
	const agency = state.createAccount('Agency Co', 'enterprise', E.agencyOwner, true, { whiteLabelHost: 'social.agency.example' }).account;
	member(agency.id, E.agencyCollaborator, 'collaborator', []);
	const busy = state.createAccount('Busy Pro', 'pro', E.busyOwner, true).account;
	state.createAccount('Free, no feeds', 'free', E.freeNoFeedsOwner, true);
	state.createAccount("unconfirmed's account", 'free', E.unconfirmedOwner, false);
	for (const a of state.accounts.values()) a.createdAt = now - 90 * DAY;

	// Feeds, sources and posts.
	const spread = (count: number) => ({ newestAt: now - 10 * MINUTE, spacingMs: Math.floor((45 * DAY) / count) });
	const f1 = createFeed(state, acme.id, 'Brand mentions', 60);
	const f1s = [
		createSource(state, f1, 'Twitter', '#acme', 'hashtag'),
		createSource(state, f1, 'Instagram', 'acme', 'hashtag'),
		createSource(state, f1, 'YouTube', 'AcmeTV', 'channel'),
		createSource(state, f1, 'Facebook', 'AcmeOfficial', 'page'),
		createSource(state, f1, 'Reddit', 'acme', 'mentions'),
	];
	const f2 = createFeed(state, acme.id, 'Product launch', 30);
	const f2s = [
		createSource(state, f2, 'TikTok', '#acmelaunch', 'hashtag'),
		createSource(state, f2, 'LinkedIn', 'acme-corp', 'username'),
		createSource(state, f2, 'Bluesky', 'acme.bsky.social', 'username'),
		createSource(state, f2, 'Pinterest', '#acmestyle', 'hashtag'),
	];
	const f3 = createFeed(state, acme.id, 'Reviews and blog', null);
	const f3s = [
		createSource(state, f3, 'Google', SEEDED.googlePlaceId, 'reviews', 'Acme Coffee Berlin'),
		createSource(state, f3, 'RSS', 'https://blog.acme.example/feed.xml', 'url', 'Acme blog'),
	];
	createPosts(state, f1, f1s, 120, { ...spread(120), mix: 'mixed' });
	createPosts(state, f2, f2s, 60, spread(60));
	createPosts(state, f3, f3s, 24, spread(24));
	const f4 = createFeed(state, solo.id, 'Solo feed', null);
	const f4s = [
		createSource(state, f4, 'Flickr', 'solostudio', 'username'),
		createSource(state, f4, 'Tumblr', '#solo', 'hashtag'),
		createSource(state, f4, 'Vimeo', 'solostudio', 'username'),
	];
	createPosts(state, f4, f4s, 15, spread(15));
	const f5 = createFeed(state, agency.id, 'Client wall', 10);
	const f5s = [createSource(state, f5, 'Instagram', '#agencyclient', 'hashtag'), createSource(state, f5, 'Twitter', 'agencyco', 'username')];
	createPosts(state, f5, f5s, 20, spread(20));
	const f6 = createFeed(state, busy.id, 'Busy feed', null);
	createPosts(state, f6, [createSource(state, f6, 'Twitter', '#busy', 'hashtag')], 5, spread(5));
	for (const f of state.feeds.values()) {
		f.createdAt = now - 60 * DAY;
		f.updatedAt = now - 60 * DAY;
		f.lastSyncedAt = now - 10 * MINUTE;
	}
	for (const s of state.sources.values()) {
		s.createdAt = now - 60 * DAY;
		s.syncedAt = now - 10 * MINUTE;
	}
	for (const p of state.posts.values()) p.createdAt = Math.max(p.externalCreatedAt + 5 * MINUTE, now - 60 * DAY);
	state.users.get(SEEDED.users.acmeCollaborator)!.feedIds = [f1.id];
	state.users.get(SEEDED.users.agencyCollaborator)!.feedIds = [f5.id];
	if (svc.options.demo) {
		const demo = createFeed(state, acme.id, 'Demo: everything', 5);
		const demoSources = [
			createSource(state, demo, 'Twitter', '#demo', 'hashtag'),
			createSource(state, demo, 'Instagram', 'demo', 'hashtag'),
			createSource(state, demo, 'TikTok', '#demo', 'hashtag'),
			createSource(state, demo, 'YouTube', 'DemoChannel', 'channel'),
			createSource(state, demo, 'Bluesky', 'demo.bsky.social', 'username'),
		];
		createPosts(state, demo, demoSources, 300, { newestAt: now - MINUTE, spacingMs: 20 * MINUTE, mix: 'mixed' });
	}

	// Social accounts.
	addSocialAccount(state, acme.id, 'facebook', 'Acme Official', 'acmeofficial', now + 60 * DAY);
	addSocialAccount(state, acme.id, 'instagram', 'acme.official', 'acme.official', now + 3 * DAY);
	addSocialAccount(state, agency.id, 'facebook', 'Agency Co', 'agencyco', now + 90 * DAY);
	for (const a of state.socialAccounts.values()) a.connectedAt = now - 30 * DAY;

	// Webhooks.
	for (const [id, url, events, status] of [
		[1, 'https://hooks.acme.example/social', ['post.created'], 'active'],
		[2, 'https://hooks.acme.example/alerts', ['post.created', 'social_account.expiring', 'social_account.expired'], 'paused'],
	] as const) {
		const wid = state.nextId('webhook');
		if (wid !== id) throw new Error('seed: webhook ids');
		state.webhooks.set(wid, {
			id: wid,
			accountId: acme.id,
			url,
			subscribedEvents: [...events],
			status,
			consecutiveFailures: 0,
			secret: SEEDED_WEBHOOK_SECRETS[wid],
			createdAt: now - 10 * DAY,
			updatedAt: now - 10 * DAY,
		});
	}

	// Keys.
	const U = SEEDED.users;
	key('owner', U.acmeOwner, 'owner');
	key('manager', U.acmeManager, 'manager');
	key('collaborator', U.acmeCollaborator, 'collaborator');
	key('collaboratorNoFeeds', U.acmeCollaboratorNoFeeds, 'collaborator');
	key('freeOwner', U.soloOwner, 'owner');
	key('enterpriseOwner', U.agencyOwner, 'owner');
	key('proOwner', U.busyOwner, 'owner');
	key('freeNoFeedsOwner', U.freeNoFeedsOwner, 'owner');
	key('expired', U.acmeOwner, 'owner', { type: 'temporary', issuedBy: 'device', issuedAt: now - 13 * HOUR, expiresAt: now - HOUR });
	key('unconfirmed', U.unconfirmedOwner, 'owner', { type: 'temporary', issuedBy: 'email', confirmed: false, issuedAt: now, expiresAt: now + 2 * HOUR });

	// Sanity: the ids promised in SEEDED.
	if (state.users.get(U.unconfirmedOwner)?.email !== E.unconfirmedOwner) throw new Error('seed: user ids');
	if (state.sources.get(SEEDED.sources.rssBlog)?.platform !== 'RSS') throw new Error('seed: source ids');
	if (!state.posts.has(1204) || state.posts.get(1204)?.feedId !== f3.id) throw new Error('seed: post ids');
	return state;
}
