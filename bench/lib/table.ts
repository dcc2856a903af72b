/** The one table `npm run bench` prints: plain text, columns padded to their widest cell. */

export interface Row {
	case: string;
	side: string;
	requests: string;
	time: string;
	result: string;
	ratio: string;
	target: string;
	met: string;
}

const COLUMNS: Array<[keyof Row, string]> = [
	['case', 'case'],
	['side', 'side'],
	['requests', 'requests'],
	['time', 'time (median; min–max)'],
	['result', 'result'],
	['ratio', 'ratio'],
	['target', 'target'],
	['met', 'met'],
];

export function renderTable(rows: Row[]): string {
	const widths = COLUMNS.map(([key, title]) => Math.max(title.length, ...rows.map((row) => row[key].length)));
	const line = (cells: string[]) => `| ${cells.map((cell, index) => cell.padEnd(widths[index])).join(' | ')} |`;
	const out = [line(COLUMNS.map(([, title]) => title)), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`];
	let previousCase = '';
	for (const row of rows) {
		out.push(line(COLUMNS.map(([key]) => (key === 'case' && row.case === previousCase ? '' : row[key]))));
		previousCase = row.case;
	}
	return out.join('\n');
}

export const yes = (met: boolean) => (met ? 'yes' : 'NO');
