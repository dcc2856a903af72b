/** Small numeric helpers for the benchmark: medians, spreads, formatting. */

export function median(values: number[]): number {
	const finite = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
	if (finite.length === 0) return Number.NaN;
	const middle = Math.floor(finite.length / 2);
	return finite.length % 2 === 1 ? finite[middle] : (finite[middle - 1] + finite[middle]) / 2;
}

/** `min–max` of a series, for the spread column. */
export function spread(values: number[], format: (value: number) => string): string {
	const finite = values.filter((value) => Number.isFinite(value));
	if (finite.length === 0) return '-';
	return `${format(Math.min(...finite))}–${format(Math.max(...finite))}`;
}

export function seconds(ms: number): string {
	if (!Number.isFinite(ms)) return '-';
	return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 1000).toFixed(2)} s`;
}

export function ratio(value: number, digits = 2): string {
	return Number.isFinite(value) ? `${value.toFixed(digits)}x` : '-';
}

export function integer(value: number): string {
	return Number.isFinite(value) ? String(Math.round(value)) : '-';
}

export function bytes(value: number): string {
	if (value >= 1024 * 1024) return `${(value / 1024 / 1024).toFixed(2)} MiB`;
	if (value >= 1024) return `${(value / 1024).toFixed(1)} KiB`;
	return `${value} B`;
}
