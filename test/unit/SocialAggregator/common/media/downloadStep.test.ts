/**
 * Post › Download Media in the declarative node: the checks of its fields before any request, and the files step
 * that turns the post read into one item per chosen medium, its file in the chosen binary field, fetched without the
 * credential, a bounded number at a time per run, with Continue On Fail keeping the media that came; host names
 * resolved by n8n's egress filter (and without one, as in n8n 1.x, the answering address checked), private hosts
 * only with Allow Private Network Hosts, each file within Time Limit per File, stopped with the execution.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecutePaginationFunctions, IHttpRequestOptions, INodeExecutionData } from 'n8n-workflow';

import { checkDownloadFields, downloadMedia, downloadMediaFields } from '../../../../../nodes/SocialAggregator/common/media/downloadStep';
import { MEDIA_CONCURRENCY } from '../../../../../nodes/shared/requestGate';
import { DEFAULT_MAX_FILE_MB, DEFAULT_TIME_LIMIT_SECONDS } from '../../../../../nodes/SocialAggregator/common/media/medium';
import { DEFAULT_TIMEOUT_MS } from '../../../../../nodes/shared/transport';
import { NODE } from '../../../support/context';
import { filesStepContext as bareFilesStepContext, singleContext, type MediaHost } from '../../../support/nodeContext';

const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
const MP4 = Buffer.from('00000018667479706973366d0000020069736f6d6d70343100000008', 'hex');
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** Every host name of these tests resolves to this public address, unless a test says otherwise. */
const PUBLIC_IP = '93.184.215.14';

type Lookup = (hostname: string, options: { all: true }, callback: (error: Error | null, found: Array<{ address: string; family: number }>) => void) => void;

/**
 * The files step's context with what n8n 2.x adds: an egress filter whose lookup answers from `names` (every other
 * name resolves to PUBLIC_IP; `names: null` is n8n 1.x, without one) and the execution's cancel signal.
 */
