/**
 * The documentation links resolve: every `*.node.json` (primary and credential documentation)
 * and the credential's `documentationUrl` point at the repository's README and at an anchor that
 * one of its headings creates, by GitHub's rules for heading anchors; so do the README's own
 * `#anchor` links. Every relative link of the README, of the pages under docs/ and of the
 * benchmark's report leads to a file that exists, and its #anchor to a heading of that file.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { SocialAggregatorApi } from '../../credentials/SocialAggregatorApi.credentials';

const ROOT = path.resolve(__dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { homepage: string };
/** The repository's page, where GitHub shows the README. */
const REPOSITORY = manifest.homepage.replace(/#.*$/, '');

/** The text a heading shows: inline markup (links, images, code, emphasis, HTML) reduced to its words. */
function headingText(markdown: string): string {
	return markdown
		.replace(/\s+#+\s*$/, '')
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/<[^>]+>/g, '')
		.replace(/`([^`]*)`/g, '$1')
		.replace(/(\*\*|\*|~~)/g, '')
		.trim();
}

/** GitHub's anchor for a heading's text (github-slugger): lower case, no punctuation or symbols, a hyphen per space. */
export function slug(text: string): string {
	return text
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
		.replace(/ /g, '-');
}

/** The anchors the headings of a Markdown text create, in order; a repeated one gets -1, -2 … as on GitHub. */
export function headingAnchors(markdown: string): string[] {
	const seen = new Map<string, number>();
	const anchors: string[] = [];
	let fence: string | undefined;
	for (const line of markdown.split('\n')) {
		const opening = /^\s{0,3}(```+|~~~+)/.exec(line);
		if (opening) {
			if (fence === undefined) fence = opening[1][0];
			else if (opening[1][0] === fence) fence = undefined;
			continue;
		}
		if (fence !== undefined) continue;
		const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line);
		if (!heading) continue;
		const base = slug(headingText(heading[1]));
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.push(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

function nodeJsonFiles(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(folder, entry.name);
		if (entry.isDirectory()) return nodeJsonFiles(full);
		return entry.name.endsWith('.node.json') ? [full] : [];
	});
}

interface Codex {
	resources?: Record<string, Array<{ url: string }>>;
}

/** Every documentation URL of the package, with where it is written. */
function documentationUrls(): Array<[string, string]> {
	const urls: Array<[string, string]> = [];
	for (const file of nodeJsonFiles(path.join(ROOT, 'nodes'))) {
		const codex = JSON.parse(readFileSync(file, 'utf8')) as Codex;
		for (const [kind, links] of Object.entries(codex.resources ?? {})) {
			for (const link of links) urls.push([`${path.relative(ROOT, file)} ${kind}`, link.url]);
		}
	}
	urls.push(['credential documentationUrl', new SocialAggregatorApi().documentationUrl]);
	return urls;
}

describe("GitHub's heading anchors", () => {
	test.each([
		['Social Aggregator Data Trigger', 'social-aggregator-data-trigger'],
		['Triggers: exactly once', 'triggers-exactly-once'],
		['Run it locally, and run the tests', 'run-it-locally-and-run-the-tests'],
		['Rate limits, lost answers and bad input', 'rate-limits-lost-answers-and-bad-input'],
		['A — B', 'a--b'],
		['snake_case and C++ (v2.0)', 'snake_case-and-c-v20'],
		['Überblick', 'überblick'],
	])('%s → #%s', (text, anchor) => {
		expect(slug(text)).toBe(anchor);
	});

	test('markup in a heading counts by its text; repeats are numbered; fenced code is no heading', () => {
		const markdown = [
			'# The `npm start` command',
			'## [Credentials](#credentials) ##',
			'## **Credentials**',
			'```sh',
			'# not a heading',
			'```',
			'### Credentials',
		].join('\n');
		expect(headingAnchors(markdown)).toEqual(['the-npm-start-command', 'credentials', 'credentials-1', 'credentials-2']);
	});
});

