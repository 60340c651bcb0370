/** The load of the server rows: autocannon in its own process, POST /plants with a new id each request. */
import path from 'node:path';
import { bench, clientCpu, node, plan, token } from './context.js';
import { cpuSeconds, run, type Timed, timed } from './processes.js';
import type { Server } from './servers.js';

/** This many connections, one request each at a time. */
export const serverLoad = { connections: 100, pipelining: 1 };

export interface LoadResult {
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  codes: Record<string, number>;
  /** 99th percentile latency, ms (autocannon's). */
  latencyP99?: number;
  /** CPU time the server process spent per request (user + system, all its threads), µs. */
  cpuPerRequestUs?: number;
}

let idBase = 1;

/** Drives the server with autocannon from its own process: a warm-up, then the measured run. */
export async function load(server: Server, seconds: number, auth = true): Promise<LoadResult> {
  const { url } = server;
  const drive = async (duration: number) => {
    const firstId = idBase;
    // Far more ids than any run can use: every request of this process tree has an id of its own.
    idBase += 10_000_000;
    const options = { url, token: auth ? token : undefined, duration, firstId, ...serverLoad };
    const result = await run(node, [path.join(bench, 'load-autocannon.mjs'), JSON.stringify(options)], {
      timeoutMs: (duration + 60) * 1000,
      cpu: clientCpu,
    });
    if (result.code !== 0) throw new Error(`autocannon failed (exit ${result.code}):\n${result.stderr.slice(-2000)}`);
    return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as LoadResult;
  };
  await drive(plan.warmupSeconds);
  const before = cpuSeconds(server.child.pid);
  const result = await drive(seconds);
  const after = cpuSeconds(server.child.pid);
  if (before !== undefined && after !== undefined && result.requests > 0) {
    result.cpuPerRequestUs = ((after - before) / result.requests) * 1e6;
  }
  return result;
}

/**
 * wrk, one thread on the client's core, posting a NewPlant with a new id each request
 * (bench/wrk-post-plants.lua, ids from `firstId`). Throws unless every request was answered 2xx.
 */
export async function wrkPostPlants(
  server: Server,
  options: { connections: number; seconds: number; firstId: number },
): Promise<Timed & { rps: number; requests: number }> {
  const { connections, seconds, firstId } = options;
  const script = path.join(bench, 'wrk-post-plants.lua');
  const result = await timed(
    'wrk',
    [
      '-t1',
      `-c${connections}`,
      `-d${seconds}s`,
      '--timeout',
      '30s',
      '-s',
      script,
      server.url,
      '--',
      token,
      String(firstId),
    ],
    { timeoutMs: (seconds + 60) * 1000, cpu: clientCpu },
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(result.stdout)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(result.stdout)?.[1] ?? 0);
  const socketErrors = /Socket errors:[^\n]*/.exec(result.stdout)?.[0];
  if (result.code !== 0 || !Number.isFinite(rps) || non2xx > 0 || socketErrors !== undefined) {
    throw new Error(
      `wrk failed (exit ${result.code ?? result.signal}):\n${result.stdout}${result.stderr}`.slice(-2000),
    );
  }
  return { ...result, rps, requests: Number(/(\d+) requests in/.exec(result.stdout)?.[1]) };
}
