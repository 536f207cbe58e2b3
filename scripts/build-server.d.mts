export function buildServer(root: string, outdir: string): Promise<void>;
