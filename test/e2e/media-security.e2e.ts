/**
 * Post › Download Media fetches only from public addresses, in a real n8n. A post's media URLs
 * are written by whoever posted; n8n runs next to the user's databases, cloud metadata and
 * itself. n8n's processes get a resolver and a router of the test's own (lib/egress.ts):
 * `cdn.media.test` is a public address whose connections reach a local TLS server with a real
 * certificate (a CA made now, trusted through NODE_EXTRA_CA_CERTS), `private.media.test`
 * resolves to 10.0.0.7, `loop.media.test` to 127.0.0.1, and every connection to a loopback,
 * private or metadata address lands on a recording server that counts it. Posts (the stand-in's
 * answers) name media on loopback in several spellings, media that redirect there, and a host
 * name that resolves to a private address: each is an error item naming the post, the URL and
 * why, and the recording server sees no connection at all. Media on the public name download,
 * and with Allow Private Network Hosts the stand-in's own media on loopback download as before.
 * One `n8n execute-batch` runs every workflow.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { SEEDED, type FakeService } from '../fake-service';
import { e2eSuite, node, recordTiming, workflow, type BatchRun, type NodeInput } from './lib';
import {
	egressEnv,
	makeCertificates,
	readEgressLog,
	startRecordingServer,
	startTlsHost,
	type Certificates,
	type EgressEvent,
	type RecordingServer,
	type TlsHost,
} from './lib/egress';

const FEED = SEEDED.feeds.brandMentions;
/** A public address (documentation's example.com); connections to it on 443 reach the local TLS host. */
const PUBLIC_IP = '93.184.216.34';
const CDN = 'cdn.media.test';
/** Resolves to the same public address; the TLS host has no certificate for it. */
const OTHER = 'other.media.test';
const PRIVATE = 'private.media.test';
const PRIVATE_IP = '10.0.0.7';
const LOOP = 'loop.media.test';
const METADATA_IP = '169.254.169.254';

