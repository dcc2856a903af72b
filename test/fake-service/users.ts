/** Users of an account: invitations (rules 1-5), deletion, feed assignment, sign-in tokens. */
import { PLANS } from './catalog';
import { requireRole, upgradeAction } from './keys';
import type { Ctx } from './router';
import type { Service } from './service';
import type { State } from './state';
import type { SignInToken, User } from './types';
import { ApiError, bodyObject, EMAIL_RE, forbidden, invalid, iso, MINUTE, notFound, parseIntStrict, type Details } from './util';

export const SIGN_IN_TOKEN_LIFETIME = 30 * MINUTE;

export function userJson(state: State, u: User): Record<string, unknown> {
	const allFeeds = state.feedsOf(u.accountId).map((f) => f.id);
	let feedIds: number[];
	if (u.role === 'owner') feedIds = allFeeds;
	else if (u.role === 'manager') feedIds = u.invitationAccepted ? allFeeds : [];
	else feedIds = [...u.feedIds].sort((a, b) => a - b);
	return {
		id: u.id,
		email: u.email,
		role: u.role,
		invitation_accepted: u.invitationAccepted,
		invitation_pending: u.invitationPending,
		feed_ids: feedIds,
		created_at: iso(u.createdAt),
	};
}

function userIn(ctx: Ctx, accountId: number, raw: string): User {
	const id = parseIntStrict(raw);
	const user = id === undefined ? undefined : ctx.state.users.get(id);
	if (!user || user.accountId !== accountId) throw notFound('User');
	return user;
}

/** Rule 2: a manager can be invited only when on the free plan with no feeds and no existing enterprise account. */
export function managerEligibility(state: State, email: string): string | null {
	const memberships = state.membershipsOf(email);
	for (const m of memberships) {
		const account = state.account(m.accountId);
		if (account.plan === 'enterprise') return 'already belongs to an enterprise account';
		if (m.role === 'owner') {
			if (account.plan !== 'free') return `is on the ${PLANS[account.plan].displayName} plan (a manager must be on the free plan)`;
			if (state.feedsOf(account.id).length > 0) return 'already has feeds (a manager must have no feeds)';
		}
	}
	return null;
}

/** Control: the invitee accepts. */
export function acceptInvitation(state: State, userId: number): User {
	const user = state.users.get(userId);
	if (!user) throw notFound('User');
	user.invitationPending = false;
	user.invitationAccepted = true;
	state.ensurePerson(user.email, true).confirmed = true;
	return user;
}

/** The sign-in token lifecycle of SPEC.md, per destination (the dashboard home, or one feed). */
export function signInToken(svc: Service, user: User, feedId: number | null): SignInToken {
	const state = svc.state;
	const now = svc.clock.now();
	const existing = [...state.signInTokens].reverse().find((t) => t.userId === user.id && t.feedId === feedId && !t.consumed);
	if (existing) {
		if (now >= existing.expiresAt) existing.expiresAt = now + SIGN_IN_TOKEN_LIFETIME;
		return existing;
	}
	const token: SignInToken = {
		token: `sit_${state.token('sign_in', 40)}`,
		userId: user.id,
		accountId: user.accountId,
		feedId,
		expiresAt: now + SIGN_IN_TOKEN_LIFETIME,
		consumed: false,
		createdAt: now,
	};
	state.signInTokens.push(token);
	return token;
}

export function signInUrl(svc: Service, token: SignInToken): string {
	const account = svc.state.account(token.accountId);
	return account.whiteLabelHost ? `https://${account.whiteLabelHost}/sign_in/${token.token}` : `${svc.origin}/web/sign_in/${token.token}`;
}

