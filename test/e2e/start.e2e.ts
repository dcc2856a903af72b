/**
 * `npm start` end to end: runs it as a user would (scripts/start.sh: build, provision, pack, the
 * stand-in service with demo data, n8n with the package, the credential and the examples),
 * reads what it prints, signs in with the login it printed, executes every example workflow
 * against the service (the manual ones as the editor's "Execute workflow" does, the moderation
 * one by a real post.created delivery to its published trigger), checks what they did, then
 * stops it with Ctrl-C (SIGINT to its process group) and checks that nothing is left behind.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

import {
	killGroup,
	loadWorkflow,
	N8nRest,
	openEditorAt,
	PACKAGE_NAME,
	recordTiming,
	REPO_ROOT,
	resolveRuntime,
	waitFor,
	type ExecutionResult,
	type InstalledPackage,
	type WorkflowSummary,
} from './lib';
import { exampleFiles } from './lib/demo';

interface Printed {
	editorUrl: string;
	email: string;
	password: string;
	serviceUrl: string;
	control: string;
	logFile: string;
}

type Post = { id: number; feed_id: number; message: string | null; ai_sentiment: string; moderation_status: string };

const BLOCKED_WORDS = ['link below', 'giveaway', 'scam', 'crypto'];

/** What the moderation example decides for a post. */
const shouldReject = (post: Post) =>
	post.ai_sentiment === 'negative' || BLOCKED_WORDS.some((word) => String(post.message ?? '').toLowerCase().includes(word));

