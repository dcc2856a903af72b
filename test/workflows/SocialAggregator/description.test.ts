/**
 * The node's description: every operation of issue 4 is there, routed through the send
 * function that applies the package's rules, and reads well in the node panel.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { SocialAggregator } from '../../../nodes/SocialAggregator/SocialAggregator.node';

const { description } = new SocialAggregator();

function operationsOf(resource: string): INodePropertyOptions[] {
	const property = description.properties.find(
		(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
	) as INodeProperties;
	return property.options as INodePropertyOptions[];
}

const EXPECTED: Record<string, string[]> = {
	account: ['Get'],
	analytics: ['Get'],
	feed: ['Create', 'Delete', 'Get', 'Get Embed Code', 'Get Many', 'Update'],
	platform: ['Get Many'],
	post: ['Approve', 'Delete', 'Download Media', 'Get', 'Get Many', 'Moderate Many', 'Pin', 'Reject', 'Search Across Feeds', 'Unpin'],
	socialAccount: ['Create Connection Link', 'Disconnect', 'Get Connection Status', 'Get Many'],
	source: ['Create', 'Delete', 'Get Many'],
	user: ['Assign Feed', 'Create Sign-In Token', 'Delete', 'Invite'],
	webhook: ['Create', 'Delete', 'Get', 'Get Deliveries', 'Get Event Kinds', 'Get Many', 'Re-Enable', 'Redeliver', 'Send Test', 'Update'],
};

test('the node is declarative, usable as a tool, with light and dark icons', () => {
	expect(description.name).toBe('socialAggregator');
	expect(description.displayName).toBe('Social Aggregator');
	expect(description.usableAsTool).toBe(true);
	expect(description.icon).toEqual({ light: 'file:socialAggregator.svg', dark: 'file:socialAggregator.dark.svg' });
	expect(description.requestDefaults?.baseURL).toBe('={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}');
	expect('execute' in new SocialAggregator()).toBe(false);
});

test('every resource has the operations of issue 4, sorted, with actions', () => {
	const resource = description.properties.find((p) => p.name === 'resource')!;
	expect(resource.noDataExpression).toBe(true);
	const resources = (resource.options as INodePropertyOptions[]).map((o) => o.value);
	expect([...resources].sort()).toEqual(Object.keys(EXPECTED).sort());
	for (const [name, operations] of Object.entries(EXPECTED)) {
		const options = operationsOf(name);
		expect(options.map((o) => o.name)).toEqual(operations);
		for (const option of options) {
			expect(option.action).toMatch(/^[A-Z][a-z]/);
			expect(option.description).toBeTruthy();
		}
	}
});

test('every operation is sent by the routing send function (retries, paging, errors, pairing)', () => {
	for (const name of Object.keys(EXPECTED)) {
		for (const option of operationsOf(name)) {
			const routing = option.routing!;
			expect([name, option.value, typeof routing.operations?.pagination]).toEqual([name, option.value, 'function']);
			expect(routing.send?.paginate).toBe(true);
			expect(routing.request?.method).toMatch(/^(GET|POST|PUT|PATCH|DELETE)$/);
		}
	}
});

test('every list has Return All and Limit', () => {
	const lists = Object.entries(EXPECTED).flatMap(([resource, operations]) =>
		operationsOf(resource)
			.filter((o) => ['Get Many', 'Search Across Feeds', 'Get Deliveries'].includes(o.name))
			.map((o) => [resource, o.value as string]),
	);
	expect(lists).toHaveLength(8);
	const shown = (property: INodeProperties, resource: string, operation: string) =>
		property.displayOptions?.show?.resource?.includes(resource) && property.displayOptions?.show?.operation?.includes(operation);
	for (const [resource, operation] of lists) {
		const returnAll = description.properties.find((p) => p.name === 'returnAll' && shown(p, resource, operation));
		const limit = description.properties.find((p) => p.name === 'limit' && shown(p, resource, operation));
		expect([resource, operation, returnAll?.type, limit?.type, limit?.displayOptions?.show?.returnAll]).toEqual([
			resource,
			operation,
			'boolean',
			'number',
			[false],
		]);
	}
});
