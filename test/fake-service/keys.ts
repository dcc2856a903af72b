/** API keys: authentication, tiers and rate limits, and key issuance (POST /authorize, GET /authorize/{id}). */
import { KEY_PREFIX, nextPlan, PLANS } from './catalog';
import type { KeyLimits } from './rateLimit';
import type { Auth, Ctx } from './router';
import type { Service } from './service';
import type { State } from './state';
import type { ApiKey, DeviceRequest, Role, User } from './types';
import { ApiError, bodyObject, EMAIL_RE, forbidden, HOUR, invalid, iso, MINUTE, notFound, type Details } from './util';

export const UNCONFIRMED_LIFETIME = 2 * HOUR;
export const CONFIRMED_LIFETIME = 12 * HOUR;
export const DEVICE_REQUEST_LIFETIME = 10 * MINUTE;
export const POLL_INTERVAL = 2;
export const UNCONFIRMED_LIMITS: KeyLimits = { requestsPerHour: 60, burstPerMinute: null };

function unauthorized(message: string): ApiError {
	return new ApiError(401, 'unauthorized', message);
}

export function keyPreview(key: string): string {
	return `${key.slice(0, KEY_PREFIX.length + 4)}…${key.slice(-4)}`;
}

export function authenticate(svc: Service, header: string | undefined): Auth {
	if (!header) throw unauthorized('Missing API key: send Authorization: Bearer <API_KEY>');
	const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
	if (!m) throw unauthorized('Malformed Authorization header: expected Bearer <API_KEY>');
	const key = svc.state.keys.get(m[1]);
	if (!key) throw unauthorized('Invalid API key');
	if (key.expiresAt !== null && svc.clock.now() >= key.expiresAt) throw unauthorized('The API key has expired');
	const user = svc.state.users.get(key.userId);
	const account = user ? svc.state.accounts.get(user.accountId) : undefined;
	if (!user || !account || user.accountId !== key.accountId) throw unauthorized('The API key is no longer valid');
	return { key, account, user };
}

/** The tier of a key (SPEC "Key-limit tiers"): pre-confirmation 60/h; otherwise the plan's rate. */
export function tierFor(state: State, key: ApiKey): KeyLimits {
	if (key.type === 'temporary' && !key.confirmed) return UNCONFIRMED_LIMITS;
	const plan = PLANS[state.account(key.accountId).plan];
	return { requestsPerHour: plan.requestsPerHour, burstPerMinute: plan.burstPerMinute };
}

export function rateLimitObject(limits: KeyLimits): { requests_per_hour: number | null; burst_per_minute: number | null } {
	return { requests_per_hour: limits.requestsPerHour, burst_per_minute: limits.burstPerMinute };
}

export function upgradeAction(svc: Service, accountId: number, requiredPlan?: keyof typeof PLANS): Record<string, unknown> {
	const account = svc.state.account(accountId);
	const current = PLANS[account.plan];
	const required = PLANS[requiredPlan ?? nextPlan(account.plan)];
	return {
		type: 'upgrade_plan',
		current_plan: current.id,
		current_plan_display_name: current.displayName,
		required_plan: required.id,
		required_plan_display_name: required.displayName,
		upgrade_url: `${svc.origin}/web/upgrade?plan=${required.id}&token=${svc.state.token('upgrade', 24)}`,
		expires_at: iso(svc.clock.now() + HOUR),
	};
}

/** The `X-RateLimit-*` headers for an answer to this key, when the service is set to send them. */
export function rateLimitHeaders(svc: Service, auth: Auth): Record<string, string> {
	return svc.limiter.headersFor(auth.key.id, tierFor(svc.state, auth.key), svc.clock.now());
}

export function enforceRateLimit(svc: Service, auth: Auth): void {
	const tier = tierFor(svc.state, auth.key);
	const over = svc.limiter.hit(auth.key.id, tier, svc.clock.now());
	if (!over) return;
	const limits = svc.limiter.effective(auth.key.id, tier);
	const n = over.limit === 'hour' ? limits.requestsPerHour : limits.burstPerMinute;
	const plan = PLANS[auth.account.plan];
	const extra: Record<string, unknown> = {
		upgrade_hint:
			plan.id === 'enterprise'
				? 'Contact us for higher limits.'
				: `Upgrade to ${PLANS[nextPlan(plan.id)].displayName} for higher rate limits.`,
	};
	throw new ApiError(
		429,
		'rate_limit_exceeded',
		svc.retryAfterHeader
			? `Rate limit exceeded: ${n} requests per ${over.limit}. Retry after ${over.retryAfter} s.`
			: `Rate limit exceeded: ${n} requests per ${over.limit}.`,
		{},
		undefined,
		{
			...(svc.retryAfterHeader ? { 'Retry-After': String(over.retryAfter) } : {}),
			...svc.limiter.headersFor(auth.key.id, tier, svc.clock.now()),
		},
		extra,
	);
}

