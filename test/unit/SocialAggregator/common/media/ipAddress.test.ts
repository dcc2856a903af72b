/**
 * Which IP addresses are public: every non-public range of IPv4 and IPv6 by its bits, in every spelling a URL or a
 * lookup may give (decimal, octal, hex and short IPv4 forms, IPv6 compressed and expanded, IPv4 inside IPv6, zone
 * ids), and host names left to a lookup. The generated half is seeded: FC_SEED and FC_RUNS as in the other suites.
 */
import fc from 'fast-check';

import { classifyAddress, kindText, type AddressClass } from '../../../../../nodes/SocialAggregator/common/media/ipAddress';

type AddressKind = AddressClass['kind'];

/** Whether a text is an IP address on the public internet, as the media download decides it. */
const isPublicAddress = (text: string) => classifyAddress(text)?.kind === 'public';

const SEED = Number(process.env.FC_SEED ?? 20261125);
const RUNS = Number(process.env.FC_RUNS ?? 1000);

/** The host a URL keeps of a spelling, as the URL parser rewrites it (`0x7f.1` → `127.0.0.1`). */
const hostOf = (spelling: string) => new URL(`https://${spelling}/a.jpg`).hostname;

describe('classifyAddress: each range by its kind', () => {
	test.each<[string, AddressKind]>([
		['0.0.0.0', 'unspecified'],
		['0.1.2.3', 'unspecified'],
		['10.0.0.7', 'private'],
		['10.255.255.255', 'private'],
		['100.64.0.1', 'shared'],
		['100.127.255.254', 'shared'],
		['127.0.0.1', 'loopback'],
		['127.255.0.9', 'loopback'],
		['169.254.169.254', 'link-local'],
		['172.16.0.1', 'private'],
		['172.31.255.255', 'private'],
		['192.0.0.8', 'reserved'],
		['192.0.2.1', 'documentation'],
		['192.88.99.1', 'reserved'],
		['192.168.1.1', 'private'],
		['198.18.0.1', 'benchmarking'],
		['198.19.255.1', 'benchmarking'],
		['198.51.100.7', 'documentation'],
		['203.0.113.9', 'documentation'],
		['224.0.0.1', 'multicast'],
		['239.255.255.250', 'multicast'],
		['240.0.0.1', 'reserved'],
		['255.255.255.255', 'broadcast'],
		['::', 'unspecified'],
		['::1', 'loopback'],
		['fc00::1', 'unique-local'],
		['fd12:3456:789a::1', 'unique-local'],
		['fe80::1', 'link-local'],
		['febf:ffff::1', 'link-local'],
		['fec0::1', 'site-local'],
		['ff02::1', 'multicast'],
		['2001:db8::1', 'documentation'],
		['3fff:0fff::1', 'documentation'],
		['2001:2::1', 'benchmarking'],
		['2001::1', 'reserved'],
		['64:ff9b:1::a00:1', 'private'],
		['100::1', 'reserved'],
		['4000::1', 'reserved'],
		['::ffff:10.0.0.7', 'private'],
		['::ffff:a00:7', 'private'],
		['64:ff9b::7f00:1', 'loopback'],
		['2002:a9fe:a9fe::1', 'link-local'],
		['::7f00:1', 'loopback'],
		['::ffff:0:7f00:1', 'loopback'],
		['::8.8.8.8', 'reserved'],
	])('%s is %s', (address, kind) => {
		expect(classifyAddress(address)?.kind).toBe(kind);
		expect(isPublicAddress(address)).toBe(false);
	});

	test.each([
		'1.1.1.1',
		'8.8.8.8',
		'9.255.255.255',
		'11.0.0.1',
		'100.63.255.255',
		'100.128.0.1',
		'126.255.255.255',
		'128.0.0.1',
		'169.253.1.1',
		'172.15.255.255',
		'172.32.0.1',
		'192.0.1.1',
		'192.167.1.1',
		'192.169.1.1',
		'198.17.1.1',
		'198.20.1.1',
		'203.0.114.1',
		'223.255.255.255',
		'2606:4700::6810:84e5',
		'2a00:1450:4001:80b::200e',
		'2001:4860:4860::8888',
		'3ffe::1',
		'::ffff:8.8.8.8',
		'64:ff9b::808:808',
		'2002:808:808::1',
	])('%s is public', (address) => {
		expect(classifyAddress(address)).toMatchObject({ address, kind: 'public' });
		expect(isPublicAddress(address)).toBe(true);
	});

	test('host names are not addresses: they must be resolved first', () => {
		for (const name of ['cdn.example', 'localhost', 'pbs.twimg.com', '127.0.0.1.nip.io', 'example.com.', '1.2.3.4.5', '08.1.1.1', 'fe80::g']) {
			expect(classifyAddress(name)).toBeUndefined();
			expect(isPublicAddress(name)).toBe(false);
		}
	});

	test('the IPv4 address inside an IPv6 one is named, and every kind has its words', () => {
		const mapped = classifyAddress('[::ffff:7f00:1]');
		expect(mapped).toEqual({ address: '::ffff:7f00:1', kind: 'loopback', embedded: '127.0.0.1' });
		expect(kindText(mapped!)).toBe('a loopback address (this machine), as IPv4 127.0.0.1');
		expect(kindText(classifyAddress('10.0.0.7')!)).toBe('a private address');
		expect(kindText(classifyAddress('100.64.1.1')!)).toBe('a shared address (carrier-grade NAT)');
		expect(kindText(classifyAddress('1.1.1.1')!)).toBe('a public address');
	});

	test('a zone id makes an address link-scoped, in either spelling', () => {
		expect(classifyAddress('fe80::1%eth0')).toEqual({ address: 'fe80::1', kind: 'link-local' });
		expect(classifyAddress('[fe80::1%25eth0]')).toEqual({ address: 'fe80::1', kind: 'link-local' });
		expect(classifyAddress('2606:4700::1%eth0')?.kind).toBe('link-local');
	});
});

