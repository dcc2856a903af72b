import { mkdirSync } from 'node:fs';
import * as path from 'node:path';

import type { Browser, Locator, Page } from 'playwright-core';

import type { N8n } from './n8n';
import { REPO_ROOT } from './runtime';

/** Screenshots and other artefacts of the e2e run (git-ignored). */
export const OUTPUT_DIR = path.join(REPO_ROOT, 'test-output', 'e2e');

export const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-dev-shm-usage',
];

export interface EditorSession {
	browser: Browser;
	page: Page;
	/** saves a full-page PNG under test-output/e2e/ and returns its path */
	screenshot(name: string): Promise<string>;
	close(): Promise<void>;
}

/** True when playwright-core can be loaded (it is what drives Chromium). */
export function playwrightAvailable(): boolean {
	try {
		require.resolve('playwright-core');
		return true;
	} catch {
		return false;
	}
}

/**
 * Opens the editor of a running n8n in headless Chromium (Debian's, from the runtime) and
 * signs in as the instance owner through the sign-in page. The page ends on the workflows list.
 */
export async function openEditor(n8n: N8n, { viewport = { width: 1440, height: 900 } } = {}): Promise<EditorSession> {
	return await openEditorAt(n8n.baseUrl, n8n.runtime.chromiumBin, n8n.ownerCredentials, { viewport });
}

/** The same for any n8n on loopback (such as the one `npm start` runs), signed in as `user`. */
export async function openEditorAt(
	baseUrl: string,
	chromiumBin: string,
	user: { email: string; password: string },
	{ viewport = { width: 1440, height: 900 } } = {},
): Promise<EditorSession> {
	const { chromium, selectors } = await import('playwright-core');
	// n8n's editor marks elements with data-test-id
	selectors.setTestIdAttribute('data-test-id');
	const browser = await chromium.launch({
		executablePath: chromiumBin,
		headless: true,
		args: CHROMIUM_ARGS,
	});
	let page: Page | undefined;
	try {
		const context = await browser.newContext({ viewport });
		page = await context.newPage();
		page.setDefaultTimeout(30_000);
		await page.goto(`${baseUrl}/signin`);
		await page.getByTestId('emailOrLdapLoginId').locator('input').fill(user.email);
		await page.getByTestId('password').locator('input').fill(user.password);
		await page.getByTestId('form-submit-button').click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30_000 });
		const opened = page;
		return {
			browser,
			page: opened,
			screenshot: async (name: string) => await saveScreenshot(opened, name),
			close: async () => await browser.close(),
		};
	} catch (error) {
		if (page) {
			const file = await saveScreenshot(page, 'editor-sign-in-failure').catch(() => undefined);
			if (file) (error as Error).message += `\n(screenshot: ${file})`;
		}
		await browser.close();
		throw error;
	}
}

/** Saves a full-page PNG under test-output/e2e/ and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
	mkdirSync(OUTPUT_DIR, { recursive: true });
	const file = path.join(OUTPUT_DIR, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
	await page.screenshot({ path: file, fullPage: true });
	return file;
}

/** Opens a workflow on the canvas and waits until its nodes are drawn. */
export async function openWorkflow(session: EditorSession, baseUrl: string, workflowId: string): Promise<void> {
	const { page } = session;
	await page.goto(`${baseUrl}/workflow/${workflowId}`);
	await page.getByTestId('canvas-node').first().waitFor({ state: 'visible' });
}

/** Opens a node's panel (NDV) by double-clicking it on the canvas; answers the panel's locator. */
export async function openNodePanel(session: EditorSession, nodeName: string): Promise<Locator> {
	const { page } = session;
	await page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`).dblclick();
	const panel = page.getByTestId('ndv');
	await panel.waitFor({ state: 'visible' });
	return panel;
}