export function requireAuth(ctx: Ctx): Auth {
	if (!ctx.auth) throw unauthorized('Missing API key');
	return ctx.auth;
}

export function requireRole(ctx: Ctx, roles: Role[]): Auth {
	const auth = requireAuth(ctx);
	if (!roles.includes(auth.user.role)) {
		throw forbidden(`This operation needs an ${roles.join(' or ')} key; this key belongs to a ${auth.user.role}`);
	}
	return auth;
}

/** SERVICE-NOTES: with an unconfirmed temporary key, data calls fail with email_confirmation_required. */
export function requireConfirmedForData(ctx: Ctx): Auth {
	const auth = requireAuth(ctx);
	if (auth.key.type === 'temporary' && !auth.key.confirmed) {
		throw new ApiError(403, 'email_confirmation_required', 'Confirm your email address to use the Data API with this key; the same key works once it is confirmed');
	}
	return auth;
}

export function newKeyString(state: State): string {
	return KEY_PREFIX + state.token('api_key', 32);
}

/** The membership a key for this email belongs to: its own account (owner) first. */
function homeMembership(state: State, email: string): User | undefined {
	const memberships = state.membershipsOf(email);
	return memberships.find((u) => u.role === 'owner') ?? memberships[0];
}

export function issueTemporaryKey(svc: Service, user: User, issuedBy: 'email' | 'device', confirmed: boolean, clientName: string): ApiKey {
	const state = svc.state;
	const now = svc.clock.now();
	return state.addKey({
		id: `key_tmp_${state.nextId('tmpkey')}`,
		key: newKeyString(state),
		accountId: user.accountId,
		userId: user.id,
		type: 'temporary',
		issuedBy,
		confirmed,
		issuedAt: now,
		expiresAt: now + (confirmed ? CONFIRMED_LIFETIME : UNCONFIRMED_LIFETIME),
		clientName,
	});
}

function upgradeBits(svc: Service, accountId: number): { upgrade_hint: string; upgrade_url: string } {
	const plan = PLANS[svc.state.account(accountId).plan];
	const next = PLANS[nextPlan(plan.id)];
	return {
		upgrade_hint: `Temporary keys are time-bounded. Create a permanent key on the Developer page, or upgrade to ${next.displayName} for higher limits.`,
		upgrade_url: `${svc.origin}/web/upgrade?plan=${next.id}`,
	};
}

/** Control: confirm an email. Unexpired unconfirmed keys of that email become 12-hour, 300/h keys. */
export function confirmEmail(svc: Service, email: string): { confirmed: boolean; keysExtended: number } {
	const state = svc.state;
	const person = state.persons.get(email.toLowerCase());
	if (!person) throw notFound('Email');
	person.confirmed = true;
	const now = svc.clock.now();
	let keysExtended = 0;
	const userIds = new Set(state.membershipsOf(email).map((u) => u.id));
	for (const key of state.keys.values()) {
		if (!userIds.has(key.userId) || key.type !== 'temporary' || key.confirmed) continue;
		if (key.expiresAt !== null && now >= key.expiresAt) continue;
		key.confirmed = true;
		key.expiresAt = key.issuedAt + CONFIRMED_LIFETIME;
		keysExtended++;
	}
	return { confirmed: true, keysExtended };
}

export function decideDevice(svc: Service, requestId: string, decision: 'approve' | 'deny'): DeviceRequest {
	const request = svc.state.deviceRequests.get(requestId);
	if (!request) throw notFound('Authorization request');
	if (svc.clock.now() >= request.expiresAt) throw new ApiError(410, 'authorization_gone', 'The authorization request has expired');
	if (request.state !== 'pending') throw new ApiError(409, 'conflict', `The authorization request is already ${request.state}`);
	request.state = decision === 'approve' ? 'approved' : 'denied';
	return request;
}

