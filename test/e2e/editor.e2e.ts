/**
 * The editor in a browser: Debian's Chromium, headless, driven by playwright-core, signs in
 * as the owner of a real n8n with the packed package, opens a workflow with one of the
 * package's nodes and that node's panel, and saves screenshots under test-output/e2e/.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';

import {
	e2eSuite,
	node,
	openEditor,
	openNodePanel,
	openWorkflow,
	playwrightAvailable,
	recordTiming,
	resolveRuntime,
	workflow,
} from './lib';

const skip = !playwrightAvailable()
	? 'playwright-core is not installed'
	: process.env.N8N_SKIP_CHROMIUM === '1'
		? 'N8N_SKIP_CHROMIUM=1'
		: !existsSync(resolveRuntime().chromiumBin)
			? 'Chromium is not installed'
			: false;

describe('the n8n editor in headless Chromium', { skip }, () => {
	let workflowId = '';
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n }) => {
			workflowId = await n8n.importWorkflow(
				workflow('E2E editor check', [
					node('socialAggregatorData', { resource: 'profile', operation: 'lookUp', term: 'nasa' }, { name: 'Look Up' }),
				]),
			);
		},
	});

	it('signs in, opens a workflow and the node panel of a package node', async () => {
		const started = Date.now();
		const editor = await openEditor(ctx.n8n);
		try {
			recordTiming('browser launch and sign-in', Date.now() - started);
			const { page } = editor;
			assert.doesNotMatch(new URL(page.url()).pathname, /^\/(signin|setup)/);
			await page.getByText('Create workflow').first().waitFor({ state: 'visible' });
			assert.ok(existsSync(await editor.screenshot('editor-home')));

			await openWorkflow(editor, ctx.n8n.baseUrl, workflowId);
			assert.ok(existsSync(await editor.screenshot('editor-workflow')));

			const panel = await openNodePanel(editor, 'Look Up');
			await panel.getByText('Resource').first().waitFor({ state: 'visible' });
			assert.ok(existsSync(await editor.screenshot('editor-node-panel')));
		} finally {
			await editor.close();
		}
	});
});
