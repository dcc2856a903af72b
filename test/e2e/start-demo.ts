/**
 * The program behind `npm start` (scripts/start.sh builds, provisions and packs, then runs
 * this): starts the demo of lib/demo.ts, prints how to reach it, and on SIGINT/SIGTERM stops n8n
 * and the service and exits. A second signal stops by force.
 *
 * Environment: DEMO_PACKAGE_TARBALL (the packed package; else it builds and packs),
 * DEMO_N8N_PORT (5678), DEMO_SERVICE_PORT (4010), DEMO_PID_FILE (where to write n8n's pid, so
 * that start.sh can stop its process group should this process die), DEMO_STARTED_AT (ms epoch
 * of `npm start`, for the time to ready).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

import { DEFAULT_DEMO_N8N_PORT, DEFAULT_DEMO_SERVICE_PORT, startDemo, type Demo } from './lib/demo';
import { killGroup, setSignalCleanup } from './lib/util';

const say = (line = '') => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`[start] ${line}\n`);

function port(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`${name}=${raw} is not a port`);
	return value;
}

function packageFromEnv() {
	const tarball = process.env.DEMO_PACKAGE_TARBALL;
	if (!tarball) return undefined;
	if (!existsSync(tarball)) throw new Error(`DEMO_PACKAGE_TARBALL=${tarball} does not exist`);
	const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
	return { tarball, name: 'n8n-nodes-social-aggregator', version };
}

function printReady(demo: Demo, seconds: number | undefined): void {
	const control = `${demo.serviceOrigin}/_control`;
	const active = demo.workflows.filter((w) => w.active);
	const manual = demo.workflows.filter((w) => !w.active);
	const rule = '─'.repeat(78);
	say(rule);
	say(`n8n with the Social Aggregator nodes is ready${seconds === undefined ? '' : ` (in ${seconds} s)`}.`);
	say();
	say(`  Editor:    ${demo.editorUrl}`);
	say(`  Log in:    ${demo.owner.email}`);
	say(`  Password:  ${demo.owner.password}`);
	say();
	say(`  The credential "${demo.credential.name}" connects the nodes to a local stand-in`);
	say(`  for the service with demo data: ${demo.backend.url}`);
	say(`  (its control API, e.g. GET ${control}/seed, steers it).`);
	say();
	say('  Example workflows (Overview → Workflows):');
	for (const workflow of active) {
		say(`    • ${workflow.name}: active, it runs whenever a feed collects new posts.`);
		say('      Make feed 1 collect 4 posts now:');
		say(`      curl -X POST ${control}/feeds/1/sync -H 'content-type: application/json' -d '{"newPosts":4}'`);
	}
	for (const workflow of manual) say(`    • ${workflow.name}: open it and click "Execute workflow".`);
	say();
	say(`  The package was installed by n8n's own installer from a local npm registry`);
	say(`  (${demo.registry.url}): Settings → Community Nodes lists it, as it will for users.`);
	say();
	say(`  n8n's log: ${demo.n8n.userFolder}/n8n-start.log`);
	say('  Press Ctrl-C to stop n8n and the service (everything is removed).');
	say(rule);
}

async function main(): Promise<void> {
	// this process stops n8n itself on a signal (gracefully); see the handlers below
	setSignalCleanup(false);
	let demo: Demo | undefined;
	let firstSignalAt: number | undefined;
	let stopRequested = false;
	const onSignal = (signal: NodeJS.Signals) => {
		// Ctrl-C reaches this process and start.sh, which passes it on as SIGTERM: signals close
		// together are one request; one a while later (Ctrl-C again) stops by force
		if (firstSignalAt !== undefined) {
			if (Date.now() - firstSignalAt < 3_000) return;
			note('stopping by force');
			killGroup(demo?.n8n.pid, 'SIGKILL');
			process.exit(130);
		}
		firstSignalAt = Date.now();
		stopRequested = true;
		if (!demo) return; // still starting: main() stops once the start is over
		void stop(signal);
	};
	const stop = async (signal: string) => {
		note(`${signal}: stopping n8n and the service… (Ctrl-C again to stop by force)`);
		try {
			await demo?.stop();
			note('stopped');
			process.exit(0);
		} catch (error) {
			note(`stop failed: ${(error as Error).message}`);
			process.exit(1);
		}
	};
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	process.on('SIGHUP', onSignal);

	demo = await startDemo({
		n8nPort: port('DEMO_N8N_PORT', DEFAULT_DEMO_N8N_PORT),
		servicePort: port('DEMO_SERVICE_PORT', DEFAULT_DEMO_SERVICE_PORT),
		package: packageFromEnv(),
		log: note,
	});
	const pidFile = process.env.DEMO_PID_FILE;
	// n8n and the registry lead their own process groups: start.sh stops them should this process die
	if (pidFile) writeFileSync(pidFile, [demo.n8n.pid, demo.registry.pid].filter((pid) => pid !== undefined).map((pid) => `${pid}\n`).join(''));
	if (stopRequested) {
		await stop('stop requested during the start');
		return;
	}
	const startedAt = Number(process.env.DEMO_STARTED_AT);
	printReady(demo, Number.isFinite(startedAt) && startedAt > 0 ? Math.round((Date.now() - startedAt) / 1000) : undefined);

	// n8n or the registry ending on its own (a signal to that process alone, a crash) ends the demo
	const watch = setInterval(() => {
		if (!demo || stopRequested) return;
		if (!demo.n8n.running) {
			clearInterval(watch);
			const lines = demo.n8n.logs().trimEnd().split('\n');
			note(`n8n stopped on its own; the end of its log:\n${lines.slice(-40).join('\n')}`);
		} else if (!demo.registry.running) {
			clearInterval(watch);
			note(`the local registry stopped on its own:\n${demo.registry.logs().trimEnd().split('\n').slice(-20).join('\n')}`);
		} else {
			return;
		}
		stopRequested = true;
		void demo
			.stop()
			.catch(() => undefined)
			.finally(() => {
				if (pidFile) rmSync(pidFile, { force: true });
				process.exit(1);
			});
	}, 500);
}

main().catch((error: unknown) => {
	note(`the demo did not start: ${error instanceof Error ? error.message : String(error)}`);
	process.exit(1);
});
