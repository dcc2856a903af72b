/**
 * Where n8n's requests go, under the test's control: names that resolve where the test says
 * (a public name, a private one, a loopback one), a TLS host with a real certificate for the
 * public name (a CA made at test time with openssl; n8n trusts it through NODE_EXTRA_CA_CERTS,
 * so certificate checks stay on), and a recording server on loopback that counts every
 * connection and request reaching it. n8n gets it all through `egressEnv()` (its
 * `env`): `NODE_OPTIONS=--require lib/egress-preload.cjs`, which answers `dns.lookup` for the
 * test's names and routes connections, and writes what n8n looked up and connected to.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server, Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { LOOPBACK } from './util';

export const EGRESS_PRELOAD = path.join(__dirname, 'egress-preload.cjs');

/** A request a test server received. */
export interface SeenRequest {
	method: string;
	url: string;
	host: string;
}

/** A server on 127.0.0.1 that answers 200 to anything and counts every connection and request. */
export interface RecordingServer {
	port: number;
	/** TCP connections accepted, whatever came on them (a TLS hello counts). */
	connections(): number;
	requests(): SeenRequest[];
	close(): Promise<void>;
}

/** A TLS host on 127.0.0.1 with a certificate for a name; `answer` writes each reply. */
export interface TlsHost {
	port: number;
	requests(): SeenRequest[];
	close(): Promise<void>;
}

/** A CA and a server certificate signed by it, in a temp folder. */
export interface Certificates {
	/** the temp folder holding them (removed by dispose) */
	dir: string;
	/** the CA certificate (PEM file): NODE_EXTRA_CA_CERTS */
	caFile: string;
	key: string;
	cert: string;
	dispose(): void;
}

/** A name resolved by the preload instead of DNS. */
export type EgressHosts = Record<string, string>;

/** Connections to `host` (an address or a name), on `port` or any port, go to 127.0.0.1:`to`. */
export interface EgressRoute {
	host: string;
	port?: number;
	to: number;
}

/** What the preload wrote: a lookup it answered, or a connection (with its route, if one applied). */
export type EgressEvent =
	| { kind: 'lookup'; pid: number; name: string; address: string }
	| { kind: 'connect'; pid: number; host: string; port: number; to?: number };

function seen(req: IncomingMessage): SeenRequest {
	return { method: req.method ?? '', url: req.url ?? '', host: String(req.headers.host ?? '') };
}

async function listen(server: Server): Promise<number> {
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, LOOPBACK, () => resolve());
	});
	return (server.address() as AddressInfo).port;
}

async function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
	for (const socket of sockets) socket.destroy();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}

export async function startRecordingServer(): Promise<RecordingServer> {
	let connections = 0;
	const requests: SeenRequest[] = [];
	const sockets = new Set<Socket>();
	const server = createHttpServer((req, res) => {
		requests.push(seen(req));
		res.writeHead(200, { 'Content-Type': 'image/jpeg' });
		res.end(Buffer.from('ffd8ffe000104a464946000101ffd9', 'hex'));
	});
	server.on('connection', (socket: Socket) => {
		connections++;
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	// a TLS hello on this plain port is still a connection that reached it
	server.on('clientError', (_error, socket: Socket) => socket.destroy());
	const port = await listen(server);
	return { port, connections: () => connections, requests: () => [...requests], close: async () => await closeServer(server, sockets) };
}

/** A CA (made now, valid two days) and a certificate for `names` signed by it, with openssl. */
export function makeCertificates(names: string[]): Certificates {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'e2e-ca-'));
	const file = (name: string) => path.join(dir, name);
	const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
	const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
	openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=E2E media CA',
		'-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
	openssl(['req', ...ec, '-keyout', 'host.key', '-out', 'host.csr', '-subj', `/CN=${names[0]}`]);
	writeFileSync(
		file('host.ext'),
		[`subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}`, 'basicConstraints=CA:FALSE', 'extendedKeyUsage=serverAuth'].join('\n'),
	);
	openssl(['x509', '-req', '-in', 'host.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'host.crt', '-days', '2',
		'-extfile', 'host.ext']);
	return {
		dir,
		caFile: file('ca.crt'),
		key: readFileSync(file('host.key'), 'utf8'),
		cert: readFileSync(file('host.crt'), 'utf8'),
		dispose: () => rmSync(dir, { recursive: true, force: true }),
	};
}

export async function startTlsHost(
	certificates: Pick<Certificates, 'key' | 'cert'>,
	answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TlsHost> {
	const requests: SeenRequest[] = [];
	const sockets = new Set<Socket>();
	const server = createHttpsServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
		requests.push(seen(req));
		answer(req, res);
	});
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	const port = await listen(server);
	return { port, requests: () => [...requests], close: async () => await closeServer(server, sockets) };
}

/** The environment that gives n8n's processes the test's names, routes and CA; the preload logs to `log`. */
export function egressEnv(options: { hosts: EgressHosts; routes: EgressRoute[]; caFile: string; log: string }): Record<string, string> {
	if (/\s/.test(EGRESS_PRELOAD)) throw new Error(`NODE_OPTIONS cannot --require a path with spaces: ${EGRESS_PRELOAD}`);
	return {
		NODE_OPTIONS: `--require ${EGRESS_PRELOAD}`,
		NODE_EXTRA_CA_CERTS: options.caFile,
		E2E_EGRESS: JSON.stringify({ hosts: options.hosts, routes: options.routes, log: options.log }),
	};
}

/** What the preload wrote so far, oldest first. */
export function readEgressLog(file: string): EgressEvent[] {
	if (!existsSync(file)) return [];
	return readFileSync(file, 'utf8')
		.split('\n')
		.filter((line) => line.trim() !== '')
		.map((line) => JSON.parse(line) as EgressEvent);
}
