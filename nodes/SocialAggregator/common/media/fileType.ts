// What a downloaded medium is, told by its bytes alone (an image or a video, and its extension), and the name its file gets.

/** The leading bytes read before a body is judged: enough for an SVG's XML prologue or a video's brands. */
export const HEAD_BYTES = 512;

/** An image or a video recognised by its bytes, with the extension its file gets. */
interface MediaType {
	mimeType: string;
	extension: string;
}

const media = (mimeType: string, extension: string): MediaType => ({ mimeType, extension });

/** ISO base media brands (the `ftyp` box) of plain MP4 video. */
const MP4_BRANDS = new Set([
	'isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'mp41', 'mp42', 'mp71', 'avc1', 'av01',
	'dash', 'msnv', 'mmp4', 'f4v ', 'f4p ', 'xavc', '3gp4', '3gp5', '3gp6', '3gp7', '3gp8', '3gp9', '3g2a', '3g2b', '3g2c',
]);
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis']);
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'heif']);
const AUDIO_BRANDS = new Set(['m4a ', 'm4b ', 'm4p ', 'f4a ', 'f4b ']);

/** An ISO base media file (MP4, MOV, HEIC, AVIF …) by the brands of its `ftyp` box. */
function isoMediaType(bytes: Buffer): MediaType | { notMedia: string } {
	const size = Math.min(bytes.readUInt32BE(0), bytes.length);
	const major = bytes.toString('latin1', 8, 12).toLowerCase();
	const brands = [major];
	for (let at = 16; at + 4 <= size; at += 4) brands.push(bytes.toString('latin1', at, at + 4).toLowerCase());
	if (brands.includes('avif') || brands.includes('avis')) return media('image/avif', 'avif');
	if (HEIC_BRANDS.has(major) || (HEIF_BRANDS.has(major) && brands.some((b) => HEIC_BRANDS.has(b)))) return media('image/heic', 'heic');
	if (HEIF_BRANDS.has(major)) return media('image/heif', 'heif');
	if (major === 'qt  ') return media('video/quicktime', 'mov');
	if (major.startsWith('m4v')) return media('video/x-m4v', 'm4v');
	if (AUDIO_BRANDS.has(major)) return { notMedia: 'audio (MPEG-4)' };
	if (brands.some((b) => MP4_BRANDS.has(b))) return media('video/mp4', 'mp4');
	return { notMedia: 'unknown' };
}

