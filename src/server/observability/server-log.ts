import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { RequestRecord } from './request-record.js';

export type LogFormat = 'text' | 'json';
/** `info`: and one line per request; `debug`: and the probes too. */
export type LogLevel = 'error' | 'info' | 'debug';
export type ServerLog = Awaited<ReturnType<typeof createServerLog>>;
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];
export const LOG_LEVELS: readonly LogLevel[] = ['error', 'info', 'debug'];

export interface ServerLogOptions {
  format: LogFormat;
  level: LogLevel;
  /** So that the lines of several servers on one database can be told apart. */
  instance: string;
  write: (line: string, level: LogLevel) => void;
}

export function defaultInstanceName(): string {
  return `${hostname()}:${process.pid}`;
}

/** Never the token, the body or a header. pino is loaded only for JSON lines: it takes about 0.1 s to load. */
export async function createServerLog(options: ServerLogOptions) {
  const { write, level } = options;
  const logsRequests = level !== 'error';
  const logsProbes = level === 'debug';
  if (options.format === 'text') {
    return {
      request(record: RequestRecord): void {
        if (!logsRequests || (record.probe && !logsProbes)) return;
        let line = `${record.method} ${record.path} ${record.status} ${record.durationMs.toFixed(1)}ms`;
        if (record.fault !== undefined) line += ` fault=${record.fault}`;
        write(line, record.probe ? 'debug' : 'info');
      },
      /** One line, never a stack. */
      internalError(error: unknown): void {
        write(`internal error: ${oneLine(error)}`, 'error');
      },
    };
  }
  const { pino } = await import('pino');
  const logger: Logger = pino(
    {
      level,
      base: { instance: options.instance },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // Not sonic-boom, which writes to the fd itself: the caller owns stderr (and tests read the lines).
    { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line, currentLevel(line)) },
  );
  return {
    request(record: RequestRecord): void {
      if (!logsRequests || (record.probe && !logsProbes)) return;
      const query = loggableQuery(record.target);
      const fields = {
        request_id: record.requestId,
        method: record.method,
        path: record.path,
        query: query === '' ? undefined : query,
        status: record.status,
        duration_ms: Math.round(record.durationMs * 1000) / 1000,
        bytes: record.bytes,
        fault: record.fault,
      };
      if (record.probe) logger.debug(fields, 'request');
      else logger.info(fields, 'request');
    },
    internalError(error: unknown): void {
      logger.error({ error: oneLine(error) }, 'internal error');
    },
  };
}

function currentLevel(line: string): LogLevel {
  if (line.startsWith('{"level":"error"')) return 'error';
  if (line.startsWith('{"level":"debug"')) return 'debug';
  return 'info';
}

const SECRET_KEY = /token|secret|passw|pwd|key|auth|session|sig|credential|cookie|code/i;
const SECRET_VALUE = /^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9._~+/=-]{16,}$/;

export function loggableQuery(target: string): string {
  const start = target.indexOf('?');
  if (start === -1 || start === target.length - 1) return '';
  const query = target.slice(start + 1, start + 1 + 1000);
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return SECRET_VALUE.test(safeDecode(pair)) ? '[redacted]' : pair;
      const key = pair.slice(0, equals);
      const value = safeDecode(pair.slice(equals + 1));
      return SECRET_KEY.test(safeDecode(key)) || SECRET_VALUE.test(value) ? `${key}=[redacted]` : pair;
    })
    .join('&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function oneLine(error: unknown): string {
  return String(error).replace(/\s+/g, ' ').trim().slice(0, 500);
}