describe('npm start (scripts/start.sh) runs the demo, and every example workflow executes in it', () => {
	let child: ChildProcess;
	let output = '';
	let exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	let printed: Printed;
	let api: N8nRest;
	let workflows: WorkflowSummary[];
	const started = Date.now();

	const control = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
		const response = await fetch(`${printed.control}${route}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		assert.equal(response.status, 200, `control ${method} ${route}`);
		return ((await response.json()) as { result: T }).result;
	};
	const byName = (name: string) => {
		const found = workflows.find((workflow) => workflow.name === name);
		assert.ok(found, `no workflow "${name}" in n8n: ${workflows.map((w) => w.name).join(', ')}`);
		return found;
	};

	before(
		async () => {
			// the README's command, as a terminal runs it: npm → sh → bash scripts/start.sh
			child = spawn('npm', ['start'], {
				cwd: REPO_ROOT,
				// free ports: a demo of the developer's own may be running on 5678/4010
				// and its own build and pack, as on a fresh clone
				env: { ...process.env, DEMO_N8N_PORT: '0', DEMO_SERVICE_PORT: '0', DEMO_PACKAGE_TARBALL: '' },
				stdio: ['ignore', 'pipe', 'pipe'],
				detached: true,
			});
			child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
			child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
			exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
			await waitFor(
				'npm start to print that it is ready',
				() => {
					if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${output.slice(-4000)}`);
					return /Ctrl-C to stop/.test(output); // the last line of the ready block: every line before it is in
				},
				{ timeoutMs: 600_000, intervalMs: 200 },
			).catch((error: Error) => {
				throw new Error(`${error.message}\n--- output ---\n${output.slice(-4000)}`);
			});
			recordTiming('npm start (scripts/start.sh) until ready, build and warm provisioning included', Date.now() - started);
			const line = (label: string) => {
				const match = new RegExp(`^\\s*${label}\\s+(\\S+)`, 'm').exec(output);
				assert.ok(match, `npm start printed no "${label}" line:\n${output}`);
				return match[1];
			};
			const serviceUrl = /stand-in\s+for the service with demo data: (\S+)/.exec(output)?.[1] ?? '';
			printed = {
				editorUrl: line('Editor:'),
				email: line('Log in:'),
				password: line('Password:'),
				serviceUrl,
				control: /GET (\S+)\/seed/.exec(output)?.[1] ?? '',
				logFile: line("n8n's log:"),
			};
			api = new N8nRest(printed.editorUrl.replace(/\/$/, ''), (text) => text.split(printed.password).join('[redacted]'));
		},
		{ timeout: 660_000 },
	);

	after(async () => {
		// if a test failed before the stop test: no orphans either way
		if (child?.exitCode === null && child.signalCode === null) {
			killGroup(child.pid, 'SIGINT');
			const stopped = await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, 30_000, 'timeout').unref())]);
			if (stopped === 'timeout') killGroup(child.pid, 'SIGKILL');
		}
	});

	it('prints the editor address, the login, the service and how to stop, and no API key', async () => {
		assert.match(printed.editorUrl, /^http:\/\/127\.0\.0\.1:\d+\/$/);
		assert.match(printed.serviceUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
		assert.match(printed.control, /^http:\/\/127\.0\.0\.1:\d+\/_control$/);
		assert.match(output, /Ctrl-C to stop/);
		const { keys } = await control<{ keys: Record<string, string> }>('GET', '/seed');
		for (const key of Object.values(keys)) assert.ok(!output.includes(key), 'npm start printed an API key');
		const editor = await fetch(printed.editorUrl);
		assert.equal(editor.status, 200);
		assert.match(await editor.text(), /<html/i);
	});

	it('signs in with the printed login and finds the credential and every example workflow', async () => {
		await api.login({ email: printed.email, password: printed.password });
		workflows = await api.workflows();
		const examples = exampleFiles().map((file) => loadWorkflow(file));
		assert.ok(examples.length >= 3, 'examples/ should hold at least three workflows');
		assert.deepEqual(workflows.map((w) => w.name).sort(), examples.map((e) => e.name).sort());
		assert.equal(byName('Moderate new posts as they arrive').active, true);
		const credentials = await api.request<Array<{ id: string; name: string; type: string }>>('GET', '/rest/credentials');
		const demo = credentials.filter((credential) => credential.type === 'socialAggregatorApi');
		assert.deepEqual(demo.map((credential) => credential.name), ['Social Aggregator (demo)']);
		const stored = await api.request<{ data: Record<string, unknown> }>('GET', `/rest/credentials/${demo[0].id}?includeData=true`);
		assert.equal(stored.data.baseUrl, printed.serviceUrl);
		const tested = await api.request<{ status: string }>('POST', '/rest/credentials/test', {
			credentials: { id: demo[0].id, name: demo[0].name, type: demo[0].type, data: stored.data },
		});
		assert.equal(tested.status, 'OK');
	});

	it("lists the package in Settings → Community Nodes: n8n's own installer installed it", async () => {
		const packages = await api.request<InstalledPackage[]>('GET', '/rest/community-packages');
		const { version, n8n } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; n8n: { nodes: string[] } };
		// Every node the package declares, installed.
		assert.deepEqual(
			packages.map((p) => [p.packageName, p.installedVersion, p.installedNodes.length]),
			[[PACKAGE_NAME, version, n8n.nodes.length]],
		);
		const editor = await openEditorAt(printed.editorUrl.replace(/\/$/, ''), resolveRuntime().chromiumBin, printed);
		try {
			await editor.page.goto(`${printed.editorUrl}settings/community-nodes`);
			await editor.page.getByText(PACKAGE_NAME).first().waitFor({ state: 'visible' });
			await editor.page.waitForTimeout(500);
			assert.ok(existsSync(await editor.screenshot('npm-start-community-nodes')));
		} finally {
			await editor.close();
		}
	});

	it('the hashtag example stores the latest posts of its platforms in a Data Table', async () => {
		const run = await api.runManually(byName('Collect new #acme posts into a Data Table').id);
		assertRan(run);
		recordTiming('example: collect hashtag posts (manual run)', run.runMs);
		const posts = run.items('New #acme Posts');
		assert.ok(posts.length > 0, 'the trigger found no posts');
		for (const post of posts) assert.ok(['Twitter', 'Instagram', 'TikTok', 'Bluesky'].includes(String(post.platform)));
		const rows = run.items('Save to Data Table');
		assert.equal(rows.length, posts.length);
		assert.deepEqual(
			rows.map((row) => [row.platform, row.post_id]),
			posts.map((post) => [post.platform, post.platform_id]),
		);
		for (const row of rows) assert.equal(typeof row.id, 'number', 'no row id: the insert did not happen');
	});

	it('the weekly report example reports every feed and stores the report', async () => {
		const run = await api.runManually(byName('Weekly analytics report').id);
		assertRan(run);
		recordTiming('example: weekly analytics report (manual run)', run.runMs);
		const feeds = run.items('All Feeds');
		assert.ok(feeds.length >= 3);
		assert.equal(run.items('Last 7 Days').length, feeds.length);
		const [report] = run.items('Format Report');
		assert.equal(report.feeds, feeds.length);
		for (const feed of feeds) assert.ok(String(report.report).includes(String(feed.name)), `the report misses feed ${String(feed.name)}`);
		const today = new Date();
		const day = (offset: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - offset)).toISOString().slice(0, 10);
		assert.deepEqual([report.week_start, report.week_end], [day(7), day(1)]);
		const [row] = run.items('Save Report');
		assert.equal(typeof row.id, 'number');
		assert.equal(row.report, report.report);
	});

	it('the moderation example approves or rejects each new post by its rules, on real deliveries', async () => {
		const moderation = byName('Moderate new posts as they arrive');
		const before = (await api.executions(moderation.id)).length;
		const sync = await control<{ posts: Post[]; deliveries: string[] }>('POST', '/feeds/1/sync', { newPosts: 8 });
		const deliveries = await control<Array<{ id: string; url: string }>>('GET', '/deliveries?event=post.created');
		const toN8n = deliveries.filter((d) => sync.deliveries.includes(d.id) && d.url.startsWith(printed.editorUrl));
		assert.ok(toN8n.length > 0, 'the service delivered nothing to n8n');
		const executions = await api.waitForExecutions(moderation.id, before + toN8n.length, { timeoutMs: 60_000 });
		const ours = executions.slice(0, toN8n.length);
		assert.ok(ours.every((execution) => execution.status === 'success' && execution.mode === 'webhook'), JSON.stringify(ours));

		const decided = new Map<number, string>();
		for (const summary of ours) {
			const run = await api.execution(summary.id);
			for (const node of ['Reject Post', 'Approve Post'].filter((name) => run.nodesRun.includes(name))) {
				for (const post of run.items(node)) {
					assert.equal(decided.has(Number(post.id)), false, `post ${String(post.id)} was decided twice`);
					decided.set(Number(post.id), String(post.moderation_status));
				}
			}
		}
		assert.deepEqual([...decided.keys()].sort(), sync.posts.map((post) => post.id).sort(), 'every delivered post should be decided once');
		let rejected = 0;
		for (const post of sync.posts) {
			const expected = shouldReject(post) ? 'rejected' : 'public';
			if (expected === 'rejected') rejected++;
			assert.equal(decided.get(post.id), expected, `post ${post.id} (${post.ai_sentiment}): ${post.message}`);
			const now = await control<Post>('GET', `/posts/${post.id}`);
			assert.equal(now.moderation_status, expected, `the service holds post ${post.id} as ${now.moderation_status}`);
		}
		assert.ok(rejected > 0 && rejected < sync.posts.length, 'the sample should exercise both the approve and the reject branch');
	});

	it('stops on Ctrl-C: the demo ends cleanly, frees both ports, leaves no process and no n8n folder', async () => {
		const userFolder = path.dirname(printed.logFile);
		assert.ok(existsSync(userFolder));
		const stopStarted = Date.now();
		// what a terminal does on Ctrl-C: SIGINT to the foreground process group
		killGroup(child.pid, 'SIGINT');
		const stopped = await Promise.race([exit, new Promise<'timeout'>((resolve) => setTimeout(resolve, 60_000, 'timeout').unref())]);
		if (stopped === 'timeout') assert.fail('npm start did not stop within 60 s of Ctrl-C');
		// npm itself ends by the signal (its own way with Ctrl-C); start.sh and the demo finish the stop
		assert.ok(
			(stopped.code === 0 && stopped.signal === null) || (stopped.code === null && stopped.signal === 'SIGINT'),
			`npm start ended ${JSON.stringify(stopped)}:\n${output.slice(-2000)}`,
		);
		await waitFor('the processes of npm start to end', () => !groupAlive(child.pid), { timeoutMs: 60_000, intervalMs: 100 });
		recordTiming('npm start: Ctrl-C until everything stopped', Date.now() - stopStarted);
		assert.match(output, /\[start\] stopped/, output.slice(-2000));
		assert.doesNotMatch(output, /stop failed|stopping by force/);
		for (const url of [printed.editorUrl, printed.serviceUrl]) {
			await assert.rejects(fetch(url), `${url} still answers`);
		}
		assert.equal(existsSync(userFolder), false, `${userFolder} was left behind`);
		assert.deepEqual(processesUsing(userFolder), [], 'processes of the demo outlived it');
	});
});

function assertRan(run: ExecutionResult): void {
	if (run.status !== 'success' || run.error) {
		throw new Error(`the example ended ${run.status}: ${JSON.stringify(run.error ?? {}).slice(0, 1500)}`);
	}
}

function groupAlive(pid: number | undefined): boolean {
	if (pid === undefined) return false;
	try {
		process.kill(-pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Processes whose working folder or command line mentions `folder` (n8n and its task runner). */
function processesUsing(folder: string): string[] {
	const found: string[] = [];
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const cwd = readlinkSync(`/proc/${entry}/cwd`);
			const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
			if (cwd.startsWith(folder) || cmdline.includes(folder)) found.push(`${entry}: ${cmdline}`);
		} catch {
			// gone, or not ours to read
		}
	}
	return found;
}
