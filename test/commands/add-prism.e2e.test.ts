import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { useTempUser } from '../helpers/user.js';

// An independent implementation of the contract: Stoplight Prism mocking the project's own OpenAPI
// document. It validates what `plants add` sends (a request that breaks the schema gets 422).
const contract = path.join(projectRoot, 'spec', 'plant-store.openapi.yaml');

let prism: ChildProcess;
let baseUrl: string;
// The store's URL is known once Prism listens; each run names it.
const user = useTempUser(undefined, { token: 'prism-token' });

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  prism = spawn(
    path.join(projectRoot, 'node_modules', '.bin', 'prism'),
    ['mock', contract, '--host', '127.0.0.1', '--port', String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${log}`)), 25_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    prism.stdout?.on('data', onData);
    prism.stderr?.on('data', onData);
    prism.on('exit', (code) => reject(new Error(`prism exited ${code}:\n${log}`)));
  });
}, 30_000);

afterAll(() => {
  prism?.kill('SIGTERM');
});

describe('plants add against Prism (the contract, independently)', () => {
  it('sends what the contract accepts and prints the Plant it returns', async () => {
    const env = { PLANTS_BASE_URL: baseUrl };
    const human = await user.run(['add', '--id', '9007199254740991', '--name', 'Fern', '--tag', 'herb'], { env });
    expect(human.stderr).toBe('');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^✓ Added plant 9007199254740991: \S+/);
    const json = await user.run(['plant', 'add', '--id', '1', '--name', 'Fern', '--json'], { env });
    expect(json.code).toBe(0);
    expect(typeof JSON.parse(json.stdout).name).toBe('string');
  });

  it("gets Prism's 400 for ids above 2^53-1, which Prism itself cannot hold, and prints it (exit 1)", async () => {
    // Prism validates int64 as a JS number and answers "must be <= 9007199254740991": its limit,
    // not the contract's. plants sends the exact digits and reports the Error it gets back.
    const env = { PLANTS_BASE_URL: baseUrl };
    const json = await user.run(['add', '--id', '9223372036854775807', '--name', 'Fern', '--json'], { env });
    expect(json.code).toBe(1);
    expect(Object.keys(JSON.parse(json.stdout)).sort()).toEqual(['error', 'message']);
  });

  it('prints its 401 problem+json when no token is given (exit 4)', async () => {
    const env = { PLANTS_BASE_URL: baseUrl, PLANTS_TOKEN: undefined };
    const json = await user.run(['add', '--id', '1', '--name', 'Fern', '--json'], { env });
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 401, title: 'Invalid security scheme used' });
    const human = await user.run(['add', '--id', '1', '--name', 'Fern'], { env });
    expect(human.code).toBe(4);
    expect(human.stderr).toContain('the server answered 401: Invalid security scheme used');
    expect(human.stderr).toContain(`No token is stored for ${baseUrl}`);
  });
});
