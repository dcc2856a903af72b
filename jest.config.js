// Three fast layers run in-process; the real-n8n layer (test/e2e) has its own runner.
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.test.json' }];
const project = (name, roots) => ({
	displayName: name,
	testEnvironment: 'node',
	roots,
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': tsJest },
});

module.exports = {
	projects: [
		project('unit', ['<rootDir>/test/unit']),
		project('contract', ['<rootDir>/test/fake-service']),
		project('workflows', ['<rootDir>/test/workflows']),
	],
};
