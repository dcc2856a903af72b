/**
 * Installed the way users install it: the packed package is published to a registry on loopback
 * (verdaccio), and n8n's own community-package installer, pointed at it, installs it through the
 * REST call the Install button of Settings → Community Nodes makes. Then its nodes run, a newer
 * version published to the registry is offered and installed through n8n's update path, and the
 * uninstall leaves no node type behind. The Community Nodes screen is screenshot with the package.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

import {
	LocalRegistry,
	N8n,
	PACKAGE_NAME,
	node,
	openEditor,
	packPackage,
	prepareWorkflow,
	recordTiming,
	resolveRuntime,
	runCommand,
	startBackend,
	waitFor,
	workflow,
	type Backend,
	type CredentialRef,
	type PackedPackage,
} from './lib';

const NODE_NAMES = ['socialAggregator', 'socialAggregatorData', 'socialAggregatorDataTrigger', 'socialAggregatorFeedTrigger', 'socialAggregatorTrigger'];

/** The same build under another version number, as the next release would be. */
async function repackAs(pkg: PackedPackage, version: string): Promise<PackedPackage> {
	const folder = mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-repack-'));
	const untar = await runCommand('tar', ['-xzf', pkg.tarball, '-C', folder]);
	assert.equal(untar.code, 0, untar.stderr);
	const manifestPath = path.join(folder, 'package', 'package.json');
	const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string };
	manifest.version = version;
	writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
	const tarball = path.join(folder, `${pkg.name}-${version}.tgz`);
	const tar = await runCommand('tar', ['-czf', tarball, '-C', folder, 'package']);
	assert.equal(tar.code, 0, tar.stderr);
	return { tarball, name: pkg.name, version };
}

