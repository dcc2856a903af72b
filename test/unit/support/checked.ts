import type { Checked, InputRefusal } from '../../../nodes/shared/refusal';

/** The refusal of a check that must refuse. */
export function refusal<T>(checked: Checked<T>): InputRefusal {
	if (checked.ok) throw new Error(`expected a refusal, got ${JSON.stringify(checked.value)}`);
	return checked.refusal;
}

/** Every fault of a check that must refuse, the first one first. */
export function faults<T>(checked: Checked<T>): InputRefusal[] {
	return [refusal(checked), ...(checked.ok ? [] : (checked.also ?? []))];
}

/** The value of a check that must pass. */
export function value<T>(checked: Checked<T>): T {
	if (!checked.ok) throw new Error(`expected success, got ${JSON.stringify(checked.refusal)}`);
	return checked.value;
}
