import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { oclifUserAgent } from '../../../src/cli/help/oclif-user-agent.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('oclifUserAgent (what the entry answers --version with)', () => {
  it("is oclif's own Config.userAgent on this machine", async () => {
    const config = await Config.load({ root });
    expect(oclifUserAgent(config.version)).toBe(config.userAgent);
  });

  // WSL cannot exist here: its kernel release is mocked (as WSL 2 reports it).
  it.skipIf(process.platform !== 'linux')(
    'leaves the answer to oclif under WSL, whose platform oclif calls wsl',
    () => {
      vi.spyOn(os, 'release').mockReturnValue('5.15.153.1-microsoft-standard-WSL2');
      expect(oclifUserAgent('1.2.3')).toBeUndefined();
    },
  );
});
