import assert from 'node:assert/strict';

import type { E2eContext } from './suite';

/** A GET to the stand-in with the seeded owner's key; 200 asserted. */
export async function ownerGet<T>(ctx: E2eContext, apiPath: string): Promise<T> {
	const response = await fetch(`${ctx.backend.url}${apiPath}`, { headers: { Authorization: `Bearer ${ctx.backend.fake!.control.keys.owner}` } });
	assert.equal(response.status, 200, `GET ${apiPath}: ${response.status}`);
	return (await response.json()) as T;
}

/** The webhook subscription at `url`, as the service lists it (the live service has no GET /webhooks/{id}). */
export async function subscriptionAt(ctx: E2eContext, url: string) {
	const { data } = await ownerGet<{ data: Array<{ id: number; url: string; status: string; consecutive_failures: number }> }>(ctx, '/webhooks?per_page=100');
	return data.find((subscription) => subscription.url === url);
}
