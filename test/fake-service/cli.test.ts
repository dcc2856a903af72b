import { spawn } from 'child_process';
import * as path from 'path';
import { KEYS } from './seed';

test.each([
	[[], 'live'],
	[['--shapes', 'spec'], 'spec'],
])('the command prints its base URL and a ready API key, and serves (%j: %s shapes)', async (extra, shapes) => {
	const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(__dirname, 'cli.ts'), '--port', '0', '--json', '--latency', '0', ...extra], {
		cwd: path.join(__dirname, '..', '..'),
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	try {
		const line = await new Promise<string>((resolve, reject) => {
			let out = '';
			child.stdout.on('data', (d) => {
				out += d.toString();
				const nl = out.indexOf('\n');
				if (nl >= 0) resolve(out.slice(0, nl));
			});
			child.on('exit', (code) => reject(new Error(`exited ${code}`)));
		});
		const info = JSON.parse(line);
		expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
		expect(info.apiKey).toBe(KEYS.owner);
		expect(info.shapes).toBe(shapes);
		const res = await fetch(`${info.url}/account`, { headers: { Authorization: `Bearer ${info.apiKey}` } });
		expect(res.status).toBe(200);
		// The shapes reach the answers: the live endpoint map has no GET /webhooks/{id}.
		const one = await fetch(`${info.url}/webhooks/1`, { headers: { Authorization: `Bearer ${info.apiKey}` } });
		expect(one.status).toBe(shapes === 'live' ? 404 : 200);
	} finally {
		child.kill('SIGTERM');
	}
}, 20000);
