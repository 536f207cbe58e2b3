import { describe, expect, it } from 'vitest';
import { shareImportedMemory } from './pglite-shared-memory';

/** A module that imports `env.memory` with these limits, and a custom section after it. */
function moduleImportingMemory(limits: number[]): Uint8Array {
  const name = (s: string) => [s.length, ...Buffer.from(s)];
  const imports = [1, ...name('env'), ...name('memory'), 2, ...limits];
  const custom = [...name('after'), 7, 7, 7];
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 2, imports.length, ...imports, 0, custom.length, ...custom]);
}

const shared = () => new WebAssembly.Memory({ initial: 1, maximum: 32768, shared: true });
const link = (bytes: Uint8Array) => new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), { env: { memory: shared() } });

describe('shareImportedMemory', () => {
  it('marks an imported memory with a maximum as shared, in place of nothing else', () => {
    const bytes = moduleImportingMemory([0x01, 1, 0x80, 0x80, 0x02]);
    expect(() => link(bytes)).toThrow(WebAssembly.LinkError);
    const out = shareImportedMemory(bytes)!;
    expect(out.length).toBe(bytes.length);
    expect(() => link(out)).not.toThrow();
  });

  it('names a maximum for a memory imported without one (a side module), and keeps what follows', () => {
    const bytes = moduleImportingMemory([0x00, 1]);
    const out = shareImportedMemory(bytes)!;
    expect(out.length).toBe(bytes.length + 3);
    expect(() => link(out)).not.toThrow();
    expect(WebAssembly.Module.customSections(new WebAssembly.Module(out), 'after').map((b) => [...new Uint8Array(b)])).toEqual([[7, 7, 7]]);
  });

  it('leaves a module alone whose memory is shared already', () => {
    expect(shareImportedMemory(moduleImportingMemory([0x03, 1, 0x80, 0x80, 0x02]))).toBeUndefined();
  });
});