/** Opening sign_in_url (or control.consumeSignInToken): signs the user in, once. */
export function consumeSignInToken(svc: Service, tokenOrUrl: string): { userId: number; feedId: number | null } {
	const value = tokenOrUrl.split('/').pop()?.split('?')[0] ?? '';
	const token = svc.state.signInTokens.find((t) => t.token === value);
	if (!token) throw notFound('Sign-in token');
	if (token.consumed) throw new ApiError(410, 'token_used', 'This sign-in link was already used');
	if (svc.clock.now() >= token.expiresAt) throw new ApiError(410, 'token_expired', 'This sign-in link has expired');
	token.consumed = true;
	return { userId: token.userId, feedId: token.feedId };
}

function removeMembership(svc: Service, user: User): void {
	const state = svc.state;
	state.users.delete(user.id);
	for (const [k, key] of state.keys) if (key.userId === user.id) state.keys.delete(k);
	state.signInTokens = state.signInTokens.filter((t) => t.userId !== user.id);
}

export function registerUsers(svc: Service): void {
	const api = svc.api;

	api.post('/users', (ctx) => {
		const auth = requireRole(ctx, ['owner', 'manager']);
		const state = ctx.state;
		const body = bodyObject(ctx.body);
		const details: Details = {};
		const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
		if (!email) details.email = ['is required'];
		else if (!EMAIL_RE.test(email)) details.email = ['is not a valid email address'];
		if (body.role !== 'manager' && body.role !== 'collaborator') details.role = [body.role === undefined ? 'is required' : 'must be manager or collaborator'];
		let feedIds: number[] = [];
		if (body.feed_ids !== undefined && body.feed_ids !== null) {
			if (!Array.isArray(body.feed_ids) || body.feed_ids.some((id) => typeof id !== 'number' || !Number.isInteger(id))) details.feed_ids = ['must be an array of integers'];
			else feedIds = [...new Set(body.feed_ids as number[])];
		}
		if (body.skip_invitation_email !== undefined && typeof body.skip_invitation_email !== 'boolean') details.skip_invitation_email = ['must be a boolean'];
		if (Object.keys(details).length) throw invalid(details);
		const skip = body.skip_invitation_email === true;
		// Rule 1.
		const plan = PLANS[auth.account.plan];
		if (!plan.canInviteUsers) {
			throw new ApiError(
				422,
				'user_limit_reached',
				`Inviting users needs the Team or Enterprise plan; this account is on ${plan.displayName}.`,
				{},
				upgradeAction(svc, auth.account.id, 'team'),
			);
		}
		if (state.userByEmail(auth.account.id, email)) throw invalid({ email: ['is already a member of this account'] });
		const existing = state.persons.has(email);
		const now = svc.clock.now();
		const user: User = {
			id: 0,
			accountId: auth.account.id,
			email,
			role: body.role as 'manager' | 'collaborator',
			invitationPending: true,
			invitationAccepted: false,
			feedIds: [],
			createdAt: now,
		};
		if (user.role === 'manager') {
			// Rule 2: an admin invitation; feed_ids ignored.
			const problem = managerEligibility(state, email);
			if (problem) throw invalid({ email: [problem] }, `${email} cannot be invited as a manager: ${problem}`);
			user.id = state.nextId('user');
			state.users.set(user.id, user);
			state.ensurePerson(email, false);
			if (!skip) state.email(email, 'admin_invitation', auth.account.id);
		} else {
			// Rules 3 and 4.
			const own = new Set(state.feedsOf(auth.account.id).map((f) => f.id));
			const foreign = feedIds.filter((id) => !own.has(id));
			if (foreign.length) throw invalid({ feed_ids: [`contains feeds that do not belong to this account: ${foreign.join(', ')}`] });
			user.feedIds = feedIds;
			if (existing) {
				user.invitationPending = false;
				user.invitationAccepted = true;
			}
			user.id = state.nextId('user');
			state.users.set(user.id, user);
			state.ensurePerson(email, false);
			if (!skip) {
				if (existing && feedIds.length) state.email(email, 'new_feed', auth.account.id, feedIds[0]);
				else if (!existing) state.email(email, 'invitation', auth.account.id, feedIds[0] ?? null);
			}
		}
		const answer = userJson(state, user);
		// The documented live example of this answer carries no role.
		if (svc.shapes === 'live') delete answer.role;
		return { status: 201, body: { data: answer } };
	});

	api.delete('/users/:id', (ctx) => {
		const auth = requireRole(ctx, ['owner', 'manager']);
		const state = ctx.state;
		const user = userIn(ctx, auth.account.id, ctx.params.id);
		if (user.role === 'owner') throw invalid({ id: ['the account owner cannot be deleted'] });
		if (user.id === auth.user.id) throw invalid({ id: ['you cannot delete yourself'] });
		const pendingAdmin = user.role === 'manager' && user.invitationPending;
		removeMembership(svc, user);
		if (!pendingAdmin) {
			// Downgraded to a personal free plan; assignments removed with the membership.
			const hasOwn = state.membershipsOf(user.email).some((m) => m.role === 'owner');
			if (!hasOwn) state.createAccount(`${user.email.split('@')[0]}'s account`, 'free', user.email, state.persons.get(user.email)?.confirmed ?? false);
		}
		return { status: 204 };
	});

	api.put('/users/:user_id/feeds/:feed_id', (ctx) => {
		const auth = requireRole(ctx, ['owner', 'manager']);
		const state = ctx.state;
		const user = userIn(ctx, auth.account.id, ctx.params.user_id);
		const feedId = parseIntStrict(ctx.params.feed_id);
		const feed = feedId === undefined ? undefined : state.feeds.get(feedId);
		if (!feed || feed.accountId !== auth.account.id) throw notFound('Feed');
		if (user.role !== 'collaborator') throw invalid({ user_id: ['only collaborators are assigned to feeds; owners and managers see every feed'] });
		if (!user.feedIds.includes(feed.id)) {
			user.feedIds.push(feed.id);
			state.email(user.email, 'new_feed', auth.account.id, feed.id);
		}
		return { status: 200, body: { data: userJson(state, user) } };
	});

	api.delete('/users/:user_id/feeds/:feed_id', (ctx) => {
		const auth = requireRole(ctx, ['owner', 'manager']);
		const user = userIn(ctx, auth.account.id, ctx.params.user_id);
		const feedId = parseIntStrict(ctx.params.feed_id);
		if (feedId === undefined || !user.feedIds.includes(feedId)) throw notFound('Feed assignment');
		user.feedIds = user.feedIds.filter((id) => id !== feedId);
		return { status: 204 };
	});

	api.post('/users/:id/sign_in_token', (ctx) => {
		const auth = requireRole(ctx, ['owner', 'manager']);
		if (!auth.account.signInTokensEnabled) throw forbidden('Sign-in tokens are not enabled for this account', 'sign_in_tokens_disabled');
		const user = userIn(ctx, auth.account.id, ctx.params.id);
		if (user.role !== 'collaborator') throw invalid({ id: [`is a ${user.role}; sign-in tokens are only for collaborators`] });
		const body = bodyObject(ctx.body);
		let feedId: number | null = null;
		if (body.feed_id !== undefined && body.feed_id !== null) {
			if (typeof body.feed_id !== 'number' || !Number.isInteger(body.feed_id)) throw invalid({ feed_id: ['must be an integer'] });
			if (!user.feedIds.includes(body.feed_id)) throw notFound('Feed (not assigned to this collaborator)');
			feedId = body.feed_id;
		}
		const token = signInToken(svc, user, feedId);
		return { status: 201, body: { data: { sign_in_token: token.token, sign_in_url: signInUrl(svc, token), expires_at: iso(token.expiresAt) } } };
	});

	svc.web.get('/sign_in/:token', (ctx) => {
		const r = consumeSignInToken(svc, ctx.params.token);
		const user = ctx.state.users.get(r.userId);
		return { status: 200, text: `<html><body><h1>Signed in as ${user?.email ?? ''}</h1><p>${r.feedId === null ? 'Dashboard' : `Feed ${r.feedId} editor`}</p></body></html>` };
	});
}
