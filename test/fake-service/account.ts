/** GET /account, GET /platforms, and the upgrade page behind magic links. */
import { livePlatformCatalog, PLANS, PLATFORM_CATALOG } from './catalog';
import { keyPreview, requireAuth } from './keys';
import type { Service } from './service';
import { iso } from './util';

export function registerAccount(svc: Service): void {
	svc.api.get('/account', (ctx) => {
		const { account, user, key } = requireAuth(ctx);
		const state = ctx.state;
		const plan = PLANS[account.plan];
		const owner = state.users.get(account.ownerUserId);
		const person = state.persons.get(user.email);
		return {
			status: 200,
			body: {
				data: {
					id: account.id,
					name: account.name,
					email: owner?.email ?? user.email,
					plan: plan.id,
					plan_display_name: plan.displayName,
					role: user.role,
					user_id: user.id,
					user_email: user.email,
					email_confirmed: person?.confirmed ?? true,
					sign_in_tokens_enabled: account.signInTokensEnabled,
					white_label_host: account.whiteLabelHost,
					limits: { feeds: plan.maxFeeds, sources: plan.maxSources, users: plan.canInviteUsers },
					usage: { feeds: state.feedsOf(account.id).length, sources: state.sourceCount(account.id) },
					api_key: { id: key.id, type: key.type, key_preview: keyPreview(key.key), expires_at: key.expiresAt === null ? null : iso(key.expiresAt) },
					created_at: iso(account.createdAt),
				},
			},
		};
	});

	svc.api.get('/platforms', (ctx) => {
		requireAuth(ctx);
		return { status: 200, body: { data: ctx.svc.shapes === 'live' ? livePlatformCatalog() : PLATFORM_CATALOG } };
	});

	svc.web.get('/upgrade', (ctx) => ({ status: 200, text: `<html><body><h1>Upgrade to ${String(ctx.query.plan ?? '')}</h1></body></html>` }));
}
