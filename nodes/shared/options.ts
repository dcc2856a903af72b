import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

import { isObject } from './utils';

// Dropdown options from the service's answers, whatever shape a list comes in: the pure half of loadOptions.ts.

/** Text an option can show or send; what would render blank or as a placeholder is none. */
function optionText(value: unknown): string | undefined {
	if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	return text && !['undefined', 'null', '[object Object]'].includes(text) ? text : undefined;
}

/** The first of `fields` in `entry` that holds text; a bare string or number is its own text. */
export function fieldText(entry: unknown, fields: string[]): string | undefined {
	if (!isObject(entry)) return optionText(entry);
	return fields.map((field) => optionText(entry[field])).find((text) => text !== undefined);
}

/** The list in an answer: the answer itself, its `data`, or a list under one of `keys` in `data` or the answer. */
export function listIn(answer: unknown, keys: string[] = []): unknown[] {
	return findList(answer, keys) ?? [];
}

/** `listIn`'s list, or none when the answer holds no list at all (an empty list is a list). */
export function findList(answer: unknown, keys: string[]): unknown[] | undefined {
	if (Array.isArray(answer)) return answer;
	const data = isObject(answer) ? answer.data : undefined;
	if (Array.isArray(data)) return data;
	const holders = [data, answer].filter(isObject);
	const lists = holders.flatMap((holder) => [...keys, 'items', 'results'].map((key) => holder[key]));
	return lists.find(Array.isArray) as unknown[] | undefined;
}

/** Where an entry keeps an option's parts; the first field with text wins. */
export interface OptionFields {
	value: string[];
	/** The label; the value when none holds text. */
	name?: string[];
	/** Builds the label from the name found (none for a bare entry), the value and the entry. */
	label?: (name: string | undefined, value: string, entry: IDataObject) => string;
	description?: (entry: IDataObject) => string | undefined;
}

/** An entry (a bare value or an object) as an option; none when nothing can be picked, as a blank would send nothing. */
export function toOption(entry: unknown, fields: OptionFields): INodePropertyOptions | undefined {
	const value = fieldText(entry, fields.value);
	if (value === undefined) return undefined;
	const object = isObject(entry) ? entry : {};
	const name = fields.name && isObject(entry) ? fieldText(entry, fields.name) : undefined;
	const description = fields.description?.(object);
	return {
		name: fields.label ? fields.label(name, value, object) : name ?? value,
		value,
		...(description ? { description } : {}),
	};
}

/** Entries as options, leaving out those that cannot be picked and repeats of a value. */
export function toOptions(entries: unknown[], fields: OptionFields): INodePropertyOptions[] {
	const options = new Map<string, INodePropertyOptions>();
	for (const entry of entries) {
		const option = toOption(entry, fields);
		if (option && !options.has(String(option.value))) options.set(String(option.value), option);
	}
	return [...options.values()];
}
