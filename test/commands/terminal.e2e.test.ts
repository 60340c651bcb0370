import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFixtureServer } from '../helpers/fixture-server.js';
import { freePort } from '../helpers/ports.js';
import { runCliInTty } from '../helpers/tty.js';
import { useTempUser } from '../helpers/user.js';

// What a person at a terminal sees: a masked prompt, a spinner on slow requests, colour.
const server = useFixtureServer();
const user = useTempUser(server, { scope: 'test', token: 'tty-token' });

const slowPlant = (delayMs: number) =>
  server.respond((request, response) => {
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(request.body);
    }, delayMs);
  });

describe('on a terminal', () => {
  // `login --with-token` too: the serve banner tells people to run it, on a terminal.
  it.each([[['login', '--offline']], [['login', '--with-token', '--offline']]])(
    '%j asks for the token and echoes only stars',
    async (args) => {
      const token = 'typed-secret-token-42';
      // Nobody listens there (--offline: not tried), and 4010 may hold `npm start`.
      const home = `http://127.0.0.1:${await freePort()}`;
      const session = runCliInTty(args, {
        PLANTS_CONFIG_DIR: user.configDir,
        PLANTS_BASE_URL: home,
      });
      await session.waitFor('Paste your token: ');
      session.type(`${token}\r`);
      expect(await session.exited).toBe(0);
      expect(session.screen).toContain('*'.repeat(token.length));
      expect(session.screen).not.toContain(token);
      const config = JSON.parse(readFileSync(path.join(user.configDir, 'config.json'), 'utf8'));
      expect(config.tokens[home]).toBe(token);
    },
  );

  it('Ctrl-C at the prompt cancels with exit 130 and stores nothing', async () => {
    const session = runCliInTty(['login'], { PLANTS_CONFIG_DIR: user.configDir });
    await session.waitFor('Paste your token: ');
    session.type('abc\u0003');
    expect(await session.exited).toBe(130);
    expect(() => readFileSync(path.join(user.configDir, 'config.json'))).toThrow();
  });

  it('shows a spinner while a request is slow, and colour', async () => {
    slowPlant(1500);
    const session = runCliInTty(['add', '--id', '5', '--name', 'Fern'], user.env);
    expect(await session.exited).toBe(0);
    expect(session.screen).toContain('Adding plant 5');
    expect(session.screen).toContain('\u001b[32m✓\u001b[39m Added plant 5');
  });

  it('shows no spinner for a quick request, and no colour with NO_COLOR', async () => {
    slowPlant(0);
    const session = runCliInTty(['add', '--id', '6', '--name', 'Fern'], { ...user.env, NO_COLOR: '1' });
    expect(await session.exited).toBe(0);
    expect(session.screen).not.toContain('Adding plant');
    expect(session.screen).not.toContain('\u001b[3');
    expect(session.screen).toContain('✓ Added plant 6: Fern');
  });
});

it('never shows a spinner when stderr is not a terminal', async () => {
  slowPlant(1500);
  const result = await user.run(['add', '--id', '7', '--name', 'Fern']);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
});

it('a bulk add on a terminal shows progress and a summary on stderr, results on stdout', async () => {
  slowPlant(0);
  const file = path.join(user.dir, 'plants.ndjson');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, `${Array.from({ length: 3000 }, (_, index) => `{"id":${index + 1},"name":"p"}`).join('\n')}\n`);
  const session = runCliInTty(['add', '--file', file, '--concurrency', '4'], user.env);
  expect(await session.exited).toBe(0);
  expect(session.screen).toContain('{"line":3000,"sent":true,"status":200');
  expect(session.screen).toMatch(/Adding plants: \d+/);
  expect(session.screen).toMatch(
    /Added 3000 of 3000 plants in [\d.]+ s \(\d+\/s\): 0 already there, 0 conflicting, 0 rejected by the server, 0 invalid, 0 not sent \(no answer\), 0 unknown \(sent, may have been added\)/,
  );
});
