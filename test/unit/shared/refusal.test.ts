import { NodeOperationError } from 'n8n-workflow';

import { refusalError, type InputRefusal } from '../../../nodes/shared/refusal';
import { NODE } from '../support/context';

/** The refusal's sentence, as n8n's error message shows it. */
const describeRefusal = (refusal: InputRefusal, itemIndex?: number) => refusalError(NODE, refusal, itemIndex).message;

test('a refusal reads as one sentence with the field, the item and the platform', () => {
	expect(describeRefusal({ field: 'Term Type', platform: 'Reddit', reason: 'why' }, 2)).toBe(
		'Invalid Term Type (item 2, platform Reddit): why',
	);
	expect(describeRefusal({ field: 'Term', reason: 'why' }, 0)).toBe('Invalid Term (item 0): why');
});

test('outside an item (a trigger) the refusal names the field and the platform', () => {
	expect(describeRefusal({ field: 'Term Type', platform: 'Reddit', reason: 'why' })).toBe(
		'Invalid Term Type (platform Reddit): why',
	);
	expect(describeRefusal({ field: 'Term', reason: 'why' })).toBe('Invalid Term: why');
});

test('the error keeps the field and platform, gives the hint and says no credits were spent', () => {
	const error = refusalError(NODE, { field: 'Platforms', platform: 'Myspace', reason: 'unknown', hint: 'Choose another.' }, 3);
	expect(error).toBeInstanceOf(NodeOperationError);
	expect(error.message).toBe('Invalid Platforms (item 3, platform Myspace): unknown');
	expect(error.description).toBe('Choose another. Nothing was sent to the service, so no credits were spent.');
	expect(error.context).toMatchObject({ itemIndex: 3, field: 'Platforms', platform: 'Myspace' });
});
