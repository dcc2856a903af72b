// A feed's remembered post IDs as one short text for n8n's static data. IDs grow as the service stores posts, so a
// feed's remembered IDs are mostly runs and small gaps: each is written as the gap from the one before, in base 32,
// every digit but a number's last from CONTINUE and its last from END, so numbers need no separator. A gap of 0
// never occurs between two IDs; it means "a run follows": the next number says how many IDs each one above the last.
// 20,000 IDs of one status in a feed of mixed statuses take about 21 KB; a run of any length a few characters.

const END = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef';
const CONTINUE = 'ghijklmnopqrstuvwxyz0123456789-_';

function writeNumber(value: number): string {
	let digits = END[value % 32];
	for (let rest = Math.floor(value / 32); rest > 0; rest = Math.floor(rest / 32)) digits = CONTINUE[rest % 32] + digits;
	return digits;
}

/** More IDs than any memory keeps: text that says more is not ours. */
const MAX_DECODED = 1_000_000;

/** Ascending, distinct, non-negative safe integers as text (what `decodeIds` reads back). */
export function encodeIds(ids: readonly number[]): string {
	let text = '';
	let previous: number | undefined;
	for (let i = 0; i < ids.length; i++) {
		const id = ids[i];
		if (previous === undefined) {
			text += writeNumber(id);
		} else {
			let run = 0;
			while (i + run < ids.length && ids[i + run] === previous + run + 1) run++;
			if (run >= 2) {
				text += writeNumber(0) + writeNumber(run);
				i += run - 1;
				previous += run;
				continue;
			}
			text += writeNumber(id - previous);
		}
		previous = id;
	}
	return text;
}

/** The IDs `encodeIds` wrote, ascending; undefined for text it did not write (the memory is then not trusted). */
export function decodeIds(text: string): number[] | undefined {
	const numbers: number[] = [];
	let value = 0;
	let open = false;
	for (const char of text) {
		const end = END.indexOf(char);
		if (end >= 0) {
			numbers.push(value * 32 + end);
			value = 0;
			open = false;
			continue;
		}
		const more = CONTINUE.indexOf(char);
		if (more < 0) return undefined;
		value = value * 32 + more;
		open = true;
		if (!Number.isSafeInteger(value * 32)) return undefined;
	}
	if (open) return undefined;
	const ids: number[] = [];
	for (let i = 0; i < numbers.length; i++) {
		if (ids.length === 0) {
			ids.push(numbers[i]);
		} else if (numbers[i] === 0) {
			const run = numbers[++i];
			if (run === undefined || ids.length + run > MAX_DECODED) return undefined;
			const last = ids[ids.length - 1];
			for (let step = 1; step <= run; step++) ids.push(last + step);
		} else {
			ids.push(ids[ids.length - 1] + numbers[i]);
		}
	}
	return ids.every(Number.isSafeInteger) ? ids : undefined;
}