describe('40 spellings of non-public addresses, each refused after the URL parser and as written', () => {
	test.each([
		'127.0.0.1',
		'127.1',
		'127.0.1',
		'2130706433',
		'0x7f000001',
		'0x7f.1',
		'0x7F.0x0.0x0.0x1',
		'017700000001',
		'0177.0.0.1',
		'0177.0000.0000.0001',
		'127.000.000.001',
		'127.0.0.1.',
		'0',
		'0x0',
		'0.0.0.0',
		'10.0.0.7',
		'012.0.0.7',
		'0xa.0.0.7',
		'167772167',
		'10.7',
		'169.254.169.254',
		'0xa9.0xfe.0xa9.0xfe',
		'2852039166',
		'0251.0376.0251.0376',
		'169.16689662',
		'172.16.0.1',
		'192.168.0.1',
		'0xc0a80001',
		'3232235521',
		'192.168.1',
		'100.64.0.1',
		'198.18.0.1',
		'224.0.0.1',
		'255.255.255.255',
		'[::1]',
		'[0:0:0:0:0:0:0:1]',
		'[0000:0000:0000:0000:0000:0000:0000:0001]',
		'[::0:1]',
		'[::]',
		'[::ffff:127.0.0.1]',
		'[::ffff:7f00:1]',
		'[0:0:0:0:0:FFFF:7F00:1]',
		'[::ffff:169.254.169.254]',
		'[::ffff:a9fe:a9fe]',
		'[64:ff9b::127.0.0.1]',
		'[64:ff9b::a9fe:a9fe]',
		'[2002:7f00:1::]',
		'[2002:c0a8:101::1]',
		'[::127.0.0.1]',
		'[fc00::1]',
		'[fd00:ec2::254]',
		'[FE80::1]',
		'[fe80:0000:0000:0000:0000:0000:0000:0001]',
		'[fec0::1]',
		'[ff02::1]',
		'[2001:db8::1]',
	])('%s', (spelling) => {
		const host = hostOf(spelling);
		expect(classifyAddress(host)?.kind).not.toBe('public');
		expect(classifyAddress(host)).toBeDefined();
		expect(classifyAddress(spelling)?.kind).not.toBe('public');
	});

	test.each(['[fe80::1%25eth0]', '[fe80::1%eth0]', '[fe80::a:b%251]'])('%s: a zone id is no URL, and link-local as written', (spelling) => {
		expect(URL.canParse(`https://${spelling}/a.jpg`)).toBe(false);
		expect(classifyAddress(spelling)?.kind).toBe('link-local');
	});
});

