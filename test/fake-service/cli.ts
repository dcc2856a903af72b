/**
 * npm run fake-service -- [--port 4010] [--latency 50] [--seed demo] [--demo] [--auto-sync]
 *   [--start 2025-06-01T12:00:00Z | --start now] [--allow-http-webhooks] [--no-rate-limits] [--shapes live|spec] [--json]
 * --demo: an extra 300-post feed, auto-sync, and the clock starting now (else 2025-06-01T12:00:00Z).
 * Env: FAKE_SERVICE_PORT, FAKE_SERVICE_LATENCY_MS, FAKE_SERVICE_SEED, FAKE_SERVICE_DEMO=1,
 *   FAKE_SERVICE_AUTO_SYNC=1, FAKE_SERVICE_START, FAKE_SERVICE_ALLOW_HTTP_WEBHOOKS=1, FAKE_SERVICE_NO_RATE_LIMITS=1,
 *   FAKE_SERVICE_SHAPES (live, the default, or spec: the legal shape of every answer).
 * Prints the base URL and a ready API key (as text, or one JSON line with --json).
 */
import { start } from './server';
import { DEFAULT_SHAPES, parseShapes } from './shapes';

function parseArgs(argv: string[]): Map<string, string> {
	const out = new Map<string, string>();
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (!arg.startsWith('--')) continue;
		const [name, inline] = arg.slice(2).split('=', 2);
		if (inline !== undefined) out.set(name, inline);
		else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out.set(name, argv[++i]);
		else out.set(name, 'true');
	}
	return out;
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const env = process.env;
	const flag = (name: string, envName: string) => args.get(name) === 'true' || env[envName] === '1' || env[envName] === 'true';
	if (args.has('help')) {
		process.stdout.write(`${(require('fs') as typeof import('fs')).readFileSync(__filename, 'utf8').split('*/')[0]}*/\n`);
		return;
	}
	const startAt = args.get('start') ?? env.FAKE_SERVICE_START;
	const svc = await start({
		port: Number(args.get('port') ?? env.FAKE_SERVICE_PORT ?? 4010),
		latencyMs: Number(args.get('latency') ?? env.FAKE_SERVICE_LATENCY_MS ?? 0),
		seed: args.get('seed') ?? env.FAKE_SERVICE_SEED,
		demo: flag('demo', 'FAKE_SERVICE_DEMO'),
		autoSync: flag('auto-sync', 'FAKE_SERVICE_AUTO_SYNC') || flag('demo', 'FAKE_SERVICE_DEMO'),
		allowHttpWebhooks: flag('allow-http-webhooks', 'FAKE_SERVICE_ALLOW_HTTP_WEBHOOKS'),
		limits: { enabled: !flag('no-rate-limits', 'FAKE_SERVICE_NO_RATE_LIMITS') },
		shapes: parseShapes(args.get('shapes') ?? env.FAKE_SERVICE_SHAPES ?? DEFAULT_SHAPES),
		// The demo starts at the real time so its posts look recent; tests pin the start.
		clock: { start: startAt === 'now' || (startAt === undefined && flag('demo', 'FAKE_SERVICE_DEMO')) ? Date.now() : startAt },
		webhooks: { retryDelaysMs: [5_000, 30_000, 120_000, 600_000, 1_800_000] },
	});
	const info = { url: svc.url, apiKey: svc.control.keys.owner, control: `${svc.origin}/_control`, keys: svc.control.keys, shapes: svc.control.shapes() };
	if (args.has('json')) process.stdout.write(`${JSON.stringify(info)}\n`);
	else {
		process.stdout.write(
			[
				`Fake Social Post Aggregation Service on ${svc.origin}`,
				`Base URL: ${svc.url}`,
				`Shapes:   ${svc.control.shapes()}`,
				`API key:  ${svc.control.keys.owner}   (owner of "Acme Media", Team plan)`,
				`Control:  ${svc.origin}/_control   (GET /_control/seed lists every seeded key and id)`,
				'',
			].join('\n'),
		);
	}
	const stop = () => {
		svc.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((err) => {
	process.stderr.write(`fake service failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
	process.exit(1);
});
