'use strict';
/**
 * A resolver and a router of the test's own, loaded into n8n's processes with
 * `NODE_OPTIONS=--require <this file>` (lib/egress.ts writes the settings to `E2E_EGRESS`):
 *
 * - `hosts`: names answered by `dns.lookup` and `dns.promises.lookup` (every form: a family,
 *   `{ all: true }`), as a hosts file would; other names go to the system's resolver.
 * - `routes`: connections to an address (or a name, before Node resolves it), on one port or
 *   any, go to a port on 127.0.0.1 instead: a made-up public address reaches a local TLS
 *   server, and a private or loopback address reaches the recording server that counts them.
 *   Only the socket's destination changes: TLS still checks the certificate against the name
 *   the client asked for, with the CA in NODE_EXTRA_CA_CERTS.
 * - `log`: one JSON line per lookup answered and per connection made, for the test to read.
 */
const dns = require('node:dns');
const fs = require('node:fs');
const net = require('node:net');
const { syncBuiltinESMExports } = require('node:module');

const settings = JSON.parse(process.env.E2E_EGRESS || '{}');
const hosts = settings.hosts || {};
const routes = settings.routes || [];

function record(entry) {
	if (!settings.log) return;
	try {
		fs.appendFileSync(settings.log, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
	} catch {
		// the log is evidence for the test, never a reason for n8n to fail
	}
}

function known(hostname) {
	const name = String(hostname).toLowerCase().replace(/\.$/, '');
	return Object.prototype.hasOwnProperty.call(hosts, name) ? { name, address: hosts[name] } : undefined;
}

function answer(address, options) {
	const family = net.isIP(address);
	const all = typeof options === 'object' && options !== null && options.all === true;
	return all ? [{ address, family }] : { address, family };
}

const systemLookup = dns.lookup;
dns.lookup = function lookup(hostname, options, callback) {
	const done = typeof options === 'function' ? options : callback;
	const mapped = known(hostname);
	if (!mapped) return systemLookup.apply(this, arguments);
	record({ kind: 'lookup', name: mapped.name, address: mapped.address });
	const result = answer(mapped.address, typeof options === 'function' ? undefined : options);
	process.nextTick(() => (Array.isArray(result) ? done(null, result) : done(null, result.address, result.family)));
	return {};
};

const systemPromisesLookup = dns.promises.lookup;
dns.promises.lookup = async function lookup(hostname, options) {
	const mapped = known(hostname);
	if (!mapped) return await systemPromisesLookup.call(this, hostname, options);
	record({ kind: 'lookup', name: mapped.name, address: mapped.address });
	return answer(mapped.address, options);
};

syncBuiltinESMExports();

/** Where a connection to host:port goes instead, if a route says so. */
function routeOf(host, port) {
	const name = String(host || '').replace(/^\[|\]$/g, '').toLowerCase();
	const address = (known(name) || {}).address || name;
	return routes.find((route) => (route.host === address || route.host === name) && (route.port === undefined || route.port === Number(port)));
}

// Every client connection passes Socket#connect: net.connect and http's agents with
// ([options, callback]) normalized, tls.connect with an options object of its own.
const socketConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
	const options = Array.isArray(args[0]) ? args[0][0] : args[0];
	if (options !== null && typeof options === 'object' && options.path == null && options.port != null) {
		const route = routeOf(options.host, options.port);
		record({ kind: 'connect', host: String(options.host), port: Number(options.port), to: route ? route.to : undefined });
		if (route) {
			options.host = '127.0.0.1';
			options.port = route.to;
		}
	} else if (typeof options === 'number' || (typeof options === 'string' && /^\d+$/.test(options))) {
		const host = typeof args[1] === 'string' ? args[1] : 'localhost';
		const route = routeOf(host, options);
		record({ kind: 'connect', host, port: Number(options), to: route ? route.to : undefined });
		if (route) {
			args[0] = route.to;
			if (typeof args[1] === 'string') args[1] = '127.0.0.1';
			else args.splice(1, 0, '127.0.0.1');
		}
	}
	return socketConnect.apply(this, args);
};