// ---------------------------------------------------------------------------------------------------------------
// Generated
// ---------------------------------------------------------------------------------------------------------------

const byte = fc.integer({ min: 0, max: 255 });

/** IPv4 ranges that are not public, as [first byte, second-byte range, third-byte range]. */
const NON_PUBLIC_V4: Array<[number, number, number, number, number]> = [
	// a, b from, b to, c from, c to
	[0, 0, 255, 0, 255],
	[10, 0, 255, 0, 255],
	[100, 64, 127, 0, 255],
	[127, 0, 255, 0, 255],
	[169, 254, 254, 0, 255],
	[172, 16, 31, 0, 255],
	[192, 0, 0, 0, 0],
	[192, 0, 0, 2, 2],
	[192, 168, 168, 0, 255],
	[198, 18, 19, 0, 255],
	[198, 51, 51, 100, 100],
	[203, 0, 0, 113, 113],
];

const nonPublicV4 = fc.oneof(
	fc.constantFrom(...NON_PUBLIC_V4).chain(([a, bFrom, bTo, cFrom, cTo]) =>
		fc.tuple(fc.constant(a), fc.integer({ min: bFrom, max: bTo }), fc.integer({ min: cFrom, max: cTo }), byte),
	),
	fc.tuple(fc.integer({ min: 224, max: 255 }), byte, byte, byte),
);

/** First bytes of IPv4 addresses that are public whatever follows. */
const PUBLIC_FIRST = [
	...Array.from({ length: 9 }, (_, i) => i + 1),
	...Array.from({ length: 89 }, (_, i) => i + 11),
	...Array.from({ length: 26 }, (_, i) => i + 101),
	...Array.from({ length: 41 }, (_, i) => i + 128),
	170,
	171,
	...Array.from({ length: 19 }, (_, i) => i + 173),
	...Array.from({ length: 5 }, (_, i) => i + 193),
	...Array.from({ length: 4 }, (_, i) => i + 199),
	...Array.from({ length: 20 }, (_, i) => i + 204),
];
const publicV4 = fc.tuple(fc.constantFrom(...PUBLIC_FIRST), byte, byte, byte);

const hex = (n: number, upper: boolean) => (upper ? n.toString(16).toUpperCase() : n.toString(16));

/** One number in the spellings the URL parser reads: decimal, 0x hex (either case), 0-led octal. */
const numberSpelling = (n: number) =>
	fc.constantFrom('dec', 'hex', 'HEX', 'oct').map((how) =>
		how === 'dec' ? String(n) : how === 'oct' ? `0${n.toString(8)}` : `0${how === 'HEX' ? 'X' : 'x'}${hex(n, how === 'HEX')}`,
	);

/** An IPv4 address spelled as a URL host: 1 to 4 parts, each in any base, maybe a trailing dot. */
const v4Spelling = ([a, b, c, d]: readonly number[]) =>
	fc.tuple(fc.integer({ min: 1, max: 4 }), fc.boolean()).chain(([parts, dot]) => {
		const values =
			parts === 4 ? [a, b, c, d] : parts === 3 ? [a, b, c * 256 + d] : parts === 2 ? [a, b * 65536 + c * 256 + d] : [((a * 256 + b) * 256 + c) * 256 + d];
		return fc.tuple(...values.map(numberSpelling)).map((spelled) => spelled.join('.') + (dot ? '.' : ''));
	});

/** Eight words spelled compressed or expanded, zero-padded or not, in either case, maybe with an IPv4 tail. */
const v6Spelling = (words: readonly number[]) =>
	fc.record({ compress: fc.boolean(), pad: fc.boolean(), upper: fc.boolean(), v4tail: fc.boolean() }).map(({ compress, pad, upper, v4tail }) => {
		const groups = words.map((w) => (pad ? hex(w, upper).padStart(4, '0') : hex(w, upper)));
		if (v4tail) groups.splice(6, 2, `${words[6] >> 8}.${words[6] & 255}.${words[7] >> 8}.${words[7] & 255}`);
		if (compress) {
			// The longest run of zero groups (outside an IPv4 tail) becomes `::`.
			let best = [-1, 0];
			for (let i = 0; i < groups.length; i++) {
				let j = i;
				while (j < groups.length && /^0+$/.test(groups[j])) j++;
				if (j - i > best[1]) best = [i, j - i];
			}
			if (best[1] >= 2) {
				const [at, length] = best;
				return `[${groups.slice(0, at).join(':')}::${groups.slice(at + length).join(':')}]`;
			}
		}
		return `[${groups.join(':')}]`;
	});

