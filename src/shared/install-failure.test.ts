import { describe, expect, it } from 'vitest';
import { installFailureText } from './install-failure';

describe('installFailureText', () => {
  it("says each cause in the owner's words, and a cause it does not know as ours to fix", () => {
    expect(installFailureText('not_started')).toBe('We could not start your node. We are looking into it.');
    expect(installFailureText('key_refused')).toBe("The node's network refused your key. Change the key, then retry the installation.");
    // An older answer without the column, or a cause newer than this build.
    for (const unknown of [null, undefined, '', 'disk_full', 'toString']) expect(installFailureText(unknown)).toBe(installFailureText('not_started'));
  });
});
