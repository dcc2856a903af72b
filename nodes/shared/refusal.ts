import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

/** Input refused before any request (and any credit) is spent: pure checks answer a `Checked` value. */

/** Why an input was refused: the parameter, the platform when one is at fault, and the reason. */
export interface InputRefusal {
	field: string;
	platform?: string;
	reason: string;
	/** What the user can do about it. */
	hint?: string;
}

/** A checked input; a refusal names the first fault, `also` any further ones. */
export type Checked<T> = { ok: true; value: T } | { ok: false; refusal: InputRefusal; also?: InputRefusal[] };

export function refuse<T>(refusal: InputRefusal): Checked<T> {
	return { ok: false, refusal };
}

/** A refusal as one sentence naming the field, the item (where there is one) and the platform. */
function describeRefusal(refusal: InputRefusal, itemIndex?: number): string {
	const where = [
		itemIndex === undefined ? undefined : `item ${itemIndex}`,
		refusal.platform ? `platform ${refusal.platform}` : undefined,
	].filter(Boolean);
	return `Invalid ${refusal.field}${where.length > 0 ? ` (${where.join(', ')})` : ''}: ${refusal.reason}`;
}

/** A refusal as n8n's error: field, item, platform and reason; the description has the hint and any further faults. */
export function refusalError(
	node: INode,
	refusal: InputRefusal,
	itemIndex?: number,
	also: InputRefusal[] = [],
): NodeOperationError {
	const error = new NodeOperationError(node, describeRefusal(refusal, itemIndex), {
		itemIndex,
		description: [
			refusal.hint,
			also.length > 0 ? `Also: ${also.map((r) => describeRefusal(r, itemIndex)).join('; ')}.` : undefined,
			'Nothing was sent to the service, so no credits were spent.',
		]
			.filter(Boolean)
			.join(' '),
	});
	error.context.field = refusal.field;
	if (refusal.platform) error.context.platform = refusal.platform;
	return error;
}

/** What a check let through, or its refusal thrown as the error n8n shows. */
export function validOrThrow<T>(node: INode, checked: Checked<T>, itemIndex?: number): T {
	if (!checked.ok) throw refusalError(node, checked.refusal, itemIndex, checked.also);
	return checked.value;
}