describe('documentation links resolve to a README heading', () => {
	const anchors = new Set(headingAnchors(README));
	const urls = documentationUrls();

	test('there is a link for every node (primary and credential) and the credential', () => {
		const nodes = nodeJsonFiles(path.join(ROOT, 'nodes'));
		expect(nodes).toHaveLength(5);
		expect(urls).toHaveLength(nodes.length * 2 + 1);
	});

	test.each(documentationUrls())('%s: %s', (_where, url) => {
		const [page, anchor] = url.split('#');
		expect(page).toBe(REPOSITORY);
		expect(anchor).toBeTruthy();
		expect([...anchors]).toContain(anchor);
	});

	test('each node has a section of its own', () => {
		expect(new Set(urls.filter(([where]) => where.includes('primaryDocumentation')).map(([, url]) => url)).size).toBe(5);
	});

	test("the README's own #links resolve too", () => {
		const links = [...README.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]);
		expect(links.length).toBeGreaterThan(0);
		for (const link of links) expect([link, anchors.has(link)]).toEqual([link, true]);
	});
});

/** The targets of a Markdown text's inline links and images, outside code, as written. */
function linkTargets(markdown: string): string[] {
	const prose = markdown.replace(/^ {0,3}(```+|~~~+)[\s\S]*?^ {0,3}\1/gm, '').replace(/`[^`]*`/g, '');
	return [...prose.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]);
}

/** The anchors a Markdown file offers: its headings' and its HTML anchors' (`<a id="…">`, `<a name="…">`). */
function anchorsOf(markdown: string): Set<string> {
	const html = [...markdown.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)].map((match) => match[1]);
	return new Set([...headingAnchors(markdown), ...html]);
}

/** Every relative link of a document that leads nowhere: a missing file, or an anchor no heading of its page creates. */
function brokenLinks(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const broken: string[] = [];
	for (const target of linkTargets(text)) {
		if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …: not in this repository
		const [pathPart, anchor] = target.split('#');
		const destination = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
		if (!existsSync(destination)) {
			broken.push(`${target}: no such file`);
			continue;
		}
		if (anchor === undefined) continue;
		if (!destination.endsWith('.md')) {
			broken.push(`${target}: an anchor into a file that is not Markdown`);
			continue;
		}
		if (!anchorsOf(readFileSync(destination, 'utf8')).has(anchor)) broken.push(`${target}: no such heading`);
	}
	return broken;
}

/** The user documentation: the README, the pages under docs/ and the benchmark's report. */
function documents(): string[] {
	const docs = readdirSync(path.join(ROOT, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => path.join(ROOT, 'docs', name));
	return [path.join(ROOT, 'README.md'), ...docs, path.join(ROOT, 'bench/README.md')];
}

describe('relative links in the documentation resolve', () => {
	test('links are found in prose, not in code', () => {
		const markdown = [
			'See [a page](docs/a.md#b), ![an image](img.png "title") and [a site](https://n8n.io).',
			'A link split over [two',
			'lines](x.md). `[not](a-link.md)`',
			'```md',
			'[nor](this.md)',
			'```',
		].join('\n');
		expect(linkTargets(markdown)).toEqual(['docs/a.md#b', 'img.png', 'https://n8n.io', 'x.md']);
	});

	test('a missing file and a missing heading are both found; headings and HTML anchors count', () => {
		const folder = mkdtempSync(path.join(tmpdir(), 'links-'));
		try {
			writeFileSync(path.join(folder, 'b.md'), '# Real heading\n\n<a id="kept"></a>\n');
			const a = path.join(folder, 'a.md');
			writeFileSync(a, '# Top\n[1](b.md#real-heading) [2](b.md#kept) [3](#top) [4](b.md) [5](missing.md) [6](b.md#nope) [7](#gone)\n');
			expect(brokenLinks(a)).toEqual(['missing.md: no such file', 'b.md#nope: no such heading', '#gone: no such heading']);
		} finally {
			rmSync(folder, { recursive: true, force: true });
		}
	});

	test.each(documents().map((file) => [path.relative(ROOT, file), file]))('%s', (_name, file) => {
		expect(existsSync(file)).toBe(true);
		expect(brokenLinks(file)).toEqual([]);
	});
});
