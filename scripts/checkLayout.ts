/**
 * The house's rules a machine can check (CONTRIBUTING.md, "Layout"), over nodes/ and credentials/:
 * - every file in nodes/shared serves at least two nodes (directly, or through other shared files);
 * - no file in nodes/shared has the name of a file in a node's folder;
 * - no function is longer than 60 lines, from its first line to its closing brace.
 *
 *   npx ts-node --transpile-only scripts/checkLayout.ts    (npm run check:layout)
 */
import { readdirSync, readFileSync } from 'fs';
import { basename, dirname, join, normalize, relative } from 'path';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 60;
const SHARED = 'nodes/shared/';

/** A source file: its path from the repository's root, with `/` between folders, and its text. */
export interface Source {
	path: string;
	text: string;
}

/** The shared file a relative import of `from` names, if it names one of `known`. */
function importedPath(from: string, specifier: string, known: Set<string>): string | undefined {
	if (!specifier.startsWith('.')) return undefined;
	const base = normalize(join(dirname(from), specifier)).split('\\').join('/');
	return [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => known.has(candidate));
}

/** The node a file belongs to (its folder under nodes/), or undefined for shared files and the credentials. */
function nodeOf(path: string): string | undefined {
	const [root, folder] = path.split('/');
	return root === 'nodes' && folder !== 'shared' ? folder : undefined;
}

/** Each shared file and the nodes that reach it through their imports, shared files in between. */
export function sharedUsers(sources: Source[]): Map<string, Set<string>> {
	const known = new Set(sources.map((source) => source.path));
	const imports = new Map<string, string[]>();
	for (const { path, text } of sources) {
		const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
		imports.set(path, specifiers.flatMap((specifier) => importedPath(path, specifier, known) ?? []));
	}
	const users = new Map<string, Set<string>>(sources.filter((s) => s.path.startsWith(SHARED)).map((s) => [s.path, new Set()]));
	for (const { path } of sources) {
		const node = nodeOf(path);
		if (!node) continue;
		const stack = [...(imports.get(path) ?? [])];
		const seen = new Set<string>();
		while (stack.length > 0) {
			const next = stack.pop()!;
			if (seen.has(next) || !next.startsWith(SHARED)) continue;
			seen.add(next);
			users.get(next)?.add(node);
			stack.push(...(imports.get(next) ?? []));
		}
	}
	return users;
}

/** Functions longer than `MAX_FUNCTION_LINES`, as `path:line name (n lines)`. */
export function longFunctions({ path, text }: Source): string[] {
	const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const lineOf = (position: number) => file.getLineAndCharacterOfPosition(position).line + 1;
	const visit = (node: ts.Node) => {
		if (ts.isFunctionLike(node) && 'body' in node && node.body) {
			const first = lineOf(node.getStart(file));
			const lines = lineOf(node.end) - first + 1;
			if (lines > MAX_FUNCTION_LINES) {
				const named = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
				found.push(`${path}:${first} ${named ? named.getText(file) : '(a function)'} (${lines} lines)`);
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

/** What breaks the rules above, one line each; none when the house is in order. */
export function layoutProblems(sources: Source[]): string[] {
	const problems: string[] = [];
	for (const [path, nodes] of sharedUsers(sources)) {
		if (nodes.size < 2) {
			const who = nodes.size === 0 ? 'no node' : `only ${[...nodes][0]}`;
			problems.push(`${path} is in nodes/shared but serves ${who}: move it to its node's folder`);
		}
	}
	const sharedNames = new Set(sources.filter((s) => s.path.startsWith(SHARED)).map((s) => basename(s.path)));
	for (const { path } of sources) {
		if (nodeOf(path) && sharedNames.has(basename(path))) {
			problems.push(`${path} has the name of ${SHARED}${basename(path)}: name one of them for what it is`);
		}
	}
	for (const source of sources) {
		for (const long of longFunctions(source)) problems.push(`${long}: over ${MAX_FUNCTION_LINES} lines, give its steps names of their own`);
	}
	return problems;
}

/** Every TypeScript file under `folder`, its path relative to `root`. */
function sourcesUnder(root: string, folder: string): Source[] {
	return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
		const path = `${folder}/${entry.name}`;
		if (entry.isDirectory()) return sourcesUnder(root, path);
		return path.endsWith('.ts') ? [{ path, text: readFileSync(join(root, path), 'utf8') }] : [];
	});
}

if (require.main === module) {
	const root = relative(process.cwd(), join(__dirname, '..')) || '.';
	const problems = layoutProblems([...sourcesUnder(root, 'nodes'), ...sourcesUnder(root, 'credentials')]);
	for (const problem of problems) console.error(problem);
	if (problems.length > 0) process.exit(1);
	console.log('layout: shared files serve two nodes or more, no shared name in a node folder, no function over 60 lines');
}
