// Whether an IP address is on the public internet, or on this machine, its network, or a range set aside. Media
// URLs are written by whoever posted, and the node runs inside the user's network: only public addresses are
// fetched unless the user opens the private ones up. Pure functions, no lookups: the caller resolves names.

import { parseIPv4, parseIPv6 } from './ipParse';

/** What an address is, `public` for the internet's. */
type AddressKind =
	| 'public'
	| 'loopback'
	| 'private'
	| 'link-local'
	| 'shared'
	| 'unspecified'
	| 'multicast'
	| 'broadcast'
	| 'documentation'
	| 'benchmarking'
	| 'reserved'
	| 'unique-local'
	| 'site-local';

export interface AddressClass {
	/** The address as given (brackets and zone kept out). */
	address: string;
	kind: AddressKind;
	/** The IPv4 address an IPv6 one carries (IPv4-mapped, NAT64, 6to4 …), when that decided its kind. */
	embedded?: string;
}

const KIND_TEXT: Record<Exclude<AddressKind, 'public'>, string> = {
	loopback: 'a loopback address (this machine)',
	private: 'a private address',
	'link-local': 'a link-local address',
	shared: 'a shared address (carrier-grade NAT)',
	unspecified: 'an unspecified address',
	multicast: 'a multicast address',
	broadcast: 'the broadcast address',
	documentation: 'a documentation address',
	benchmarking: 'a benchmarking address',
	reserved: 'a reserved address',
	'unique-local': 'a unique local address (private)',
	'site-local': 'a site-local address (private)',
};

/** "a private address", "a loopback address (this machine), as IPv4 127.0.0.1": what a refusal says of an address. */
export function kindText(found: AddressClass): string {
	if (found.kind === 'public') return 'a public address';
	const text = KIND_TEXT[found.kind];
	return found.embedded ? `${text}, as IPv4 ${found.embedded}` : text;
}

/** An address without the brackets of a URL host and without a zone id (`%eth0`, `%25eth0` as a URL writes it). */
function bare(text: string): { address: string; zone: boolean } {
	const unbracketed = text.trim().replace(/^\[(.*)\]$/, '$1');
	const at = unbracketed.indexOf('%');
	return at >= 0 ? { address: unbracketed.slice(0, at), zone: true } : { address: unbracketed, zone: false };
}

// ---------------------------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------------------------

/** The kind of an IPv4 address by its bytes (IANA's special-purpose registry). */
function ipv4Kind([a, b, c, d]: number[]): AddressKind {
	if (a === 0) return 'unspecified';
	if (a === 10) return 'private';
	if (a === 100 && b >= 64 && b <= 127) return 'shared';
	if (a === 127) return 'loopback';
	if (a === 169 && b === 254) return 'link-local';
	if (a === 172 && b >= 16 && b <= 31) return 'private';
	if (a === 192 && b === 0 && c === 0) return 'reserved';
	if (a === 192 && b === 0 && c === 2) return 'documentation';
	if (a === 192 && b === 88 && c === 99) return 'reserved';
	if (a === 192 && b === 168) return 'private';
	if (a === 198 && (b === 18 || b === 19)) return 'benchmarking';
	if (a === 198 && b === 51 && c === 100) return 'documentation';
	if (a === 203 && b === 0 && c === 113) return 'documentation';
	if (a >= 224 && a <= 239) return 'multicast';
	if (a === 255 && b === 255 && c === 255 && d === 255) return 'broadcast';
	if (a >= 240) return 'reserved';
	return 'public';
}

const dotted = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255];

/** The kind of an IPv6 address by its words, and the IPv4 address that decided it where one is embedded. */
function ipv6Kind(w: number[]): { kind: AddressKind; embedded?: number[] } {
	const zeroUpTo = (n: number) => w.slice(0, n).every((x) => x === 0);
	// The embedded IPv4's kind when it is not public; `otherwise` when it is.
	const byEmbedded = (v4: number[], otherwise: AddressKind) => {
		const kind = ipv4Kind(v4);
		return { kind: kind === 'public' ? otherwise : kind, embedded: v4 };
	};
	if (zeroUpTo(8)) return { kind: 'unspecified' };
	if (zeroUpTo(7) && w[7] === 1) return { kind: 'loopback' };
	// ::ffff:a.b.c.d is the IPv4 address itself to a dual-stack socket.
	if (zeroUpTo(5) && w[5] === 0xffff) return byEmbedded(dotted(w[6], w[7]), 'public');
	// ::a.b.c.d (IPv4-compatible, deprecated) and ::ffff:0:a.b.c.d (IPv4-translated): never an internet host.
	if (zeroUpTo(6)) return byEmbedded(dotted(w[6], w[7]), 'reserved');
	if (zeroUpTo(4) && w[4] === 0xffff && w[5] === 0) return byEmbedded(dotted(w[6], w[7]), 'reserved');
	// 64:ff9b::/96, NAT64's well-known prefix, reaches the IPv4 address it carries.
	if (w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0)) return byEmbedded(dotted(w[6], w[7]), 'public');
	// 64:ff9b:1::/48, NAT64 for a local network.
	if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 1) return { kind: 'private' };
	if (w[0] === 0x2001 && w[1] === 0xdb8) return { kind: 'documentation' };
	if (w[0] === 0x2001 && w[1] === 2 && w[2] === 0) return { kind: 'benchmarking' };
	// 2001::/23: protocol assignments (Teredo, ORCHID …), no plain internet host.
	if (w[0] === 0x2001 && w[1] < 0x200) return { kind: 'reserved' };
	// 2002::/16, 6to4: the IPv4 address it carries is the one reached.
	if (w[0] === 0x2002) return byEmbedded(dotted(w[1], w[2]), 'public');
	if (w[0] === 0x3fff && w[1] < 0x1000) return { kind: 'documentation' };
	if ((w[0] & 0xfe00) === 0xfc00) return { kind: 'unique-local' };
	if ((w[0] & 0xffc0) === 0xfe80) return { kind: 'link-local' };
	if ((w[0] & 0xffc0) === 0xfec0) return { kind: 'site-local' };
	if ((w[0] & 0xff00) === 0xff00) return { kind: 'multicast' };
	// Only 2000::/3 is handed out for the internet.
	if ((w[0] & 0xe000) !== 0x2000) return { kind: 'reserved' };
	return { kind: 'public' };
}

/**
 * The class of an IP address (`10.0.0.7`, `[::1]`, `fe80::1%eth0`, `0x7f.1`), or undefined when the text is a host
 * name and not an address. An address with a zone id is link-scoped whatever its bits say.
 */
export function classifyAddress(text: string): AddressClass | undefined {
	const { address, zone } = bare(text);
	const words = parseIPv6(address);
	const bytes = words ? undefined : parseIPv4(address);
	if (!words && !bytes) return undefined;
	const { kind, embedded } = words ? ipv6Kind(words) : { kind: ipv4Kind(bytes as number[]), embedded: undefined };
	const found: AddressClass = { address, kind: zone && kind === 'public' ? 'link-local' : kind };
	if (embedded) found.embedded = embedded.join('.');
	return found;
}
