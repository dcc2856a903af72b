/**
 * The editor in a browser: Debian's Chromium, headless, driven by playwright-core, signs in to a
 * real n8n with the packed package and the example workflows, opens the moderation example and
 * the panel of its Social Aggregator node, and checks that the node's resources and the Post
 * operations render in their dropdowns; then opens the hashtag example's Data Trigger and checks
 * that its platforms dropdown loads live from the service (with what a platform page costs); then a
 * Feed › Update node with every moderation setting; then the webhook, source and post pickers, each
 * From List opened and searched. Screenshots go to test-output/e2e/.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, describe, it } from 'node:test';

import type { Locator, Page } from 'playwright-core';

import { SEEDED } from '../fake-service';
import {
	e2eSuite,
	node,
	openEditor,
	openNodePanel,
	openWorkflow,
	recordTiming,
	saveScreenshot,
	workflow,
	type EditorSession,
} from './lib';

const MODERATION = 'examples/moderate-new-posts.json';
const HASHTAG = 'examples/collect-hashtag-posts.json';
const FEED_SETTINGS = 'Feed moderation settings';
/** Feed › Update with every moderation setting, as the panel stores them. */
const feedSettings = workflow(FEED_SETTINGS, [
	node(
		'socialAggregator',
		{
			resource: 'feed',
			operation: 'update',
			feedId: { __rl: true, mode: 'id', value: String(SEEDED.feeds.productLaunch) },
			updateFields: {
				queue: true,
				allowedWords: 'acme, launch',
				blockedWords: 'spam, giveaway',
				profanityFilter: true,
				preventDuplicates: true,
				deduplicationStrategy: 'distribute_across_sources',
				aiModeration: true,
				aiHarmfulContentFilter: true,
				aiModerationRules: 'Hide posts that mention competitors.',
				aiSentimentFilter: ['negative', 'neutral'],
			},
		},
		{ name: 'Moderate Feed' },
	),
]);

const PICKERS = 'Pickers';
const brandMentions = { __rl: true, mode: 'list', value: String(SEEDED.feeds.brandMentions) };
/** A node per new picker, its ID not chosen yet, within a chosen feed where the picker needs one. */
const pickers = workflow(PICKERS, [
	node('socialAggregator', { resource: 'webhook', operation: 'get' }, { name: 'Get Webhook' }),
	node('socialAggregator', { resource: 'source', operation: 'delete', feedId: brandMentions }, { name: 'Delete Source' }),
	node('socialAggregator', { resource: 'post', operation: 'get', feedId: brandMentions }, { name: 'Get Post' }),
]);

const RESOURCES = ['Account', 'Analytics', 'Feed', 'Platform', 'Post', 'Social Account', 'Source', 'User', 'Webhook'];
const POST_OPERATIONS = ['Approve', 'Delete', 'Download Media', 'Get', 'Get Many', 'Moderate Many', 'Pin', 'Reject', 'Search Across Feeds', 'Unpin'];

/**
 * Opens a parameter's dropdown in the node panel and answers the headlines of its options. A
 * click that lands while the panel is still rendering (or its options still loading) is retried.
 */
async function dropdownOptions(page: Page, panel: Locator, parameter: string): Promise<string[]> {
	const items = page.locator('.el-select-dropdown:visible .el-select-dropdown__item .option-headline');
	let lastError: unknown;
	const input = panel.getByTestId(`parameter-input-${parameter}`);
	for (let attempt = 1; attempt <= 3; attempt++) {
		// at the arrow on the right: the middle of a multi-select may be a chip's remove button
		const box = await input.boundingBox();
		await input.click(box ? { position: { x: box.width - 14, y: box.height / 2 } } : {});
		try {
			await items.first().waitFor({ state: 'visible', timeout: 10_000 });
			await page.waitForTimeout(300); // the fade-in, for the screenshots
			return (await items.allInnerTexts()).map((text) => text.trim());
		} catch (error) {
			lastError = error;
			await page.keyboard.press('Escape');
		}
	}
	const file = await saveScreenshot(page, `editor-failure-${parameter}`).catch(() => undefined);
	throw new Error(`the ${parameter} dropdown did not open${file ? ` (screenshot: ${file})` : ''}: ${(lastError as Error).message}`);
}

/** The options of the open dropdown that are chosen (multi-selects tick them). */
async function chosenOptions(page: Page): Promise<string[]> {
	const chosen = page.locator('.el-select-dropdown:visible .el-select-dropdown__item.selected .option-headline');
	return (await chosen.allInnerTexts()).map((text) => text.trim());
}

/**
 * Opens a resource locator's From List, waits for its items, types `search` into its search box and
 * answers the items shown once the list has narrowed (a click while the panel renders is retried).
 */