/** A JPEG the public host serves: SOI, a JFIF header, data, EOI. */
const CAT = Buffer.concat([Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'), randomBytes(3000), Buffer.from('ffd9', 'hex')]);

/** A medium that must be refused: its URL as the post gives it, and what the reason must say. */
interface Refusal {
	url: string;
	why: RegExp;
}

interface Cases {
	loopback: Refusal[];
	redirects: Refusal[];
	privateName: Refusal[];
	wrongCertificate: Refusal[];
	publicMedia: string[];
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The URLs of each post, with the recording server's port in them. */
function cases(recordingPort: number): Cases {
	const rec = recordingPort;
	const loop127 = /127\.0\.0\.1/;
	const redirect = (path: string, location: string, address: RegExp): Refusal => ({
		url: `https://${CDN}${path}`,
		why: new RegExp(`redirects to ${escape(location)}.*${address.source}`),
	});
	return {
		loopback: [
			{ url: `http://127.0.0.1:${rec}/secret/a.jpg`, why: loop127 },
			{ url: `https://127.0.0.1:${rec}/secret/a.jpg`, why: loop127 },
			{ url: `https://2130706433:${rec}/secret/a.jpg`, why: loop127 },
			{ url: `https://0x7f.1:${rec}/secret/a.jpg`, why: loop127 },
			{ url: `https://[::ffff:127.0.0.1]:${rec}/secret/a.jpg`, why: /127\.0\.0\.1|::ffff:7f00:1/ },
			{ url: `https://[::1]:${rec}/secret/a.jpg`, why: /::1/ },
			{ url: `https://localhost:${rec}/secret/a.jpg`, why: /127\.0\.0\.1|::1/ },
			{ url: `https://${LOOP}:${rec}/secret/a.jpg`, why: loop127 },
			{ url: `http://${METADATA_IP}/latest/meta-data/a.jpg`, why: /169\.254\.169\.254/ },
		],
		redirects: [
			redirect('/to-http-loopback.jpg', `http://127.0.0.1:${rec}/secret/b.jpg`, loop127),
			redirect('/to-https-loopback.jpg', `https://127.0.0.1:${rec}/secret/c.jpg`, loop127),
			redirect('/to-loop-name.jpg', `https://${LOOP}:${rec}/secret/d.jpg`, loop127),
			redirect('/to-private-name.jpg', `https://${PRIVATE}/secret/e.jpg`, /10\.0\.0\.7/),
			redirect('/to-metadata.jpg', `http://${METADATA_IP}/latest/meta-data/f.jpg`, /169\.254\.169\.254/),
		],
		privateName: [{ url: `https://${PRIVATE}/secret/g.jpg`, why: /10\.0\.0\.7/ }],
		wrongCertificate: [{ url: `https://${OTHER}/cat.jpg`, why: /certificate|altnames|does not match/i }],
		publicMedia: [`https://${CDN}/cat.jpg`, `https://${CDN}/hop.jpg`],
	};
}

/** What the public host answers per path: the JPEG, or a redirect. */
function answerOf(recordingPort: number): (path: string) => { status: number; location?: string } {
	const rec = recordingPort;
	const redirects: Record<string, string> = {
		'/hop.jpg': `https://${CDN}/cat.jpg`,
		'/to-http-loopback.jpg': `http://127.0.0.1:${rec}/secret/b.jpg`,
		'/to-https-loopback.jpg': `https://127.0.0.1:${rec}/secret/c.jpg`,
		'/to-loop-name.jpg': `https://${LOOP}:${rec}/secret/d.jpg`,
		'/to-private-name.jpg': `https://${PRIVATE}/secret/e.jpg`,
		'/to-metadata.jpg': `http://${METADATA_IP}/latest/meta-data/f.jpg`,
	};
	return (path) => (path === '/cat.jpg' ? { status: 200 } : redirects[path] ? { status: 302, location: redirects[path] } : { status: 404 });
}

const feedById = (value: number) => ({ __rl: true, mode: 'id', value: String(value) });
const download = (name: string, postId: number, downloadOptions: Record<string, unknown> = {}, media = 'all'): NodeInput =>
	node(
		'socialAggregator',
		{ resource: 'post', operation: 'downloadMedia', feedId: feedById(FEED), postId: String(postId), media, downloadOptions } as NodeInput['parameters'],
		{ name, onError: 'continueRegularOutput' },
	);
/** The file's bytes as base64 in `json.data`. */
const read = (name: string): NodeInput =>
	node(
		'n8n-nodes-base.extractFromFile',
		{ operation: 'binaryToPropery', binaryPropertyName: 'data', destinationKey: 'data', options: { keepSource: 'both' } },
		{ name, typeVersion: 1.1 },
	);

/** Post IDs of the seeded feed: one per case, and one whose first medium is an image the stand-in serves. */
interface Posts {
	loopback: number;
	redirects: number;
	privateName: number;
	wrongCertificate: number;
	publicMedia: number;
	standIn: { id: number; url: string };
}

/** The stand-in serves media on loopback; each case's post is answered with the case's media in place of its own. */
async function preparePosts(fake: FakeService, media: Cases): Promise<Posts> {
	fake.control.media.serve(true);
	const owner = { Authorization: `Bearer ${fake.control.keys.owner}` };
	const answer = await fetch(`${fake.url}/feeds/${FEED}/posts?per_page=100`, { headers: owner });
	const posts = ((await answer.json()) as { data: Array<{ id: number; media: Array<{ type: string; url: string }> }> }).data;
	const standIn = posts.find((post) => post.media[0]?.type === 'image');
	assert.ok(standIn, 'the seeded feed has no post with an image');
	const others = posts.filter((post) => post.id !== standIn.id).map((post) => post.id);
	assert.ok(others.length >= 5, 'the seeded feed has too few posts');
	const [loopback, redirects, privateName, wrongCertificate, publicMedia] = others;
	const give = async (postId: number, urls: string[]) => {
		const own = await fetch(`${fake.url}/feeds/${FEED}/posts/${postId}`, { headers: owner });
		const body = (await own.json()) as { data: Record<string, unknown> };
		fake.control.answers.add({
			path: `/feeds/${FEED}/posts/${postId}`,
			body: { data: { ...body.data, media: urls.map((url) => ({ type: 'image', url })) } },
			count: 'always',
		});
	};
	await give(loopback, media.loopback.map((m) => m.url));
	await give(redirects, media.redirects.map((m) => m.url));
	await give(privateName, media.privateName.map((m) => m.url));
	await give(wrongCertificate, media.wrongCertificate.map((m) => m.url));
	await give(publicMedia, media.publicMedia);
	return { loopback, redirects, privateName, wrongCertificate, publicMedia, standIn: { id: standIn.id, url: standIn.media[0].url } };
}

describe('Post › Download Media from public addresses only, in a real n8n', () => {
	const env: Record<string, string> = {};
	let recording: RecordingServer;
	let tlsHost: TlsHost;
	let certificates: Certificates;
	let logFile = '';
	let media: Cases;

	// Before e2eSuite's hook: n8n's environment names the servers' ports.
	before(async () => {
		recording = await startRecordingServer();
		certificates = makeCertificates([CDN]);
		const answerFor = answerOf(recording.port);
		tlsHost = await startTlsHost(certificates, (req, res) => {
			const answer = answerFor(new URL(req.url ?? '/', `https://${CDN}`).pathname);
			if (answer.status === 200) res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': String(CAT.length) }).end(CAT);
			else res.writeHead(answer.status, answer.location ? { Location: answer.location } : {}).end();
		});
		logFile = `${certificates.dir}/egress.jsonl`;
		media = cases(recording.port);
		// Any port of a private or metadata address; loopback's other spellings on the recording server's port only
		// (n8n talks to its own task runner on loopback).
		const toRecording = (host: string, port?: number) => ({ host, port, to: recording.port });
		Object.assign(
			env,
			egressEnv({
				hosts: { [CDN]: PUBLIC_IP, [OTHER]: PUBLIC_IP, [PRIVATE]: PRIVATE_IP, [LOOP]: '127.0.0.1' },
				routes: [
					{ host: PUBLIC_IP, port: 443, to: tlsHost.port },
					toRecording(PRIVATE_IP),
					toRecording(METADATA_IP),
					toRecording('::1', recording.port),
					toRecording('0.0.0.0', recording.port),
				],
				caFile: certificates.caFile,
				log: logFile,
			}),
		);
	});

	const ctx = e2eSuite({ env });
	let batch: BatchRun;
	let posts: Posts;
	let egress: EgressEvent[] = [];

	before(
		async () => {
			const fake = ctx.backend.fake!;
			assert.ok(fake, 'these tests need test/fake-service');
			posts = await preparePosts(fake, media);
			batch = await ctx.n8n.runBatch([
				workflow('Media on loopback', [download('Loopback', posts.loopback)]),
				workflow('Media that redirect to loopback', [download('Redirects', posts.redirects)]),
				workflow('Media on a name of a private address', [download('Private Name', posts.privateName)]),
				workflow('Media on a name the certificate does not cover', [download('Wrong Certificate', posts.wrongCertificate)]),
				workflow('Media on a public name', [download('Public', posts.publicMedia), read('Read Public')]),
				workflow('Stand-in media, private hosts allowed', [
					download('Stand-in Allowed', posts.standIn.id, { allowPrivateNetwork: true }, 'first'),
					read('Read Stand-in'),
				]),
				workflow('Stand-in media, private hosts not allowed', [download('Stand-in Refused', posts.standIn.id, {}, 'first')]),
			]);
			egress = readEgressLog(logFile);
			recordTiming(`n8n execute-batch of ${batch.entries.size} media workflows (process wall time)`, batch.wallMs);
		},
		{ timeout: 300_000 },
	);

	after(async () => {
		await recording?.close();
		await tlsHost?.close();
		certificates?.dispose();
	});

	/** Each item of `nodeName` an error item (no file) that names the post, the medium's URL and why. */
	const assertRefused = (workflowName: string, nodeName: string, postId: number, refusals: Refusal[]) => {
		const items = batch.result(workflowName).outputItems(nodeName);
		assert.equal(items.length, refusals.length, JSON.stringify(items.map((item) => item.json)));
		refusals.forEach((refusal, index) => {
			const message = String(items[index].json.error);
			const prefix = `Could not download image ${index + 1} of post ${postId} from ${refusal.url}: `;
			assert.ok(message.startsWith(prefix), `expected "${prefix}…", got "${message}"`);
			assert.match(message.slice(prefix.length), refusal.why, message);
			assert.equal(items[index].binary, undefined, `${refusal.url} gave a file`);
		});
	};

	it('runs every workflow to its end', () => {
		const failed = [...batch.entries.values()].filter((entry) => entry.status !== 'success');
		assert.deepEqual(failed.map((entry) => `${entry.name}: ${entry.status} ${entry.error ?? ''}`), []);
	});

	it('(a) media on loopback, in every spelling, and on the metadata address: an error item each', () => {
		assertRefused('Media on loopback', 'Loopback', posts.loopback, media.loopback);
	});

	it('(b) https media that redirect to loopback, a private name or the metadata address: an error item each, naming where it leads', () => {
		assertRefused('Media that redirect to loopback', 'Redirects', posts.redirects, media.redirects);
		const asked = tlsHost.requests().map((request) => request.url);
		for (const refusal of media.redirects) assert.ok(asked.includes(new URL(refusal.url).pathname), `${refusal.url} was not asked for`);
	});

	it('(c) an https host name that resolves to a private address: an error item, after the lookup', () => {
		assertRefused('Media on a name of a private address', 'Private Name', posts.privateName, media.privateName);
		assert.ok(egress.some((event) => event.kind === 'lookup' && event.name === PRIVATE), 'n8n never looked the name up');
	});

	it('no connection reaches the recording server, nor any loopback, private or metadata address', () => {
		assert.equal(recording.connections(), 0, JSON.stringify(recording.requests()));
		assert.deepEqual(recording.requests(), []);
		const reached = egress.filter((event) => event.kind === 'connect' && (event.to === recording.port || event.port === recording.port));
		assert.deepEqual(reached, []);
	});

	it('media on a public name come: the bytes the host served, after a redirect too, over the checked address with the certificate checked against the name', () => {
		const result = batch.result('Media on a public name');
		const files = result.outputItems('Public');
		assert.equal(files.length, 2, JSON.stringify(files.map((item) => item.json)));
		for (const file of files) assert.equal(file.binary?.data.mimeType, 'image/jpeg');
		assert.equal(files[0].binary?.data.fileName, 'cat.jpg');
		for (const item of result.items('Read Public')) assert.ok(Buffer.from(String(item.data), 'base64').equals(CAT), 'the bytes differ');
		const connects = egress.filter((event): event is Extract<EgressEvent, { kind: 'connect' }> => event.kind === 'connect' && event.to === tlsHost.port);
		assert.ok(connects.length > 0);
		// The request goes to the address that was checked, not to the name again (which a second lookup could answer otherwise).
		assert.deepEqual([...new Set(connects.map((event) => event.host))], [PUBLIC_IP]);
		assert.ok(tlsHost.requests().every((request) => request.host === CDN), JSON.stringify(tlsHost.requests()));
	});

	it('a pinned address still checks the certificate against the name: a name the certificate does not cover is an error item', () => {
		assertRefused('Media on a name the certificate does not cover', 'Wrong Certificate', posts.wrongCertificate, media.wrongCertificate);
	});

	it('Allow Private Network Hosts: the stand-in’s media on loopback download as before; without it, they are refused before any request', () => {
		const fake = ctx.backend.fake!;
		const allowed = batch.result('Stand-in media, private hosts allowed');
		const [file] = allowed.outputItems('Stand-in Allowed');
		assert.equal(file.binary?.data.mimeType, 'image/jpeg');
		const [bytes] = allowed.items('Read Stand-in').map((item) => Buffer.from(String(item.data), 'base64'));
		assert.ok(bytes.equals(fake.control.media.file(posts.standIn.url).bytes), 'the stand-in’s bytes differ');
		assertRefused('Stand-in media, private hosts not allowed', 'Stand-in Refused', posts.standIn.id, [
			{ url: posts.standIn.url, why: /127\.0\.0\.1/ },
		]);
		const served = fake.control.media.requests().filter((request) => posts.standIn.url.endsWith(request.path));
		assert.equal(served.length, 1, 'the stand-in’s medium was asked for again without the option');
	});
});
