import { afterEach, describe, expect, it } from 'vitest';
import { type StoreServer, startStoreServer, TEST_TOKEN } from '../../helpers/store-server.js';
import { RawConnection } from '../http-client.js';

// The fault layer in the real server (startPlantServer), for what the CLI cannot set: a close
// deadline long enough that only the fault layer itself can end a stalled request.

let server: StoreServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('--fault stall at a stop', () => {
  it('drops the stalled requests when the server closes, rather than waiting for its close deadline', async () => {
    server = await startStoreServer({ faults: [{ kind: 'stall', rate: 1 }], faultSeed: 1, closeTimeoutMs: 600_000 });
    const connection = new RawConnection(Number(new URL(server.url).port));
    await connection.write(`GET /plants HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TEST_TOKEN}\r\n\r\n`);
    expect(await connection.waitForResponse(500)).toBeUndefined();
    const closing = server.close();
    // With the deadline at ten minutes, only the fault layer can close it within the test.
    expect(await connection.waitForClose(20_000)).toBe(true);
    expect(connection.raw).toBe('');
    await closing;
    server = undefined;
  });
});
