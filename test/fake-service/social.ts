/** Social accounts: connection status, list, single-use connection links, disconnect, expiry events. */
import { PROVIDER_BY_NAME, PROVIDERS } from './catalog';
import { requireAuth } from './keys';
import type { Service } from './service';
import type { State } from './state';
import type { SocialAccount } from './types';
import { ApiError, bodyObject, DAY, invalid, iso, MINUTE, notFound, paginate, parseIntStrict, parsePaging } from './util';

export const CONNECTION_LINK_LIFETIME = 30 * MINUTE;
export const CONNECTION_LIFETIME = 60 * DAY;
export const EXPIRING_WINDOW = 5 * DAY;

export function hasConnection(state: State, accountId: number, provider: string): boolean {
	const now = state.now();
	for (const a of state.socialAccounts.values()) if (a.accountId === accountId && a.provider === provider && a.expiresAt > now) return true;
	return false;
}

export function socialAccountJson(a: SocialAccount): Record<string, unknown> {
	return {
		id: a.id,
		platform: a.platform,
		provider: a.provider,
		name: a.name,
		username: a.username,
		connected_at: iso(a.connectedAt),
		expires_at: iso(a.expiresAt),
	};
}

export function createConnectionLink(svc: Service, accountId: number, provider: string): { url: string; provider: string; expires_at: string; token: string } {
	const state = svc.state;
	const token = state.token('connect', 32);
	const expiresAt = svc.clock.now() + CONNECTION_LINK_LIFETIME;
	state.connectionLinks.set(token, { token, accountId, provider, expiresAt, used: false });
	return { url: `${svc.origin}/web/connect/${token}`, provider, expires_at: iso(expiresAt), token };
}

/** The action of a social_account_required error (CONTRIBUTING.md). */
export function connectionAction(svc: Service, accountId: number, provider: string): Record<string, unknown> {
	const link = createConnectionLink(svc, accountId, provider);
	return { type: 'connect_social_account', provider, connection_url: link.url, expires_at: link.expires_at };
}

export function addSocialAccount(state: State, accountId: number, provider: string, name: string, username: string, expiresAt: number): SocialAccount {
	const info = PROVIDER_BY_NAME.get(provider);
	if (!info) throw new Error(`unknown provider ${provider}`);
	const now = state.now();
	if (!info.allowsMultiple) {
		const existing = [...state.socialAccounts.values()].find((a) => a.accountId === accountId && a.provider === provider);
		if (existing) {
			existing.connectedAt = now;
			existing.expiresAt = expiresAt;
			existing.notified = { expiring: false, expired: false };
			return existing;
		}
	}
	const account: SocialAccount = {
		id: state.nextId('social_account'),
		accountId,
		provider,
		platform: info.platform,
		name,
		username,
		connectedAt: now,
		expiresAt,
		notified: { expiring: expiresAt - now <= EXPIRING_WINDOW, expired: expiresAt <= now },
	};
	state.socialAccounts.set(account.id, account);
	return account;
}

/** Opening a connection link (or control.openConnectionLink): connects an account, once. */
export function openConnectionLink(svc: Service, urlOrToken: string): SocialAccount {
	const token = urlOrToken.split('/').pop()?.split('?')[0] ?? '';
	const link = svc.state.connectionLinks.get(token);
	if (!link) throw notFound('Connection link');
	if (link.used) throw new ApiError(410, 'link_used', 'This connection link was already used');
	if (svc.clock.now() >= link.expiresAt) throw new ApiError(410, 'link_expired', 'This connection link has expired');
	link.used = true;
	const n = svc.state.nextId(`connected:${link.provider}`);
	return addSocialAccount(svc.state, link.accountId, link.provider, `Connected ${link.provider} account ${n}`, `${link.provider}_user_${n}`, svc.clock.now() + CONNECTION_LIFETIME);
}

/** social_account.expiring (within 5 days) and social_account.expired events, once each. */
export function socialAccountTick(svc: Service): void {
	const now = svc.clock.now();
	for (const a of svc.state.socialAccounts.values()) {
		if (now >= a.expiresAt && !a.notified.expired) {
			a.notified.expired = true;
			a.notified.expiring = true;
			svc.webhooks.emit(a.accountId, 'social_account.expired', { social_account: socialAccountJson(a) });
		} else if (now < a.expiresAt && a.expiresAt - now <= EXPIRING_WINDOW && !a.notified.expiring) {
			a.notified.expiring = true;
			svc.webhooks.emit(a.accountId, 'social_account.expiring', { social_account: socialAccountJson(a) });
		}
	}
}

export function registerSocial(svc: Service): void {
	svc.api.get('/social_accounts/status', (ctx) => {
		const { account } = requireAuth(ctx);
		return {
			status: 200,
			body: {
				data: PROVIDERS.map((p) => ({
					platform: p.platform,
					provider: p.provider,
					connected: hasConnection(ctx.state, account.id, p.provider),
					allows_multiple: p.allowsMultiple,
				})),
			},
		};
	});

	svc.api.get('/social_accounts', (ctx) => {
		const { account } = requireAuth(ctx);
		const paging = parsePaging(ctx.query);
		const list = [...ctx.state.socialAccounts.values()].filter((a) => a.accountId === account.id).sort((a, b) => a.id - b.id);
		return { status: 200, body: paginate(list, paging, socialAccountJson) };
	});

	svc.api.post('/social_accounts/connect_url', (ctx) => {
		const { account } = requireAuth(ctx);
		const body = bodyObject(ctx.body);
		if (body.provider === undefined || body.provider === '') throw invalid({ provider: ['is required'] });
		if (typeof body.provider !== 'string' || !PROVIDER_BY_NAME.has(body.provider)) {
			throw invalid({ provider: [`must be one of ${PROVIDERS.map((p) => p.provider).join(', ')}`] });
		}
		const link = createConnectionLink(svc, account.id, body.provider);
		return { status: 201, body: { data: { url: link.url, provider: link.provider, expires_at: link.expires_at } } };
	});

	svc.api.delete('/social_accounts/:id', (ctx) => {
		const { account } = requireAuth(ctx);
		const id = parseIntStrict(ctx.params.id);
		const sa = id === undefined ? undefined : ctx.state.socialAccounts.get(id);
		if (!sa || sa.accountId !== account.id) throw notFound('Social account');
		ctx.state.socialAccounts.delete(sa.id);
		return { status: 204 };
	});

	svc.web.get('/connect/:token', (ctx) => {
		const sa = openConnectionLink(svc, ctx.params.token);
		return { status: 200, text: `<html><body><h1>Connected ${sa.platform}</h1><p>${sa.username}</p></body></html>` };
	});
}