/** What text that is not media looks like: HTML, SVG, XML, JSON, JavaScript, a script, or plain text; undefined if binary. */
function textKind(bytes: Buffer): string | undefined {
	const head = bytes.subarray(0, HEAD_BYTES);
	const printable = head.every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b !== 127));
	const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
	if (text.startsWith('<')) {
		if (/^<svg[\s>/]|^<!doctype svg/.test(text) || (/^<(\?xml|!--)/.test(text) && /<svg[\s>/]/.test(text))) return 'SVG (an image that can carry script)';
		if (/^<\?xml/.test(text) && !/<html[\s>]/.test(text)) return 'XML';
		return 'HTML (a web page)';
	}
	if (!printable) return undefined;
	if (text.startsWith('#!')) return 'a script (#!)';
	if (/^[{[]/.test(text)) return 'JSON';
	if (/^(\(\s*function|!function|["']use strict["']|(var|let|const|function|async|import|export|class)[\s{(]|(window|document|self)\.|\/\/|\/\*)/.test(text)) return 'JavaScript';
	return 'plain text';
}

/**
 * What a file's leading bytes are: an image or a video this node keeps (JPEG, PNG, GIF, WebP, BMP, AVIF, HEIC/HEIF,
 * MP4, MOV, M4V, WebM, Matroska), or what else they look like (`unknown` when nothing is recognised). The answer's
 * Content-Type and the URL's extension are not asked: a host may say anything of a file.
 */
export function detectFileType(bytes: Buffer): MediaType | { notMedia: string } {
	const starts = (hex: string, at = 0) => bytes.length >= at + hex.length / 2 && bytes.subarray(at, at + hex.length / 2).equals(Buffer.from(hex, 'hex'));
	const ascii = (text: string, at = 0) => bytes.toString('latin1', at, at + text.length) === text;
	if (starts('ffd8ff')) return media('image/jpeg', 'jpg');
	if (starts('89504e470d0a1a0a')) return media('image/png', 'png');
	if (ascii('GIF87a') || ascii('GIF89a')) return media('image/gif', 'gif');
	if (ascii('RIFF') && ascii('WEBP', 8)) return media('image/webp', 'webp');
	if (ascii('BM') && bytes.length >= 18 && bytes.readUInt32LE(6) === 0 && [12, 40, 52, 56, 64, 108, 124].includes(bytes.readUInt32LE(14))) {
		return media('image/bmp', 'bmp');
	}
	if (bytes.length >= 12 && ascii('ftyp', 4)) return isoMediaType(bytes);
	if (starts('1a45dfa3')) {
		const head = bytes.toString('latin1', 0, 64);
		if (head.includes('webm')) return media('video/webm', 'webm');
		if (head.includes('matroska')) return media('video/x-matroska', 'mkv');
		return { notMedia: 'unknown' };
	}
	if (ascii('MZ')) return { notMedia: 'a Windows program' };
	if (starts('7f454c46')) return { notMedia: 'a Linux program (ELF)' };
	if (['feedface', 'feedfacf', 'cefaedfe', 'cffaedfe', 'cafebabe'].some((magic) => starts(magic))) return { notMedia: 'a program (Mach-O or Java)' };
	if (ascii('%PDF-')) return { notMedia: 'a PDF document' };
	if (starts('504b0304')) return { notMedia: 'a ZIP archive' };
	if (starts('1f8b')) return { notMedia: 'a gzip archive' };
	if (ascii('ID3') || ascii('OggS') || ascii('fLaC') || (ascii('RIFF') && ascii('WAVE', 8))) return { notMedia: 'audio' };
	return { notMedia: textKind(bytes) ?? 'unknown' };
}

/** The longest file name given, extension included. */
const MAX_FILE_NAME = 120;

/** Names Windows keeps for devices, with any extension. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i;

/**
 * A file name safe on every system, ending in `extension`: no control or format characters (a right-to-left
 * override can disguise `gpj.exe`), no path characters, no leading dots, no Windows device name, at most
 * MAX_FILE_NAME characters; the name's own extension gives way to `extension`; `fallback` where nothing is left.
 */
function safeFileName(name: string, extension: string, fallback: string): string {
	const clean = (text: string) =>
		text
			.replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, '')
			.replace(/[\\/:*?"<>|]/g, '_')
			.replace(/\.(?=[a-z0-9]*[a-z])[a-z0-9]{1,5}$/i, '')
			.replace(/^[\s.]+|[\s.]+$/g, '');
	let base = clean(name) || clean(fallback) || 'medium';
	if (WINDOWS_RESERVED.test(base.split('.')[0].trim())) base = `_${base}`;
	const room = MAX_FILE_NAME - extension.length - 1;
	base = Array.from(base).slice(0, room).join('').replace(/[\s.]+$/, '') || 'medium';
	return `${base}.${extension}`;
}

/** The file name: the answer's Content-Disposition, else the URL's last path segment, else `fallback`; made safe, ending in `extension`. */
export function fileNameOf(disposition: string | undefined, url: string, extension: string, fallback: string): string {
	let name = '';
	const encoded = /filename\*\s*=\s*(?:UTF-8|utf-8)?''([^;]+)/.exec(disposition ?? '');
	const plain = /filename\s*=\s*"?([^";]+)"?/.exec(disposition ?? '');
	try {
		if (encoded) name = decodeURIComponent(encoded[1].trim());
		else if (plain) name = plain[1].trim();
		if (name === '' && URL.canParse(url)) name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
	} catch {
		name = '';
	}
	return safeFileName(name, extension, fallback);
}
