/**
 * The contract is in the repository: every rule a comment in `nodes/` or `credentials/` (or a test, or
 * a document) cites as `docs/service.md#<anchor>` is an anchor of that page, and no file in `nodes/` or
 * `credentials/` points at a contract kept outside the repository, which a clone does not have.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SERVICE = readFileSync(path.join(ROOT, 'docs', 'service.md'), 'utf8');
const SOURCE_FOLDERS = ['nodes', 'credentials'];
/** Folders of the repository that hold no document of its own. */
const NOT_DOCUMENTS = new Set(['node_modules', 'dist', '.git', 'test-output']);

/** Every file under `folder` whose name passes `keep`, as a path from the repository's root. */
function filesUnder(folder: string, keep: (name: string) => boolean): string[] {
	return readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
		const relative = path.join(folder, entry.name);
		if (entry.isDirectory()) return NOT_DOCUMENTS.has(entry.name) ? [] : filesUnder(relative, keep);
		return keep(entry.name) ? [relative] : [];
	});
}

const read = (file: string) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') });
const sources = SOURCE_FOLDERS.flatMap((folder) => filesUnder(folder, () => true)).map(read);
/** What else cites the page: the tests and the documents beside the code. */
const others = [...filesUnder('test', () => true), 'CONTRIBUTING.md', path.join('bench', 'README.md')].map(read);

/** The anchors `<a id="…"></a>` of a page, in order. */
function anchorsOf(markdown: string): string[] {
	return [...markdown.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1]);
}

/** Each `docs/service.md#<anchor>` a text cites, with its line. */
function citationsIn(text: string): Array<{ anchor: string; line: number }> {
	return text.split('\n').flatMap((line, index) =>
		[...line.matchAll(/docs\/service\.md#([A-Za-z0-9_-]+)/g)].map((match) => ({ anchor: match[1], line: index + 1 })),
	);
}

describe('docs/service.md, the contract the code cites', () => {
	const anchors = anchorsOf(SERVICE);

	it('finds anchors and citations the way they are written', () => {
		expect(anchorsOf('<a id="paging"></a>\n\n## Paged lists <a id="cursor-rounds"></a>')).toEqual(['paging', 'cursor-rounds']);
		expect(citationsIn('// one round (docs/service.md#cursor-rounds).\n/** docs/service.md#term-types\' table */')).toEqual([
			{ anchor: 'cursor-rounds', line: 1 },
			{ anchor: 'term-types', line: 2 },
		]);
	});

	it('gives each rule one anchor', () => {
		expect(anchors.length).toBeGreaterThan(10);
		expect(anchors.filter((anchor, index) => anchors.indexOf(anchor) !== index)).toEqual([]);
	});

	it('has every rule a comment in nodes/ or credentials/ cites', () => {
		const cited = sources.flatMap(({ file, text }) => citationsIn(text).map((c) => ({ ...c, file })));
		expect(cited.length).toBeGreaterThan(30);
		const unresolved = cited.filter(({ anchor }) => !anchors.includes(anchor)).map((c) => `${c.file}:${c.line} #${c.anchor}`);
		expect(unresolved).toEqual([]);
	});

	it('has every rule a test or CONTRIBUTING.md cites', () => {
		const cited = others.flatMap(({ file, text }) => citationsIn(text).map((c) => ({ ...c, file })));
		expect(cited.length).toBeGreaterThan(5);
		const unresolved = cited.filter(({ anchor }) => !anchors.includes(anchor)).map((c) => `${c.file}:${c.line} #${c.anchor}`);
		expect(unresolved).toEqual([]);
	});

	it('links within itself only to its own anchors', () => {
		const links = [...SERVICE.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]);
		expect(links.filter((anchor) => !anchors.includes(anchor))).toEqual([]);
	});

	it('is the only contract nodes/ and credentials/ point at', () => {
		const outside = sources.filter(({ text }) => /SPEC\.md|SERVICE-NOTES\.md/.test(text)).map(({ file }) => file);
		expect(outside).toEqual([]);
	});

	it('is not looked for beside the repository by any of its documents', () => {
		const documents = filesUnder('.', (name) => name.endsWith('.md'));
		expect(documents).toEqual(expect.arrayContaining(['CONTRIBUTING.md', path.join('docs', 'service.md')]));
		const pointing = documents.filter((file) => readFileSync(path.join(ROOT, file), 'utf8').includes('../shared/'));
		expect(pointing).toEqual([]);
	});
});
