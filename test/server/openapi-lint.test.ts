import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, projectRoot } from '../helpers/cli.js';
import { type StoreServer, startStoreServer } from '../helpers/store-server.js';
import { send } from './http-client.js';

// Code generators and API portals read /openapi.json through linters like Redocly's: the
// document the real server serves must pass its recommended rules with no error and no warning.
let server: StoreServer;
const temp = makeTempDir();
beforeAll(async () => {
  server = await startStoreServer();
});
afterAll(async () => {
  await server?.close();
  temp.remove();
});

/** `redocly lint FILE --format=json`, offline: no telemetry, no update check (their documented switches). */
function redoclyLint(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = path.join(projectRoot, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  const child = spawn(process.execPath, [bin, 'lint', file, '--format=json'], {
    cwd: temp.dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: temp.dir,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the served OpenAPI document', () => {
  it('passes redocly lint with the recommended rules: no error, no warning', { timeout: 60_000 }, async () => {
    const answer = await send(`${server.url}/openapi.json`);
    expect(answer.status).toBe(200);
    const file = path.join(temp.dir, 'openapi.json');
    writeFileSync(file, answer.text);
    const result = await redoclyLint(file);
    const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(result.code).toBe(0);
  });

  it('documents the preflight it answers: 405 with an Error body where no --cors origin is named', async () => {
    const doc = JSON.parse((await send(`${server.url}/openapi.json`)).text);
    for (const route of ['/plants', '/plants/1']) {
      const template = route === '/plants' ? '/plants' : '/plants/{id}';
      expect(doc.paths[template].options.responses['405']).toEqual({ $ref: '#/components/responses/MethodNotAllowed' });
      const answer = await send(`${server.url}${route}`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
      });
      expect(answer.status).toBe(405);
      expect(JSON.parse(answer.text).error).toBe(405);
    }
  });
});
