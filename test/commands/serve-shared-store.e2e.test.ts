import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../helpers/cli.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { postgresAdminUrl, postgresBackend, type StoreLocation } from '../helpers/store-backends.js';
import { postPlant } from '../server/http-client.js';

// Three `plants serve` processes on one PostgreSQL database, as behind a load balancer.
const admin = postgresAdminUrl();
const TOKEN = 'shared-store-token-0123456789';

describe.skipIf(admin === undefined)('three plants serve instances sharing one PostgreSQL store', () => {
  let location: StoreLocation;
  let instances: ServeProcess[] = [];
  let temp: ReturnType<typeof makeTempDir>;

  beforeAll(async () => {
    temp = makeTempDir('plants-shared-');
    location = await postgresBackend.create();
    // All three at once on the empty database: the schema is created once, whoever wins.
    instances = await Promise.all(
      [0, 1, 2].map(() =>
        startServeProcess(['--port', '0', '--quiet', '--token', TOKEN, '--database', location.database]),
      ),
    );
  });
  afterAll(async () => {
    for (const instance of instances) expect(await instance.stop()).toBe(0);
    await location?.remove();
    temp?.remove();
  });

  it('answers exactly one 200 to 64 concurrent adds of one id spread over the three, the rest 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        postPlant(instances[i % 3]?.url ?? '', TOKEN, `{"id":9223372036854775807,"name":"racer ${i}"}`),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(63);
    const winner = answers.find((answer) => answer.status === 200);
    const stored = (await location.readPlants()).filter((row) => row.id === 9223372036854775807n);
    expect(stored).toHaveLength(1);
    expect(winner?.text).toBe(`{"id":9223372036854775807,"name":"${stored[0]?.name}"}`);
  });

  it('lists through one instance, completely, what a bulk add put through another', async () => {
    const file = path.join(temp.dir, 'bulk.ndjson');
    const ids = Array.from({ length: 1500 }, (_, i) => -(2n ** 63n) + BigInt(i) * 6148914691236517n);
    writeFileSync(file, `${ids.map((id) => `{"id":${id},"name":"bulk ${id}","tag":"shared"}`).join('\n')}\n`);
    const env = { PLANTS_TOKEN: TOKEN };
    const bulk = await runCli(['add', '--file', file, '--base-url', instances[0]?.url ?? ''], { env });
    expect(bulk.code, bulk.stderr).toBe(0);
    const list = await runCli(['list', '--all', '--json', '--base-url', instances[1]?.url ?? ''], { env });
    expect(list.code, list.stderr).toBe(0);
    const listed = list.stdout
      .split('\n')
      .filter((line) => line.includes('"shared"'))
      .map((line) => BigInt(/"id":(-?\d+)/.exec(line)?.[1] ?? 'x'));
    expect(listed).toEqual(ids);
    // And the third sees any one of them.
    const get = await runCli(['get', String(ids[777]), '--json', '--base-url', instances[2]?.url ?? ''], { env });
    expect(get.stdout).toContain(`"id":${ids[777]}`);
  });
});
