// IP addresses in every spelling a URL may carry them, as numbers: what ipAddress.ts classifies.

/** One part of an IPv4 address as the URL standard reads it: decimal, 0x hex or 0-led octal; undefined if none. */
function ipv4Part(part: string): number | undefined {
	if (/^0[xX][0-9a-fA-F]*$/.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
	if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
	if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
	return undefined;
}

/**
 * The four bytes of an IPv4 address in any spelling the URL standard reads as one (`127.1`, `0x7f.1`,
 * `017700000001`, `2130706433`, a trailing dot), so a spelling that reaches no URL is classified the same way.
 */
export function parseIPv4(text: string): number[] | undefined {
	const parts = text.split('.');
	if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
	if (parts.length < 1 || parts.length > 4) return undefined;
	const numbers = parts.map(ipv4Part);
	if (numbers.some((n) => n === undefined)) return undefined;
	const values = numbers as number[];
	const last = values[values.length - 1];
	if (values.slice(0, -1).some((n) => n > 255)) return undefined;
	if (last >= 256 ** (5 - values.length)) return undefined;
	let whole = last;
	values.slice(0, -1).forEach((n, index) => (whole += n * 256 ** (3 - index)));
	return [whole >>> 24, (whole >>> 16) & 255, (whole >>> 8) & 255, whole & 255];
}

/** The eight 16-bit words of an IPv6 address (compressed or not, an IPv4 tail allowed); undefined if it is none. */
export function parseIPv6(text: string): number[] | undefined {
	if (!text.includes(':')) return undefined;
	const halves = text.split('::');
	if (halves.length > 2) return undefined;
	const words = (half: string): number[] | undefined => {
		if (half === '') return [];
		const groups = half.split(':');
		const result: number[] = [];
		for (const [index, group] of groups.entries()) {
			if (index === groups.length - 1 && group.includes('.')) {
				const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(group) ? group.split('.').map(Number) : undefined;
				if (!v4 || v4.some((n) => n > 255)) return undefined;
				result.push(v4[0] * 256 + v4[1], v4[2] * 256 + v4[3]);
			} else if (/^[0-9a-fA-F]{1,4}$/.test(group)) {
				result.push(Number.parseInt(group, 16));
			} else {
				return undefined;
			}
		}
		return result;
	};
	const head = words(halves[0]);
	const tail = halves.length === 2 ? words(halves[1]) : [];
	if (!head || !tail) return undefined;
	if (halves.length === 1) return head.length === 8 ? head : undefined;
	const missing = 8 - head.length - tail.length;
	return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : undefined;
}
