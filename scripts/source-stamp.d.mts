export function sourceStamp(root: string): string;
export function buildIsCurrent(root: string): boolean;
export function buildIfStale(root: string, opts?: { onBuild?: () => void }): boolean;