function filesStepContext(
	parameters: IDataObject,
	host: MediaHost,
	options: Parameters<typeof bareFilesStepContext>[2] & { names?: Record<string, string[]> | null; cancelSignal?: AbortSignal } = {},
) {
	const built = bareFilesStepContext(parameters, host, options);
	const looked: string[] = [];
	const lookup: Lookup = (hostname, _options, callback) => {
		looked.push(hostname);
		callback(null, (options.names?.[hostname] ?? [PUBLIC_IP]).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
	};
	const context = built.context as unknown as { helpers: IDataObject; getExecutionCancelSignal: () => AbortSignal | undefined };
	if (options.names !== null) context.helpers.getSecureEgressFilter = () => ({ createSecureLookup: () => lookup });
	context.getExecutionCancelSignal = () => options.cancelSignal;
	return { ...built, looked };
}

/** The URL a request asked for: its target with the host it names in place of the address it went to. */
function asked(request: IHttpRequestOptions): string {
	const url = new URL(request.url);
	if (typeof request.headers?.Host === 'string') url.host = request.headers.Host;
	return url.href;
}

const POST: IDataObject = {
	id: 7,
	message: 'Launch day',
	poster: { name: 'acme', image: 'https://cdn.example/avatars/1.jpg' },
	media: [
		{ type: 'image', url: 'https://cdn.example/media/a.jpg', width: 800 },
		{ type: 'video', url: 'https://cdn.example/media/b.mp4' },
	],
};

/** The item JSON routing made of the post: what every output item carries. */
const JSON_OF_POST: IDataObject = { id: 7, message: 'Launch day' };

/** A media host answering each URL (as asked for) with its bytes and a Content-Type, 404 otherwise. */
function hostOf(files: Record<string, { bytes: Buffer | string; type?: string; status?: number }>): MediaHost {
	return async (request) => {
		const file = files[asked(request)];
		if (!file) return { statusCode: 404, headers: {}, body: '' };
		return { statusCode: file.status ?? 200, headers: file.type ? { 'content-type': file.type } : {}, body: Buffer.from(file.bytes) };
	};
}

const FILES = {
	'https://cdn.example/media/a.jpg': { bytes: JPEG, type: 'image/jpeg' },
	'https://cdn.example/media/b.mp4': { bytes: MP4, type: 'video/mp4' },
	'https://cdn.example/avatars/1.jpg': { bytes: Buffer.concat([JPEG, Buffer.from('avatar')]), type: 'image/jpeg' },
};

async function download(context: IExecutePaginationFunctions, post = POST, itemIndex = 0): Promise<INodeExecutionData[]> {
	return await downloadMedia.call(context, post, JSON_OF_POST, itemIndex);
}

describe('checkDownloadFields: the field name and the size cap, before any request', () => {
	const check = (parameters: IDataObject, itemIndex = 0) => checkDownloadFields.call(singleContext(parameters), { url: '/x' }, itemIndex);

	test('a field name and a positive size (or none: the default) pass', () => {
		expect(() => check({ binaryPropertyName: 'data' })).not.toThrow();
		expect(() => check({ binaryPropertyName: 'file', downloadOptions: { maxFileSize: 0.5 } })).not.toThrow();
		expect(() => check({ binaryPropertyName: 'file', downloadOptions: { maxFileSize: '10' } })).not.toThrow();
	});

	test('a blank field name is refused, naming the field and the item', () => {
		for (const binaryPropertyName of ['', '   ', null, undefined]) {
			let error: unknown;
			try {
				void check({ binaryPropertyName }, 4);
			} catch (caught) {
				error = caught;
			}
			expect(error).toBeInstanceOf(NodeOperationError);
			expect((error as NodeOperationError).message).toBe('The Put Output File in Field is empty [item 4]');
			expect((error as NodeOperationError).context.itemIndex).toBe(4);
		}
	});

	test.each([
		['0', 0],
		['-1', -1],
		['"abc"', 'abc'],
		['NaN', Number.NaN],
		['Infinity', Number.POSITIVE_INFINITY],
		['empty text', ''],
		['null', null],
		['a tenth of a byte', 1e-7],
	])('a size of %s is refused', (_shown, maxFileSize) => {
		expect(() => check({ binaryPropertyName: 'data', downloadOptions: { maxFileSize } }, 2)).toThrow(
			'The Max File Size (MB) must be a number above 0 [item 2]',
		);
	});

	test.each([[0], [-1], ['abc'], [null], [0.0001]])('a time limit of %j is refused', (timeLimit) => {
		expect(() => check({ binaryPropertyName: 'data', downloadOptions: { timeLimit } }, 3)).toThrow(
			'The Time Limit per File (Seconds) must be a number above 0 [item 3]',
		);
		expect(() => check({ binaryPropertyName: 'data', downloadOptions: { timeLimit: 0.5 } }, 3)).not.toThrow();
	});

	test('one byte is the smallest size taken, and the refusal says so', () => {
		expect(() => check({ binaryPropertyName: 'data', downloadOptions: { maxFileSize: 0.000001 } }, 0)).not.toThrow();
		let error: unknown;
		try {
			check({ binaryPropertyName: 'data', downloadOptions: { maxFileSize: 0.0000009 } }, 0);
		} catch (caught) {
			error = caught;
		}
		expect((error as NodeOperationError).description).toBe('Enter a size in megabytes of at least one byte (0.000001), such as 25.');
	});
});

describe('downloadMedia', () => {
	test('one item per medium, each file in the chosen field, each paired with the input item', async () => {
		const { context, requests } = filesStepContext({ media: 'all', binaryPropertyName: ' file ' }, hostOf(FILES));
		const items = await download(context, POST, 3);
		expect(items).toHaveLength(2);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 3 }, { item: 3 }]);
		expect(items[0].json).toEqual({ ...JSON_OF_POST, medium: { type: 'image', url: 'https://cdn.example/media/a.jpg', width: 800, index: 0 } });
		expect(items[1].json.medium).toEqual({ type: 'video', url: 'https://cdn.example/media/b.mp4', index: 1 });
		// The field name is trimmed, as the check read it.
		expect(Object.keys(items[0].binary ?? {})).toEqual(['file']);
		expect(items[0].binary?.file).toEqual({ data: JPEG.toString('base64'), fileName: 'a.jpg', mimeType: 'image/jpeg' });
		expect(items[1].binary?.file).toMatchObject({ fileName: 'b.mp4', mimeType: 'video/mp4' });
		expect(requests.map(asked)).toEqual(['https://cdn.example/media/a.jpg', 'https://cdn.example/media/b.mp4']);
	});

	test('the choice of media and the avatar, last, as chosen', async () => {
		const { context } = filesStepContext({ media: 'videos', includeAvatar: true }, hostOf(FILES));
		const items = await download(context);
		expect(items.map((i) => i.json.medium)).toEqual([
			{ type: 'video', url: 'https://cdn.example/media/b.mp4', index: 1 },
			{ url: 'https://cdn.example/avatars/1.jpg', type: 'avatar', index: null },
		]);
		// Without a field chosen, the files go to `data`.
		expect(items.map((i) => Object.keys(i.binary ?? {}))).toEqual([['data'], ['data']]);
	});

	test('a post without such media still gives its item, without a file and without a request', async () => {
		const { context, requests } = filesStepContext({ media: 'videos' }, hostOf(FILES));
		const items = await download(context, { id: 8, media: [{ type: 'image', url: 'https://cdn.example/media/a.jpg' }] }, 2);
		expect(items).toEqual([{ json: { ...JSON_OF_POST, medium: null }, pairedItem: { item: 2 } }]);
		expect(requests).toEqual([]);
	});

	test('as an agent tool, the media are described and not fetched (a tool answer carries no binary)', async () => {
		const tool = { ...NODE, type: `${NODE.type}Tool` };
		const { context, requests } = filesStepContext({ media: 'all', includeAvatar: true }, hostOf(FILES), { node: tool });
		const items = await download(context);
		expect(items.map((i) => (i.json.medium as IDataObject).type)).toEqual(['image', 'video', 'avatar']);
		expect(items.every((i) => i.binary === undefined)).toBe(true);
		expect(requests).toEqual([]);
	});

	test('each file is a plain GET to the address n8n’s lookup gave: no credential or node header but Host; the timeout is the one chosen', async () => {
		const { context, requests, looked } = filesStepContext({ media: 'first', requestOptions: { timeout: 5000 } }, hostOf(FILES));
		await download(context);
		expect(looked).toEqual(['cdn.example']);
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({
			method: 'GET',
			url: `https://${PUBLIC_IP}/media/a.jpg`,
			headers: { Host: 'cdn.example' },
			agentOptions: { servername: 'cdn.example' },
			timeout: 5000,
			disableFollowRedirect: true,
		});
		expect(requests[0].auth).toBeUndefined();
	});

	test.each([[0], [-5], ['soon']])('a timeout of %j is the default one', async (timeout) => {
		const { context, requests } = filesStepContext({ media: 'first', requestOptions: { timeout } }, hostOf(FILES));
		await download(context);
		expect(requests[0].timeout).toBe(DEFAULT_TIMEOUT_MS);
	});

	test('the size cap is the chosen megabytes: a file of exactly the cap comes, one byte more is an error', async () => {
		const half = 512 * 1024;
		const files = {
			'https://cdn.example/media/a.jpg': { bytes: Buffer.concat([JPEG, Buffer.alloc(half - JPEG.length)]), type: 'image/jpeg' },
			'https://cdn.example/media/b.mp4': { bytes: Buffer.concat([MP4, Buffer.alloc(half + 1 - MP4.length)]), type: 'video/mp4' },
		};
		const { context } = filesStepContext({ media: 'all', downloadOptions: { maxFileSize: 0.5 } }, hostOf(files), { continueOnFail: true });
		const items = await download(context);
		expect(items[0].binary?.data).toBeDefined();
		expect(items[1].json.error).toMatch(/video 2 of post 7 .*larger than 524288 bytes/);
		expect(String((items[1].json.details as IDataObject).description)).toMatch(/Max File Size \(MB\)/);
	});

	test(`without a cap chosen, ${DEFAULT_MAX_FILE_MB} MB is the cap`, async () => {
		const size = DEFAULT_MAX_FILE_MB * 1024 * 1024;
		const host: MediaHost = async () => ({ statusCode: 200, headers: { 'content-length': String(size + 1) }, body: Buffer.alloc(0) });
		const { context } = filesStepContext({ media: 'first' }, host);
		await expect(download(context)).rejects.toThrow(`larger than ${DEFAULT_MAX_FILE_MB} MB`);
	});

	test('a medium that cannot be fetched is an error naming the post, the medium and the URL, for the item', async () => {
		const { context } = filesStepContext({ media: 'all' }, hostOf({}));
		const error = (await download(context, POST, 5).catch((caught: unknown) => caught)) as NodeOperationError;
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Could not download image 1 of post 7 from https://cdn.example/media/a.jpg: the media host answered 404');
		expect(error.description).toMatch(/get the post again/);
		expect(error.context.itemIndex).toBe(5);
	});

	test('with Continue On Fail, a failed medium is an error item in its place and the others still come', async () => {
		const post = { id: 9, media: [{ type: 'image', url: 'http://cdn.example/a.jpg' }, ...(POST.media as IDataObject[])] };
		const { context, requests } = filesStepContext({ media: 'all' }, hostOf(FILES), { continueOnFail: true });
		const items = await download(context, post, 1);
		expect(items).toHaveLength(3);
		expect(items[0].json.error).toMatch(/^Could not download image 1 of post 9 from http:\/\/cdn\.example\/a\.jpg: its URL uses plain http/);
		expect(items[0].pairedItem).toEqual({ item: 1 });
		expect(items.slice(1).map((i) => Object.keys(i.binary ?? {}))).toEqual([['data'], ['data']]);
		// The plain-http URL was refused before any request.
		expect(requests.map(asked)).toEqual(['https://cdn.example/media/a.jpg', 'https://cdn.example/media/b.mp4']);
	});

	test('an error that is not the download’s own (the binary store failing) is the item’s error too', async () => {
		const { context } = filesStepContext({ media: 'first' }, hostOf(FILES));
		(context.helpers as unknown as IDataObject).prepareBinaryData = async () => {
			throw new Error('disk full');
		};
		const error = (await download(context, POST, 2).catch((caught: unknown) => caught)) as NodeOperationError;
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('disk full');
		expect(error.context.itemIndex).toBe(2);
	});
});

