import type { PlanId } from './catalog';

export type Role = 'owner' | 'manager' | 'collaborator';

export interface Account {
	id: number;
	name: string;
	plan: PlanId;
	ownerUserId: number;
	signInTokensEnabled: boolean;
	whiteLabelHost: string | null;
	/** null = unlimited; otherwise Data API calls need this many credits left (402 insufficient_credits). */
	creditBalance: number | null;
	createdAt: number;
}

/** A person, identified by email, across accounts. */
export interface Person {
	email: string;
	confirmed: boolean;
	createdAt: number;
}

/** A membership of a person in an account (the API's User). */
export interface User {
	id: number;
	accountId: number;
	email: string;
	role: Role;
	invitationPending: boolean;
	invitationAccepted: boolean;
	feedIds: number[];
	createdAt: number;
}

export interface ApiKey {
	id: string;
	key: string;
	accountId: number;
	userId: number;
	type: 'permanent' | 'temporary';
	/** Temporary keys: Mode A (email) or Mode B (device approval). */
	issuedBy?: 'email' | 'device';
	/** Temporary keys: the email was confirmed (or the key came from a device approval). */
	confirmed: boolean;
	issuedAt: number;
	expiresAt: number | null;
	clientName?: string;
}

export interface Feed {
	id: number;
	accountId: number;
	name: string;
	syncInterval: number | null;
	moderation: FeedModeration;
	createdAt: number;
	updatedAt: number;
	lastSyncedAt: number;
}

/** A feed's moderation settings, under the names of `PATCH /feeds/{id}`'s body. */
export interface FeedModeration {
	queue: boolean;
	allowed: string;
	disallowed: string;
	profanity: boolean;
	prevent_duplicates: boolean;
	deduplication_strategy: string;
	ai_moderation: boolean;
	ai_harmful_content_filter: boolean;
	ai_moderation_rules: string;
	ai_sentiment_filter: string[];
}

export interface Source {
	id: number;
	feedId: number;
	platform: string;
	term: string;
	termType: string;
	name: string;
	options: Record<string, unknown>;
	createdAt: number;
	syncedAt: number;
}

export interface Poster {
	display_name: string;
	name: string;
	url: string;
	image: string;
	platform_id: string;
}

export interface Medium {
	type: string;
	url: string;
	preview_image_url: string;
	width: number;
	height: number;
	alt_text: string;
	platform_id: string;
}

export interface ReferencedPost {
	poster: Poster;
	message: string;
	url: string;
	platform_id: string;
	post_created_at: string;
	media: Medium[];
}

export type ModerationStatus = 'public' | 'moderated' | 'rejected';

export interface FeedPost {
	id: number;
	feedId: number;
	sourceId: number;
	externalId: string;
	platform: string;
	url: string;
	message: string;
	description: string;
	externalCreatedAt: number;
	poster: Poster;
	media: Medium[];
	counts: Record<string, number>;
	taggedUsers: string;
	status: ModerationStatus;
	deleted: boolean;
	aiSentiment: string;
	aiDecisionReason: string;
	aiModerationReasoning: string;
	pinned: boolean;
	referencedPost: ReferencedPost | null;
	resharedBy: Poster | null;
	createdAt: number;
}

export interface SocialAccount {
	id: number;
	accountId: number;
	provider: string;
	platform: string;
	name: string;
	username: string;
	connectedAt: number;
	expiresAt: number;
	/** Which webhook events were already sent for this account. */
	notified: { expiring: boolean; expired: boolean };
}

export interface ConnectionLink {
	token: string;
	accountId: number;
	provider: string;
	expiresAt: number;
	used: boolean;
}

export interface Webhook {
	id: number;
	accountId: number;
	url: string;
	subscribedEvents: string[];
	status: 'active' | 'paused' | 'disabled';
	consecutiveFailures: number;
	secret: string;
	createdAt: number;
	updatedAt: number;
}

export interface DeliveryAttempt {
	at: string;
	status: number | null;
	error: string | null;
	durationMs: number;
	simulated: boolean;
}

export interface Delivery {
	id: string;
	webhookId: number;
	event: string;
	url: string;
	/** The exact raw body sent on every attempt. */
	body: string;
	signature: string;
	state: 'pending' | 'succeeded' | 'failed';
	attempts: DeliveryAttempt[];
	nextAttemptAt: string | null;
	createdAt: string;
}

export interface SignInToken {
	token: string;
	userId: number;
	accountId: number;
	feedId: number | null;
	expiresAt: number;
	consumed: boolean;
	createdAt: number;
}

export interface DeviceRequest {
	id: string;
	email: string;
	clientName: string;
	createdAt: number;
	expiresAt: number;
	state: 'pending' | 'approved' | 'denied' | 'delivered';
	keyId: string | null;
}

export interface EmailRecord {
	to: string;
	kind: 'invitation' | 'admin_invitation' | 'new_feed' | 'confirmation';
	accountId: number | null;
	feedId: number | null;
	at: string;
}

/**
 * Legal orders of a feed's posts (the order is not documented): `pinnedThenPlatform`, pinned posts first, then newest
 * first by the time the post was published on its platform (SERVICE-NOTES.md); `stored`, newest first by when the
 * service stored the post (its id), pinned posts where they fall.
 */
export type PostOrder = 'pinnedThenPlatform' | 'stored';
