import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { fetchPlatforms, searchFeeds } from '../shared/loadOptions';
import { apiRequest } from '../shared/transport';
import type { ListResponse } from '../shared/types';

/** Dropdowns of this node only; the ones the nodes share live in nodes/shared/loadOptions.ts. */

/** Dropdowns open fast: at most two pages of feeds. */
const MAX_FEED_PAGES = 2;

/** The account's feeds, for multi-selects and optional feed choices. */
export async function getFeeds(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const options: INodePropertyOptions[] = [];
	let token: string | undefined;
	for (let page = 0; page < MAX_FEED_PAGES; page++) {
		const { results, paginationToken } = await searchFeeds.call(this, undefined, token);
		options.push(...results.map((result) => ({ name: result.name, value: result.value })));
		token = paginationToken;
		if (!token) break;
	}
	return options;
}

/** The providers connected accounts come from, as `GET /platforms` names them. */
export async function getConnectionProviders(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const platforms = await fetchPlatforms.call(this);
	const providers = new Map<string, string[]>();
	for (const platform of platforms) {
		for (const termType of platform.term_types) {
			const provider = termType.requires_connection?.provider;
			if (!provider) continue;
			const needs = providers.get(provider) ?? [];
			const label = `${platform.display_name || platform.platform} ${termType.display_name || termType.term_type}`;
			if (!needs.includes(label)) needs.push(label);
			providers.set(provider, needs);
		}
	}
	return [...providers.entries()]
		.map(([provider, needs]) => ({ name: provider, value: provider, description: `Needed for: ${needs.join(', ')}` }))
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** The connected social accounts (first page of 100). */
export async function getSocialAccounts(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const response = (await apiRequest.call(this, {
		method: 'GET',
		path: '/social_accounts',
		qs: { page: 1, per_page: 100 },
		retry: { maxAttempts: 2, maxTotalWaitMs: 3_000 },
	})) as ListResponse;
	return response.data.map((account: IDataObject) => {
		const who = account.username ?? account.name ?? account.id;
		return {
			name: `${String(account.platform ?? account.provider ?? 'Account')}: ${String(who)}`,
			value: String(account.id),
			description: account.expires_at ? `Expires ${String(account.expires_at)}` : undefined,
		};
	});
}