describe('the options: private hosts off and a time limit by default', () => {
	test('Allow Private Network Hosts (off) and Time Limit per File (Seconds) (60) under Options, in order, each saying what it does', () => {
		const collection = downloadMediaFields.find((field) => field.name === 'downloadOptions');
		const options = (collection?.options ?? []) as Array<{ name: string; displayName: string; default: unknown; description?: string }>;
		expect(options.map((o) => [o.displayName, o.name, o.default])).toEqual([
			['Allow Private Network Hosts', 'allowPrivateNetwork', false],
			['Max File Size (MB)', 'maxFileSize', DEFAULT_MAX_FILE_MB],
			['Time Limit per File (Seconds)', 'timeLimit', DEFAULT_TIME_LIMIT_SECONDS],
		]);
		expect(options[0].description).toMatch(/^Whether to also download from hosts on your own network or this machine .*169\.254\.169\.254.*plain http/);
		expect(options[2].description).toMatch(/from the first connection to its last byte/);
	});
});

describe('downloadMedia: where media come from', () => {
	const post = (url: string): IDataObject => ({ id: 11, media: [{ type: 'image', url }] });

	test('a host name that resolves to a private address is an error item, and nothing is sent to it', async () => {
		const { context, requests } = filesStepContext({ media: 'all' }, hostOf(FILES), {
			continueOnFail: true,
			names: { 'cdn.example': [PUBLIC_IP, '10.0.0.7'] },
		});
		const [item] = await download(context, post('https://cdn.example/media/a.jpg'));
		expect(item.json.error).toBe('Could not download image 1 of post 11 from https://cdn.example/media/a.jpg: its host resolves to 10.0.0.7, a private address');
		expect(String((item.json.details as IDataObject).description)).toMatch(/turn on "Allow Private Network Hosts" under Options/);
		expect(requests).toEqual([]);
	});

	test('Allow Private Network Hosts: a loopback http URL is fetched as it is, nothing looked up', async () => {
		const url = 'http://127.0.0.1:4010/media/a.jpg';
		const { context, requests, looked } = filesStepContext({ media: 'all', downloadOptions: { allowPrivateNetwork: true } }, hostOf({ [url]: { bytes: JPEG } }));
		const [item] = await download(context, post(url));
		expect(item.binary?.data).toMatchObject({ fileName: 'a.jpg', mimeType: 'image/jpeg' });
		expect(requests.map((r) => [r.url, r.headers])).toEqual([[url, undefined]]);
		expect(looked).toEqual([]);
		const off = filesStepContext({ media: 'all' }, hostOf({ [url]: { bytes: JPEG } }));
		await expect(download(off.context, post(url))).rejects.toThrow(`from ${url}: its address 127.0.0.1 is a loopback address (this machine)`);
		expect(off.requests).toEqual([]);
	});

	test('n8n without an egress filter (1.x): the name is connected to, and an answer whose address cannot be checked is refused', async () => {
		const { context, requests } = filesStepContext({ media: 'first' }, hostOf(FILES), { names: null });
		await expect(download(context)).rejects.toThrow(/a\.jpg: the address its host answered from could not be checked/);
		expect(requests.map((r) => [r.url, r.headers])).toEqual([['https://cdn.example/media/a.jpg', undefined]]);
	});

	test('Time Limit per File ends a download that does not answer; the execution’s stop ends one at once', async () => {
		const silent: MediaHost = async (request) =>
			await new Promise((_, reject) => (request.abortSignal as AbortSignal).addEventListener('abort', () => reject(new Error('canceled'))));
		const timed = filesStepContext({ media: 'first', downloadOptions: { timeLimit: 0.2 } }, silent);
		const started = Date.now();
		await expect(download(timed.context)).rejects.toThrow('from https://cdn.example/media/a.jpg: it took longer than 0.2 s, the Time Limit per File');
		expect(Date.now() - started).toBeLessThan(1000);

		const cancel = new AbortController();
		const stopped = filesStepContext({ media: 'first' }, silent, { cancelSignal: cancel.signal });
		const run = download(stopped.context);
		await new Promise((resolve) => setTimeout(resolve, 50));
		cancel.abort();
		await expect(run).rejects.toThrow(': the execution was stopped');
		expect(stopped.requests[0].abortSignal?.aborted).toBe(true);
	});

	test('a web page in place of an image is an error item saying so', async () => {
		const html = { 'https://cdn.example/media/a.jpg': { bytes: '<!doctype html><title>Sign in</title>', type: 'image/jpeg' } };
		const { context } = filesStepContext({ media: 'first' }, hostOf(html), { continueOnFail: true });
		const [item] = await download(context);
		expect(item.json.error).toBe(
			'Could not download image 1 of post 7 from https://cdn.example/media/a.jpg: the file is not an image or a video: its bytes look like HTML (a web page)',
		);
		expect(item.binary).toBeUndefined();
	});
});