const word = fc.integer({ min: 0, max: 0xffff });
const words6 = fc.array(word, { minLength: 7, maxLength: 7 });
const wordsFrom = (first: fc.Arbitrary<number>) => fc.tuple(first, words6).map(([w, rest]) => [w, ...rest]);
const v4Words = ([a, b, c, d]: number[]) => [a * 256 + b, c * 256 + d];

/** IPv6 addresses that are not public: the special ranges, and IPv6 forms that carry a non-public IPv4 address. */
const nonPublicV6: fc.Arbitrary<readonly number[]> = fc.oneof(
	fc.constant([0, 0, 0, 0, 0, 0, 0, 1]),
	fc.constant([0, 0, 0, 0, 0, 0, 0, 0]),
	wordsFrom(fc.integer({ min: 0xfc00, max: 0xfdff })),
	wordsFrom(fc.integer({ min: 0xfe80, max: 0xfebf })),
	wordsFrom(fc.integer({ min: 0xfec0, max: 0xfeff })),
	wordsFrom(fc.integer({ min: 0xff00, max: 0xffff })),
	words6.map((rest) => [0x2001, 0xdb8, ...rest.slice(1)]),
	nonPublicV4.map((v4) => [0, 0, 0, 0, 0, 0xffff, ...v4Words(v4)]),
	nonPublicV4.map((v4) => [0x64, 0xff9b, 0, 0, 0, 0, ...v4Words(v4)]),
	fc.tuple(nonPublicV4, fc.array(word, { minLength: 5, maxLength: 5 })).map(([v4, rest]) => [0x2002, ...v4Words(v4), ...rest]),
	fc.tuple(fc.array(byte, { minLength: 4, maxLength: 4 })).map(([v4]) => [0, 0, 0, 0, 0, 0, ...v4Words(v4)]),
);

const publicV6 = fc.oneof(
	wordsFrom(fc.integer({ min: 0x2400, max: 0x3ffe })),
	publicV4.map((v4) => [0, 0, 0, 0, 0, 0xffff, ...v4Words(v4)]),
	publicV4.map((v4) => [0x64, 0xff9b, 0, 0, 0, 0, ...v4Words(v4)]),
	fc.tuple(publicV4, fc.array(word, { minLength: 5, maxLength: 5 })).map(([v4, rest]) => [0x2002, ...v4Words(v4), ...rest]),
);

const nonPublicSpelling = fc.oneof(nonPublicV4.chain(v4Spelling), nonPublicV6.chain(v6Spelling));
const publicSpelling = fc.oneof(publicV4.chain(v4Spelling), publicV6.chain(v6Spelling));

describe('generated spellings', () => {
	test('a non-public address is refused in any spelling: as the URL parser leaves it, and as written', () => {
		fc.assert(
			fc.property(nonPublicSpelling, (spelling) => {
				const host = hostOf(spelling);
				const found = classifyAddress(host);
				expect(found).toBeDefined();
				expect(found?.kind).not.toBe('public');
				expect(classifyAddress(spelling)?.kind).toBe(found?.kind);
			}),
			{ seed: SEED, numRuns: RUNS },
		);
	});

	test('a public address is accepted in any spelling', () => {
		fc.assert(
			fc.property(publicSpelling, (spelling) => {
				expect(classifyAddress(hostOf(spelling))?.kind).toBe('public');
				expect(isPublicAddress(spelling)).toBe(true);
			}),
			{ seed: SEED, numRuns: RUNS },
		);
	});

	test('a link-local address with a zone id, and any address with one, is not public', () => {
		fc.assert(
			fc.property(fc.oneof(nonPublicV6, publicV6).chain(v6Spelling), fc.stringMatching(/^[a-z0-9]{1,8}$/), fc.boolean(), (spelling, zone, encoded) => {
				const withZone = spelling.replace(/\]$/, `%${encoded ? '25' : ''}${zone}]`);
				expect(isPublicAddress(withZone)).toBe(false);
			}),
			{ seed: SEED, numRuns: RUNS },
		);
	});
});
