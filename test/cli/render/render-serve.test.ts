import { describe, expect, it } from 'vitest';
import type { DetachedServePlan } from '../../../src/cli/actions/serve-detach.js';
import { plain } from '../../../src/cli/render/colors.js';
import { renderServeBanner, type ServeBanner } from '../../../src/cli/render/render-serve.js';

const plan: DetachedServePlan = {
  host: '127.0.0.1',
  port: 4010,
  database: 'plants.db',
  tokens: ['made-up-token-0123456789'],
  durability: 'full',
  tls: undefined,
};

const banner = (over: Partial<ServeBanner>): ServeBanner => ({
  url: 'http://127.0.0.1:4010',
  generated: false,
  command: 'plants',
  ...over,
});

describe('renderServeBanner: the login line', () => {
  // login --with-token on a terminal prompts and ends at Enter: a Ctrl-D after it reaches the shell, and closes it.
  it.each([
    ['a token made up for this run', { generated: true }],
    ['a token kept for the store', { generated: true, keptToken: { file: 'plants.db.token', fresh: true } }],
    ['a token given', {}],
  ])('%s: asks for Enter, never for Ctrl-D', (_case, over) => {
    const text = renderServeBanner(plan, banner(over), plain);
    expect(text).toContain('plants login --base-url http://127.0.0.1:4010 --with-token   # then paste');
    expect(text).toMatch(/at its prompt, Enter/);
    expect(text).not.toContain('Ctrl-D');
  });
});
