/**
 * On Platform Failure and Platform Retries, the options both Data API operations share: what they read as (within
 * the option's bounds, whatever an expression gives), and the error of Fail the Item.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { INodePropertyOptions } from 'n8n-workflow';

import {
	onPlatformFailureOption,
	platformFailedError,
	platformFailureChoices,
	platformRetriesOption,
} from '../../../../nodes/SocialAggregatorData/common/platformFailure';
import { NODE } from '../../support/context';

const choices = onPlatformFailureOption.options as INodePropertyOptions[];
const maxRetries = Number(platformRetriesOption.typeOptions?.maxValue);

describe('platformFailureChoices', () => {
	test('the options’ defaults: continue with status items, the default number of retries', () => {
		expect(platformFailureChoices({})).toEqual({ failItem: false, maxPlatformRetries: platformRetriesOption.default });
		expect(platformFailureChoices({ onPlatformFailure: onPlatformFailureOption.default })).toMatchObject({ failItem: false });
	});

	test('only "fail" fails the item', () => {
		expect(platformFailureChoices({ onPlatformFailure: 'fail' }).failItem).toBe(true);
		for (const onPlatformFailure of ['continue', 'Fail', true, 1, null]) {
			expect(platformFailureChoices({ onPlatformFailure }).failItem).toBe(false);
		}
	});

	test('every choice the dropdown offers is read: one fails the item, one continues', () => {
		expect(choices.map((c) => platformFailureChoices({ onPlatformFailure: c.value }).failItem).sort()).toEqual([false, true]);
	});

	test.each([
		[0, 0],
		[3, 3],
		['4', 4],
		[2.9, 2],
		[-1, 0],
		[99, maxRetries],
		[Number.POSITIVE_INFINITY, maxRetries],
	])('%p retries are read as %p, within the option’s 0 to its maximum', (platformRetries, expected) => {
		expect(platformFailureChoices({ platformRetries }).maxPlatformRetries).toBe(expected);
	});

	test.each([[null], [undefined], [''], ['many'], [Number.NaN], [{}]])('retries of %p are the default', (platformRetries) => {
		expect(platformFailureChoices({ platformRetries } as never).maxPlatformRetries).toBe(platformRetriesOption.default);
	});

	test('the option’s bounds are the ones the choices keep to', () => {
		expect(platformRetriesOption.typeOptions?.minValue).toBe(0);
		expect(platformFailureChoices({ platformRetries: maxRetries }).maxPlatformRetries).toBe(maxRetries);
		expect(platformFailureChoices({ platformRetries: maxRetries + 1 }).maxPlatformRetries).toBe(maxRetries);
	});
});

describe('platformFailedError: Fail the Item', () => {
	const continueChoice = choices.find((c) => platformFailureChoices({ onPlatformFailure: c.value }).failItem === false)!;

	test('names the platform by its label, the service’s message and code, for the item', () => {
		const error = platformFailedError(NODE, 2, 'Twitter', { code: 'fetch_timeout', message: 'The platform did not answer' }, 'Failed platforms: Twitter (fetch_timeout).', 'posts');
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('X (Twitter) failed: The platform did not answer (fetch_timeout)');
		expect(error.context.itemIndex).toBe(2);
	});

	test('the description says why, then how to keep the other platforms’ results, by the option’s own names', () => {
		const error = platformFailedError(NODE, 0, 'Bluesky', { code: 'platform_error', message: 'Boom' }, 'The platform failed 3 times in a row.', 'profiles');
		expect(error.description).toMatch(/^The platform failed 3 times in a row\. To keep the other platforms’ profiles, /);
		expect(error.description).toContain(`Options → ${onPlatformFailureOption.displayName}`);
		expect(error.description).toContain(`“${continueChoice.name}”`);
	});

	test('a blank message from the service reads as its code', () => {
		expect(platformFailedError(NODE, 0, 'Reddit', { code: 'fetch_timeout', message: '  ' }, 'Why.', 'posts').message).toBe(
			'Reddit failed: fetch_timeout (fetch_timeout)',
		);
	});

	test('a failure without a message or code reads as a platform error', () => {
		expect(platformFailedError(NODE, 0, 'Reddit', undefined, 'Why.', 'posts').message).toBe('Reddit failed: platform_error (platform_error)');
		expect(platformFailedError(NODE, 0, 'Reddit', { code: 'rate_limited' }, 'Why.', 'posts').message).toBe('Reddit failed: rate_limited (rate_limited)');
		expect(platformFailedError(NODE, 0, 'Google', { message: 'No such place' }, 'Why.', 'profiles').message).toBe(
			'Google Reviews failed: No such place (platform_error)',
		);
	});

	test('a platform outside the table is named as given', () => {
		expect(platformFailedError(NODE, 0, 'Friendster', { code: 'x', message: 'gone' }, 'Why.', 'posts').message).toBe('Friendster failed: gone (x)');
	});
});
