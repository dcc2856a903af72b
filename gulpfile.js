const path = require('path');
const { task, src, dest } = require('gulp');

// Node and credential icons are referenced as `file:` paths next to the compiled
// code, so they are copied into dist with the same folder layout.
function copyIcons() {
	const nodeIcons = src('nodes/**/*.{png,svg}', { encoding: false }).pipe(dest(path.resolve('dist', 'nodes')));
	return nodeIcons.on('end', () =>
		src('credentials/**/*.{png,svg}', { encoding: false }).pipe(dest(path.resolve('dist', 'credentials'))),
	);
}

task('build:icons', copyIcons);
