/**
 * The credit hints where Data API pages are chosen: the price table matches the stand-in's
 * (docs/service.md#credits), and the hint shows where the user picks platforms and Return All, with
 * what bounds the pages (Limit; Max Pages per Poll for the trigger).
 */
import type { INodeProperties } from 'n8n-workflow';

import { platformCredits } from '../../../nodes/shared/budget';
import { PAGE_COST, platformsField } from '../../../nodes/shared/dataSearchFields';
import { SocialAggregatorData } from '../../../nodes/SocialAggregatorData/SocialAggregatorData.node';
import { SocialAggregatorDataTrigger } from '../../../nodes/SocialAggregatorDataTrigger/SocialAggregatorDataTrigger.node';
import { DATA_PLATFORMS } from '../../fake-service';

test('the price of a page per platform is what the service documents (and the stand-in charges)', () => {
	for (const platform of DATA_PLATFORMS) expect([platform.name, platformCredits(platform.name)]).toEqual([platform.name, platform.credits]);
	expect(PAGE_COST).toBe('Each page a platform returns spends credits: 1 for most platforms, 3 for Instagram, LinkedIn and TikTok, 6 for Facebook.');
});

function shownFor(properties: INodeProperties[], name: string, resource: string, operation: string): INodeProperties {
	const found = properties.find(
		(p) => p.name === name && p.displayOptions?.show?.resource?.includes(resource) && p.displayOptions?.show?.operation?.includes(operation),
	);
	expect([name, resource, operation, found === undefined]).toEqual([name, resource, operation, false]);
	return found!;
}

test('Data › Post › Search: the cost under Platforms and under Return All, which says a Limit bounds it', () => {
	const { properties } = new SocialAggregatorData().description;
	expect(shownFor(properties, 'platforms', 'post', 'search').hint).toBe(PAGE_COST);
	const returnAll = shownFor(properties, 'returnAll', 'post', 'search');
	expect(returnAll.hint).toContain(PAGE_COST);
	expect(returnAll.hint).toMatch(/A Limit fetches only the pages/);
	expect(shownFor(properties, 'limit', 'post', 'search').hint).toMatch(/no page beyond them is fetched, so no credits are spent/);
});

test('Data › Profile › Look Up: the cost under Platforms', () => {
	const { properties } = new SocialAggregatorData().description;
	expect(shownFor(properties, 'platforms', 'profile', 'lookUp').hint).toBe(PAGE_COST);
	expect(platformsField.hint).toBe(PAGE_COST);
});

test('Data Trigger: the cost under Platforms, and the notice names Max Pages per Poll as the bound', () => {
	const { properties } = new SocialAggregatorDataTrigger().description;
	expect(properties.find((p) => p.name === 'platforms')?.hint).toBe(PAGE_COST);
	const notice = properties.find((p) => p.type === 'notice');
	expect(notice?.displayName).toMatch(/credits per platform and page .*Max Pages per Poll, under Options, bounds the pages one poll reads/);
	const options = properties.find((p) => p.name === 'options')?.options as INodeProperties[];
	expect(options.map((o) => o.displayName)).toContain('Max Pages per Poll');
});
