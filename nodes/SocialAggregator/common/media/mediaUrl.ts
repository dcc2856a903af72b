import type { IHttpRequestOptions } from 'n8n-workflow';

import { classifyAddress, kindText } from './ipAddress';

// Where a medium may be fetched from: every hop (the first URL and each redirect) a public address over https unless
// the user allows private hosts, and the connection to the address that was checked.

/**
 * Why a media URL may not be fetched, before any lookup: not a web address, a user name in it, an IP address that
 * is not public, or plain http; with `allowPrivateNetwork`, any http(s) address without a user name.
 */
export function mediaUrlProblem(value: unknown, allowPrivateNetwork = false): string | undefined {
	const url = typeof value === 'string' ? value.trim() : '';
	if (url === '') return 'it has no URL';
	if (!URL.canParse(url)) return 'its URL is not a web address';
	const parsed = new URL(url);
	if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `its URL is not an https address (${parsed.protocol})`;
	if (parsed.username || parsed.password) return 'its URL carries a user name or password';
	if (allowPrivateNetwork) return undefined;
	// The URL parser has already rewritten 2130706433, 0x7f.1 and 127.1 to 127.0.0.1.
	const literal = classifyAddress(parsed.hostname);
	if (literal && literal.kind !== 'public') return `its address ${literal.address} is ${kindText(literal)}`;
	if (parsed.protocol === 'http:') return 'its URL uses plain http; media are fetched over https only';
	return undefined;
}

/** All addresses of a host name, by n8n's own lookup (which applies the instance's SSRF rules as well). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** Where one hop's request goes: the address checked, with the name the host is asked by and TLS verifies. */
export interface Hop {
	/** The URL as the post or a redirect gave it. */
	url: string;
	/** The URL connected to: the checked IP address in place of a host name. */
	target: string;
	/** The host (and port) the request names, for a target that is an address in place of the name. */
	host?: string;
	/** The name TLS asks for and checks the certificate against. */
	servername?: string;
	/** Whether the answer's remote address must be checked before anything of it is read (no lookup was possible). */
	checkRemote: boolean;
}

/**
 * The hop to `url`, its address checked: an IP address in the URL as it is, a host name through `resolve` (every
 * address it has must be public, and the request goes to the first of them, so no second lookup can answer
 * otherwise). Without `resolve` (n8n before 2.0 offers a node no lookup), a host name is connected to by name and
 * the address it answered from is checked before anything of the answer is read. `allowPrivateNetwork` sends the
 * URL as it is. A refusal's reason completes "Could not download … from <url>: ".
 */
export async function planHop(url: string, resolve: ResolveHost | undefined, allowPrivateNetwork: boolean): Promise<Hop | { refused: string }> {
	const parsed = new URL(url);
	const literal = classifyAddress(parsed.hostname);
	if (literal && literal.kind !== 'public' && !allowPrivateNetwork) return { refused: `its address ${literal.address} is ${kindText(literal)}` };
	if (allowPrivateNetwork || literal) return { url, target: parsed.href, checkRemote: false };
	if (!resolve) return { url, target: parsed.href, checkRemote: true };
	let addresses: string[];
	try {
		addresses = await resolve(parsed.hostname);
	} catch (error) {
		return { refused: `its host could not be resolved (${error instanceof Error ? error.message : String(error)})` };
	}
	if (addresses.length === 0) return { refused: 'its host has no address' };
	for (const address of addresses) {
		const found = classifyAddress(address);
		if (!found) return { refused: `its host resolves to ${address}, which is not an IP address` };
		if (found.kind !== 'public') return { refused: `its host resolves to ${found.address}, ${kindText(found)}` };
	}
	const pinned = new URL(parsed.href);
	pinned.hostname = addresses[0].includes(':') ? `[${addresses[0]}]` : addresses[0];
	return { url, target: pinned.href, host: parsed.host, servername: parsed.hostname.replace(/\.$/, ''), checkRemote: false };
}

/** The address an answer came from, where its body is the socket's own stream; undefined when that is not known. */
export function remoteAddress(body: unknown): string | undefined {
	const socket = (body as { socket?: { remoteAddress?: unknown } } | null)?.socket;
	return typeof socket?.remoteAddress === 'string' ? socket.remoteAddress : undefined;
}

/** The request for one hop: a GET with no credential and no header of the node's, the body as a stream. */
export function mediaRequest(hop: Hop, timeoutMs: number, signal?: AbortSignal): IHttpRequestOptions {
	const request: IHttpRequestOptions = {
		method: 'GET',
		url: hop.target,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Every hop is checked by the same rules, so redirects are followed here rather than by the HTTP client.
		disableFollowRedirect: true,
		timeout: timeoutMs,
	};
	if (signal) request.abortSignal = signal;
	// The connection goes to the checked address; the host is still asked for by its name, and TLS checks the
	// certificate against that name (n8n keeps a servername given for an address).
	if (hop.host) request.headers = { Host: hop.host };
	if (hop.servername) request.agentOptions = { servername: hop.servername };
	return request;
}
