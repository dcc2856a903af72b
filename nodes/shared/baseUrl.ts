import { refuse, type Checked } from './refusal';

/** The version prefix every path of the service sits under; the Base URL ends in it (docs/service.md#base-url). */
const VERSION_PREFIX = '/v1';

const HINT = `Enter the address of the API up to and including its version prefix ${VERSION_PREFIX}, for example https://api.example.com${VERSION_PREFIX}.`;

/** Hosts on this machine, the only ones allowed plain http (a local stand-in for the service). */
export function isLoopback(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
	return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The one Base URL check: https unless on this machine, ending in the version prefix; answered without trailing slashes. */
export function checkBaseUrl(value: unknown, field = 'Base URL'): Checked<string> {
	const text = String(value ?? '').trim();
	if (text === '') return refuse({ field, reason: 'the Base URL is empty', hint: HINT });
	if (!URL.canParse(text)) return refuse({ field, reason: `"${text}" is not a web address`, hint: HINT });
	const url = new URL(text);
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return refuse({ field, reason: `"${text}" is not an http(s) address`, hint: HINT });
	}
	if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
		return refuse({
			field,
			reason: `"${text}" uses plain http; the API key must travel over https`,
			hint: `Use https://. Plain http is accepted only for a service on this machine (localhost, 127.0.0.1). ${HINT}`,
		});
	}
	if (url.username || url.password || url.search || url.hash) {
		return refuse({ field, reason: `"${text}" carries a user name, a query or a #fragment`, hint: HINT });
	}
	const path = url.pathname.replace(/\/+$/, '');
	if (!path.endsWith(VERSION_PREFIX)) {
		const at = path.indexOf(`${VERSION_PREFIX}/`);
		const reason =
			at >= 0
				? `"${text}" goes on after the version prefix (${path.slice(at + VERSION_PREFIX.length)}); the Base URL ends at ${VERSION_PREFIX}`
				: `"${text}" does not end in the version prefix ${VERSION_PREFIX}`;
		return refuse({ field, reason, hint: HINT });
	}
	return { ok: true, value: `${url.origin}${path}` };
}
