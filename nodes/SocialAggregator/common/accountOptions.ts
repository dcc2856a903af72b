import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { fetchPlatforms, pagedOptions } from '../../shared/loadOptions';
import { fieldText, type OptionFields } from '../../shared/options';

/** The providers connected accounts come from, as `GET /platforms` names them. */
export async function getConnectionProviders(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const providers = new Map<string, Set<string>>();
	for (const platform of await fetchPlatforms.call(this)) {
		for (const { provider, option } of platform.termTypes ?? []) {
			if (!provider) continue;
			const needs = providers.get(provider) ?? new Set<string>();
			providers.set(provider, needs.add(`${platform.option.name} ${option.name}`));
		}
	}
	return [...providers.entries()]
		.map(([provider, needs]) => {
			return { name: provider, value: provider, description: `Needed for: ${[...needs].join(', ')}` };
		})
		.sort((a, b) => a.name.localeCompare(b.name));
}

const SOCIAL_ACCOUNT: OptionFields = {
	value: ['id'],
	name: ['username', 'name', 'display_name', 'handle', 'email'],
	label: (who, id, account) => `${fieldText(account, ['platform', 'provider']) ?? 'Account'}: ${who ?? id}`,
	description: (account) => {
		const expires = fieldText(account, ['expires_at']);
		return expires && `Expires ${expires}`;
	},
};

/** The connected social accounts. */
export async function getSocialAccounts(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return await pagedOptions.call(this, '/social_accounts', SOCIAL_ACCOUNT, ['social_accounts', 'accounts']);
}