describe('downloadMedia: downloads in flight per run', () => {
	/** A host that holds every answer until released, counting the requests in flight. */
	function heldHost() {
		let inFlight = 0;
		let most = 0;
		const waiting: Array<() => void> = [];
		const host: MediaHost = async (request: IHttpRequestOptions) => {
			inFlight++;
			most = Math.max(most, inFlight);
			await new Promise<void>((resolve) => waiting.push(resolve));
			inFlight--;
			return { statusCode: 200, headers: { 'content-type': 'image/png' }, body: Buffer.concat([PNG, Buffer.from(String(request.url))]) };
		};
		/** Lets the held answers go, one turn at a time, until every download is done. */
		const drain = async (done: Promise<unknown>) => {
			let finished = false;
			void done.finally(() => (finished = true));
			while (!finished) {
				await new Promise((resolve) => setImmediate(resolve));
				waiting.splice(0).forEach((release) => release());
			}
		};
		return { host, drain, most: () => most };
	}

	const post = (n: number): IDataObject => ({ id: n, media: [{ type: 'image', url: `https://cdn.example/${n}.png` }] });

	test(`the items of one run share ${MEDIA_CONCURRENCY} downloads at a time`, async () => {
		const { host, drain, most } = heldHost();
		const run = {};
		const runs = Array.from({ length: MEDIA_CONCURRENCY + 3 }, (_, n) => {
			const { context } = filesStepContext({ media: 'all' }, host, { run });
			return download(context, post(n), n);
		});
		const all = Promise.all(runs);
		await drain(all);
		const items = await all;
		expect(most()).toBe(MEDIA_CONCURRENCY);
		expect(items.map((i) => i[0].pairedItem)).toEqual(runs.map((_, n) => ({ item: n })));
	});

	test('another run does not wait for this one’s downloads', async () => {
		const { host, drain, most } = heldHost();
		const runs = Array.from({ length: MEDIA_CONCURRENCY + 2 }, (_, n) => {
			const { context } = filesStepContext({ media: 'all' }, host, { run: {} });
			return download(context, post(n), n);
		});
		const all = Promise.all(runs);
		await drain(all);
		await all;
		expect(most()).toBe(MEDIA_CONCURRENCY + 2);
	});
});
