import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { INodeExecutionData } from 'n8n-workflow';

import type { TriggerHarness } from '../harness';

/** The field of the item that carries a look-back signal from webhook() to execute(). */
const LOOK_BACK = 'socialAggregatorCatchUp';

/** One request the receiver handed to the trigger, and what the trigger made of it. */
export interface Received {
	/** `id` of the body when it is JSON with one. */
	deliveryId?: string;
	event?: string;
	signature?: string;
	status: number;
	items: INodeExecutionData[];
}

/**
 * A loopback HTTP server standing in for n8n's webhook endpoint: each request (headers and
 * raw bytes) goes to the trigger's `webhook()` through the harness, and the answer is the
 * status the trigger chose (200 when it returned data, as n8n answers in "onReceived" mode).
 * Requests are handed over one at a time, as static data is read and saved per call.
 */
export class Receiver {
	readonly received: Received[] = [];

	trigger?: TriggerHarness;

	private server?: http.Server;

	private queue: Promise<void> = Promise.resolve();

	url = '';

	async start(): Promise<void> {
		this.server = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				this.queue = this.queue.then(async () => await this.hand(req, Buffer.concat(chunks), res));
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook/5b8e6a52-1c7f-4d3e-9a0b-0000000000a1/webhook`;
	}

	async stop(): Promise<void> {
		await this.queue;
		await new Promise<void>((resolve) => {
			this.server?.close(() => resolve());
			this.server?.closeAllConnections();
		});
	}

	clear(): void {
		this.received.length = 0;
	}

	/**
	 * Every item emitted so far, in order, as the workflow gets them: without the item that asks execute() to look back
	 * for a gap (the first delivery a process receives carries it; execute() takes it out).
	 */
	items(): INodeExecutionData[] {
		return this.received.flatMap((r) => this.itemsOf(r));
	}

	/** The items one request gave the workflow (see items()). */
	itemsOf(received: Received): INodeExecutionData[] {
		return received.items.filter((item) => !(LOOK_BACK in item.json));
	}

	/** The deliveries whose execution looks back for a gap. */
	lookedBack(): string[] {
		return this.received.filter((r) => r.items.some((item) => LOOK_BACK in item.json)).map((r) => r.deliveryId ?? '(no id)');
	}

	private async hand(req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse): Promise<void> {
		let deliveryId: string | undefined;
		let event: string | undefined;
		try {
			const parsed = JSON.parse(raw.toString('utf8')) as { id?: unknown; event?: unknown };
			if (typeof parsed.id === 'string') deliveryId = parsed.id;
			if (typeof parsed.event === 'string') event = parsed.event;
		} catch {
			// Not JSON: the trigger decides.
		}
		// The service's signature header, whichever shape names it (X-Service-Signature, X-SocialAggregator-Signature).
		const signature = Object.entries(req.headers).find(([name]) => /^x-.+-signature$/.test(name))?.[1];
		if (!this.trigger) {
			res.statusCode = 503;
			res.end();
			return;
		}
		try {
			const call = await this.trigger.webhook({
				method: req.method,
				headers: req.headers as Record<string, string | string[]>,
				rawBody: raw,
			});
			const status = call.data.noWebhookResponse ? call.res.statusCode : 200;
			this.received.push({ deliveryId, event, signature: typeof signature === 'string' ? signature : undefined, status, items: call.items });
			res.statusCode = status;
			res.setHeader('Content-Type', 'application/json');
			res.end(JSON.stringify(call.data.noWebhookResponse ? call.res.body ?? {} : call.data.webhookResponse ?? { received: true }));
		} catch (error) {
			this.received.push({ deliveryId, event, status: 500, items: [] });
			res.statusCode = 500;
			res.end(JSON.stringify({ error: (error as Error).message }));
		}
	}
}