function gone(message: string): ApiError {
	return new ApiError(410, 'authorization_gone', message);
}

export function registerKeys(svc: Service): void {
	svc.api.post(
		'/authorize',
		(ctx) => {
			const body = bodyObject(ctx.body);
			const details: Details = {};
			const email = typeof body.email === 'string' ? body.email.trim() : '';
			if (!email) details.email = ['is required'];
			else if (!EMAIL_RE.test(email)) details.email = ['is not a valid email address'];
			if (body.client_name === undefined || body.client_name === null || body.client_name === '') details.client_name = ['is required'];
			else if (typeof body.client_name !== 'string') details.client_name = ['must be a string'];
			if (Object.keys(details).length) throw invalid(details);
			const clientName = String(body.client_name);
			const state = ctx.state;
			const person = state.persons.get(email.toLowerCase());
			if (person && person.confirmed) {
				// Mode B: device authorization.
				const member = homeMembership(state, email);
				const id = `ar_${state.token('device', 24)}`;
				const now = svc.clock.now();
				const request: DeviceRequest = { id, email: person.email, clientName, createdAt: now, expiresAt: now + DEVICE_REQUEST_LIFETIME, state: 'pending', keyId: null };
				state.deviceRequests.set(id, request);
				const plan = PLANS[state.account(member ? member.accountId : 0).plan];
				return {
					status: 202,
					body: {
						status: 'pending_authorization',
						request_id: id,
						authorization_url: `${svc.origin}/web/authorize/${id}`,
						poll_url: `${svc.baseUrl}/authorize/${id}`,
						expires_at: iso(request.expiresAt),
						poll_interval: POLL_INTERVAL,
						rate_limit: rateLimitObject({ requestsPerHour: plan.requestsPerHour, burstPerMinute: plan.burstPerMinute }),
						...upgradeBits(svc, member ? member.accountId : 0),
					},
				};
			}
			// Mode A: new or unconfirmed email.
			let member = homeMembership(state, email);
			if (!member) {
				const local = email.split('@')[0];
				member = state.createAccount(`${local}'s account`, 'free', email, false).owner;
				state.email(email.toLowerCase(), 'confirmation', member.accountId);
			}
			const key = issueTemporaryKey(svc, member, 'email', false, clientName);
			return {
				status: 201,
				body: {
					status: 'issued',
					api_key: key.key,
					expires_at: iso(key.expiresAt ?? 0),
					email_confirmation_required: true,
					rate_limit: rateLimitObject(UNCONFIRMED_LIMITS),
					...upgradeBits(svc, member.accountId),
				},
			};
		},
		{ auth: false },
	);

	svc.api.get(
		'/authorize/:request_id',
		(ctx) => {
			const state = ctx.state;
			const request = state.deviceRequests.get(ctx.params.request_id);
			if (!request) throw notFound('Authorization request');
			const now = svc.clock.now();
			if (request.state === 'denied') throw gone('The authorization request was denied');
			if (request.state === 'delivered') throw gone('The key was already delivered');
			if (now >= request.expiresAt) throw gone('The authorization request has expired');
			if (request.state === 'pending') {
				return { status: 202, body: { status: 'pending', poll_interval: POLL_INTERVAL, expires_at: iso(request.expiresAt) } };
			}
			const member = homeMembership(state, request.email);
			if (!member) throw gone('The account no longer exists');
			const key = issueTemporaryKey(svc, member, 'device', true, request.clientName);
			request.state = 'delivered';
			request.keyId = key.id;
			return {
				status: 200,
				body: {
					status: 'issued',
					api_key: key.key,
					expires_at: iso(key.expiresAt ?? 0),
					key_preview: keyPreview(key.key),
					rate_limit: rateLimitObject(tierFor(state, key)),
					...upgradeBits(svc, member.accountId),
				},
			};
		},
		{ auth: false },
	);

	// authorization_url: opening it approves (the user is signed in and clicks Approve); ?decision=deny denies.
	svc.web.get('/authorize/:request_id', (ctx) => {
		const decision = ctx.query.decision === 'deny' ? 'deny' : 'approve';
		const request = decideDevice(svc, ctx.params.request_id, decision);
		return { status: 200, text: `<html><body><h1>Request ${decision === 'approve' ? 'approved' : 'denied'}</h1><p>${request.clientName}</p></body></html>` };
	});
}
