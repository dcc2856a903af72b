/** The layout check of `npm test` (scripts/checkLayout.ts): each rule fails on a house that breaks it. */
import { layoutProblems, longFunctions, MAX_FUNCTION_LINES, sharedUsers, type Source } from '../../../scripts/checkLayout';

/** A function of `lines` lines, first line to closing brace. */
const functionOf = (name: string, lines: number) => `export function ${name}() {\n${'\tvoid 0;\n'.repeat(lines - 2)}}\n`;

const house: Source[] = [
	{ path: 'nodes/A/A.node.ts', text: "import { used } from '../shared/both';\nimport { only } from '../shared/onlyA';\n" },
	{ path: 'nodes/B/B.node.ts', text: "import { used } from '../shared/both';\n" },
	{ path: 'nodes/shared/both.ts', text: "import { deep } from './deep';\nexport const used = deep;\n" },
	{ path: 'nodes/shared/deep.ts', text: 'export const deep = 1;\n' },
	{ path: 'nodes/shared/onlyA.ts', text: 'export const only = 1;\n' },
	{ path: 'nodes/shared/nobody.ts', text: 'export const none = 1;\n' },
];

describe('sharedUsers', () => {
	it('counts the nodes that reach a shared file, through other shared files too', () => {
		const users = sharedUsers(house);
		expect([...users.get('nodes/shared/both.ts')!].sort()).toEqual(['A', 'B']);
		expect([...users.get('nodes/shared/deep.ts')!].sort()).toEqual(['A', 'B']);
		expect([...users.get('nodes/shared/onlyA.ts')!]).toEqual(['A']);
		expect(users.get('nodes/shared/nobody.ts')!.size).toBe(0);
	});
});

describe('longFunctions', () => {
	it(`names a function over ${MAX_FUNCTION_LINES} lines, declarations, arrows and methods alike`, () => {
		const text = [
			functionOf('fits', MAX_FUNCTION_LINES),
			functionOf('tooLong', MAX_FUNCTION_LINES + 1),
			`const arrow = () => {\n${'\tvoid 0;\n'.repeat(MAX_FUNCTION_LINES)}};\n`,
			`class Box {\n\tmethod() {\n${'\t\tvoid 0;\n'.repeat(MAX_FUNCTION_LINES)}\t}\n}\n`,
		].join('');
		const found = longFunctions({ path: 'nodes/A/long.ts', text });
		expect(found.map((line) => line.split(' ')[1])).toEqual(['tooLong', 'arrow', 'method']);
		expect(found[0]).toBe(`nodes/A/long.ts:${MAX_FUNCTION_LINES + 1} tooLong (${MAX_FUNCTION_LINES + 1} lines)`);
	});
});

describe('layoutProblems', () => {
	it('passes a house in order', () => {
		const inOrder = house.filter((source) => !/onlyA|nobody/.test(source.path)).map((source) => ({
			...source,
			text: source.text.replace("import { only } from '../shared/onlyA';\n", ''),
		}));
		expect(layoutProblems(inOrder)).toEqual([]);
	});

	it('names a shared file one node or none uses, a node file with a shared name, and a long function', () => {
		const problems = layoutProblems([
			...house,
			{ path: 'nodes/B/common/deep.ts', text: functionOf('long', MAX_FUNCTION_LINES + 5) },
		]);
		expect(problems).toEqual([
			'nodes/shared/onlyA.ts is in nodes/shared but serves only A: move it to its node\'s folder',
			'nodes/shared/nobody.ts is in nodes/shared but serves no node: move it to its node\'s folder',
			'nodes/B/common/deep.ts has the name of nodes/shared/deep.ts: name one of them for what it is',
			`nodes/B/common/deep.ts:1 long (${MAX_FUNCTION_LINES + 5} lines): over ${MAX_FUNCTION_LINES} lines, give its steps names of their own`,
		]);
	});
});