async function searchPicker(page: Page, panel: Locator, parameter: string, search: string): Promise<{ before: string[]; after: string[] }> {
	const items = page.getByTestId('rlc-item').locator('visible=true');
	const texts = async () => (await items.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
	let lastError: unknown;
	for (let attempt = 1; attempt <= 3; attempt++) {
		await panel.getByTestId(`resource-locator-${parameter}`).getByTestId('rlc-input-container').click();
		try {
			await items.first().waitFor({ state: 'visible', timeout: 10_000 });
			const before = await texts();
			// the list opens with its search box focused
			await page.keyboard.type(search, { delay: 50 });
			// the search is debounced and may ask the service: poll until the list has narrowed
			const narrowed = (shown: string[]) => shown.length > 0 && shown.length < before.length;
			for (let wait = 0; !narrowed(await texts()); wait += 200) {
				if (wait > 10_000) throw new Error(`the list did not narrow to "${search}": ${(await texts()).join(' | ')}`);
				await page.waitForTimeout(200);
			}
			await page.waitForTimeout(300); // the fade-in, for the screenshots
			return { before, after: await texts() };
		} catch (error) {
			lastError = error;
			await saveScreenshot(page, `editor-failure-${parameter}-${attempt}`).catch(() => undefined);
			await page.keyboard.press('Escape');
		}
	}
	const file = await saveScreenshot(page, `editor-failure-${parameter}`).catch(() => undefined);
	throw new Error(`the ${parameter} picker did not list or search${file ? ` (screenshot: ${file})` : ''}: ${(lastError as Error).message}`);
}

async function closeDropdown(page: Page): Promise<void> {
	await page.keyboard.press('Escape');
	await page.locator('.el-select-dropdown:visible').waitFor({ state: 'hidden' });
}

describe('the n8n editor in headless Chromium', () => {
	const ids: Record<string, string> = {};
	const ctx = e2eSuite({
		start: true,
		beforeStart: async ({ n8n }) => {
			const [moderation, hashtag, settings, picking] = await n8n.importWorkflows([MODERATION, HASHTAG, feedSettings, pickers]);
			ids[MODERATION] = moderation;
			ids[HASHTAG] = hashtag;
			ids[FEED_SETTINGS] = settings;
			ids[PICKERS] = picking;
		},
	});
	let editor: EditorSession | undefined;
	after(async () => await editor?.close());

	it('signs in as the owner', async () => {
		assert.ok(existsSync(ctx.n8n.runtime.chromiumBin), `Chromium is missing at ${ctx.n8n.runtime.chromiumBin}: run scripts/provision-n8n.sh`);
		const started = Date.now();
		editor = await openEditor(ctx.n8n);
		recordTiming('browser launch and sign-in', Date.now() - started);
		assert.doesNotMatch(new URL(editor.page.url()).pathname, /^\/(signin|setup)/);
		await editor.page.getByText('Create workflow').first().waitFor({ state: 'visible' });
	});

	it('opens the moderation example, and its Social Aggregator node lists every resource and the Post operations', async () => {
		assert.ok(editor, 'not signed in');
		const { page } = editor;
		await openWorkflow(editor, ctx.n8n.baseUrl, ids[MODERATION]);
		for (const name of ['On New Posts', 'Breaks a Rule?', 'Approve Post', 'Reject Post']) {
			await page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).waitFor({ state: 'visible' });
		}
		assert.ok(existsSync(await editor.screenshot('editor-moderation-example')));

		const panel = await openNodePanel(editor, 'Reject Post');
		const resources = await dropdownOptions(page, panel, 'resource');
		// n8n adds "Custom API Call" (an HTTP request with the node's credential) to declarative nodes
		assert.deepEqual(resources.filter((name) => name !== 'Custom API Call'), RESOURCES);
		assert.deepEqual(await chosenOptions(page), ['Post']);
		assert.ok(existsSync(await editor.screenshot('editor-social-aggregator-resources')));
		await closeDropdown(page);

		const operations = await dropdownOptions(page, panel, 'operation');
		assert.deepEqual(operations.filter((name) => name !== 'Custom API Call'), POST_OPERATIONS);
		assert.deepEqual(await chosenOptions(page), ['Reject']);
		assert.ok(existsSync(await editor.screenshot('editor-social-aggregator-post-operations')));
		await closeDropdown(page);
		await panel.getByTestId('ndv-close-button').click().catch(async () => await page.keyboard.press('Escape'));
	});

	it("opens the hashtag example's Data Trigger, whose platforms load live from the service", async () => {
		assert.ok(editor, 'not signed in');
		const { page } = editor;
		const before = ctx.backend.fake!.control.requests.list({ method: 'GET', path: '/platforms' }).length;
		await openWorkflow(editor, ctx.n8n.baseUrl, ids[HASHTAG]);
		const panel = await openNodePanel(editor, 'New #acme Posts');
		await panel.getByTestId('parameter-input-term').waitFor({ state: 'visible' });
		const platforms = await dropdownOptions(page, panel, 'platforms');
		for (const platform of ['Bluesky', 'Instagram', 'TikTok', 'X (Twitter)', 'YouTube', 'Reddit']) {
			assert.ok(platforms.includes(platform), `${platform} is not offered: ${platforms.join(', ')}`);
		}
		assert.deepEqual((await chosenOptions(page)).sort(), ['Bluesky', 'Instagram', 'TikTok', 'X (Twitter)']);
		assert.ok(ctx.backend.fake!.control.requests.list({ method: 'GET', path: '/platforms' }).length > before, 'the dropdown did not ask the service');
		assert.ok(existsSync(await editor.screenshot('editor-data-trigger-platforms')));
		await closeDropdown(page);
		// where platforms are chosen, what a page costs
		await panel.getByText('Each page a platform returns spends credits: 1 for most platforms').first().waitFor({ state: 'visible' });
	});

	it('shows the feed moderation settings under Update Fields: switches, words, the strategy, rules and the sentiment multi-select', async () => {
		assert.ok(editor, 'not signed in');
		const { page } = editor;
		await openWorkflow(editor, ctx.n8n.baseUrl, ids[FEED_SETTINGS]);
		const panel = await openNodePanel(editor, 'Moderate Feed');
		const labels = [
			'AI Harmful Content Filter',
			'AI Moderation',
			'AI Moderation Rules',
			'AI Sentiment Filter',
			'Allowed Words',
			'Blocked Words',
			'Deduplication Strategy',
			'Hold New Posts for Approval',
			'Prevent Duplicates',
			'Profanity Filter',
		];
		for (const label of labels) await panel.getByText(label, { exact: true }).first().waitFor({ state: 'visible' });
		assert.ok(existsSync(await editor.screenshot('editor-feed-moderation-settings')));

		assert.deepEqual(await dropdownOptions(page, panel, 'aiSentimentFilter'), ['Negative', 'Neutral', 'Positive']);
		assert.deepEqual(await chosenOptions(page), ['Negative', 'Neutral']);
		assert.ok(existsSync(await editor.screenshot('editor-feed-moderation-sentiment')));
		await closeDropdown(page);
		assert.deepEqual(await dropdownOptions(page, panel, 'deduplicationStrategy'), ['Distribute Across Sources', 'Prioritize Top Source']);
		assert.deepEqual(await chosenOptions(page), ['Distribute Across Sources']);
		await closeDropdown(page);
	});

	it('lists and searches the webhook, source and post pickers (From List)', async () => {
		assert.ok(editor, 'not signed in');
		const { page } = editor;
		await openWorkflow(editor, ctx.n8n.baseUrl, ids[PICKERS]);
		const requests = ctx.backend.fake!.control.requests;
		const cases = [
			{ node: 'Get Webhook', parameter: 'webhookId', search: 'alerts', shown: true, screenshot: 'editor-picker-webhook' },
			{ node: 'Delete Source', parameter: 'sourceId', search: 'reddit', shown: true, screenshot: 'editor-picker-source' },
			// the service searches a post's message, poster and description: the label need not show the match
			{ node: 'Get Post', parameter: 'postId', search: 'acme', shown: false, screenshot: 'editor-picker-post' },
		];
		for (const picker of cases) {
			const panel = await openNodePanel(editor, picker.node);
			const { before, after } = await searchPicker(page, panel, picker.parameter, picker.search);
			assert.ok(existsSync(await editor.screenshot(picker.screenshot)));
			assert.ok(after.length > 0 && after.length < before.length, `${picker.parameter}: ${before.length} listed, ${after.length} found`);
			if (picker.shown) for (const text of after) assert.match(text, new RegExp(picker.search, 'i'));
			await page.keyboard.press('Escape');
			await panel.getByTestId('ndv-close-button').click().catch(async () => await page.keyboard.press('Escape'));
		}
		assert.ok(requests.list({ method: 'GET', path: '/webhooks' }).length > 0);
		assert.ok(requests.list({ method: 'GET', path: `/feeds/${SEEDED.feeds.brandMentions}/sources` }).length > 0);
		// the post search is the service's: the text typed reached it
		const posts = requests.list({ method: 'GET', path: `/feeds/${SEEDED.feeds.brandMentions}/posts` });
		assert.ok(posts.some((request) => request.query.search === 'acme'), JSON.stringify(posts.map((r) => r.query)));
	});
});