describe("installed through n8n's community-package installer from a registry on loopback", () => {
	let registry: LocalRegistry;
	let backend: Backend;
	let n8n: N8n;
	let credential: CredentialRef | undefined;
	let pkg: PackedPackage;
	let workflowId = '';

	/**
	 * A workflow with both action nodes, stored through the REST API (as the editor saves one); its credential saved
	 * the first time, as a user can once the package that defines its type is installed.
	 */
	const runBothActionNodes = async () => {
		credential ??= await n8n.importCredential({ name: 'Social Aggregator (e2e)', data: { apiKey: backend.apiKey, baseUrl: backend.url } });
		const spec = prepareWorkflow(
			workflow('Installed nodes', [
				node('socialAggregator', { resource: 'account', operation: 'get' }, { name: 'Account' }),
				node('socialAggregatorData', { resource: 'profile', operation: 'lookUp', term: 'nasa', platforms: ['Twitter'] }, { name: 'Look Up' }),
			]),
			credential,
		);
		if (workflowId === '') {
			const { id: _ignored, ...body } = spec;
			void _ignored;
			const created = await n8n.rest<{ id: string }>('POST', '/rest/workflows', body);
			workflowId = created.id;
		}
		const run = await n8n.runManually(workflowId);
		run.assertSuccess();
		assert.equal(run.items('Account').length, 1);
		assert.ok(run.items('Account')[0].email, 'the account has no email');
		assert.deepEqual(
			run.items('Look Up').map((profile) => `${String(profile.platform)}:${String(profile.term)}`),
			['Twitter:nasa'],
		);
	};

	before(
		async () => {
			const runtime = resolveRuntime();
			pkg = await packPackage();
			const started = Date.now();
			registry = await LocalRegistry.start(runtime);
			await registry.publish(pkg.tarball);
			recordTiming('local registry start and npm publish', Date.now() - started);
			backend = await startBackend();
			n8n = await N8n.create({ runtime, package: false, registry });
			n8n.redactor.add(backend.apiKey);
			await n8n.start();
		},
		{ timeout: 300_000 },
	);

	after(
		async () => {
			await n8n?.dispose();
			await backend?.close();
			await registry?.stop();
		},
		{ timeout: 60_000 },
	);

	it('installs through the REST call of the Install button, and Settings → Community Nodes lists it', async () => {
		assert.deepEqual(await n8n.installedPackages(), []);
		assert.deepEqual(await n8n.packageNodeTypes(), []);
		const started = Date.now();
		const installed = await n8n.installPackage(PACKAGE_NAME);
		recordTiming('community package install through n8n (REST)', Date.now() - started);
		assert.equal(installed.packageName, PACKAGE_NAME);
		assert.equal(installed.installedVersion, pkg.version);
		assert.deepEqual(installed.installedNodes.map((n) => n.type).sort(), NODE_NAMES.map((name) => `${PACKAGE_NAME}.${name}`).sort());
		const listed = await n8n.installedPackages();
		assert.deepEqual(listed.map((p) => [p.packageName, p.installedVersion]), [[PACKAGE_NAME, pkg.version]]);
		// n8n adds a `<node>Tool` variant of each action node (usableAsTool) for AI agents
		const types = await n8n.packageNodeTypes();
		assert.deepEqual(types.filter((type) => !type.endsWith('Tool')), NODE_NAMES.map((name) => `${PACKAGE_NAME}.${name}`).sort());
		assert.deepEqual(types.filter((type) => type.endsWith('Tool')), [`${PACKAGE_NAME}.socialAggregatorDataTool`, `${PACKAGE_NAME}.socialAggregatorTool`]);
		assert.ok(existsSync(path.join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME, 'package.json')));

		const editor = await openEditor(n8n);
		try {
			await editor.page.goto(`${n8n.baseUrl}/settings/community-nodes`);
			await editor.page.getByText(PACKAGE_NAME).first().waitFor({ state: 'visible' });
			await editor.page.waitForTimeout(500);
			assert.ok(existsSync(await editor.screenshot('community-nodes-installed')));
		} finally {
			await editor.close();
		}
	});

	it('the installed action nodes run against the service', async () => {
		await runBothActionNodes();
	});

	it("offers a newer version published to the registry, and updates to it through n8n's update path", async () => {
		const [major, minor, patch] = pkg.version.split('.').map(Number);
		const next = await repackAs(pkg, `${major}.${minor}.${patch + 1}`);
		try {
			await registry.publish(next.tarball);
			assert.equal((await registry.versions(PACKAGE_NAME)).latest, next.version);
			// n8n's "update available" check (npm outdated against the registry)
			const offered = await waitFor(
				'n8n to offer the newer version',
				async () => (await n8n.installedPackages()).find((p) => p.packageName === PACKAGE_NAME && p.updateAvailable === next.version),
				{ timeoutMs: 60_000, intervalMs: 1_000 },
			);
			assert.equal(offered.installedVersion, pkg.version);
			const started = Date.now();
			const updated = await n8n.updatePackage(PACKAGE_NAME);
			recordTiming('community package update through n8n (REST)', Date.now() - started);
			assert.equal(updated.installedVersion, next.version);
			const listed = await n8n.installedPackages();
			assert.deepEqual(listed.map((p) => [p.packageName, p.installedVersion, p.updateAvailable ?? null]), [[PACKAGE_NAME, next.version, null]]);
			const manifest = JSON.parse(
				readFileSync(path.join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME, 'package.json'), 'utf8'),
			) as { version: string };
			assert.equal(manifest.version, next.version);
			await runBothActionNodes();
		} finally {
			rmSync(path.dirname(next.tarball), { recursive: true, force: true });
		}
	});

	it('uninstalls, leaving no node type and no files behind', async () => {
		await n8n.uninstallPackage(PACKAGE_NAME);
		assert.deepEqual(await n8n.installedPackages(), []);
		assert.deepEqual(await n8n.packageNodeTypes(), []);
		assert.equal(existsSync(path.join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME)), false);
	});
});
