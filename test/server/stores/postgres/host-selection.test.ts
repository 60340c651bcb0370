import { describe, expect, it } from 'vitest';
import { choosePrimary, type HostProbe } from '../../../../src/server/stores/postgres/host-selection.js';

const A = { host: 'a', port: 5432 };
const B = { host: 'b', port: 5433 };
const C = { host: 'c', port: 5434 };
const primary = (address: typeof A, timeline: number, startedAt = `${address.host}-start`): HostProbe => ({
  address,
  role: 'primary',
  systemId: '7001',
  timeline,
  startedAt,
});
const standby = (address: typeof A): HostProbe => ({ address, role: 'standby', systemId: '7001', startedAt: 'x' });
const down = (address: typeof A): HostProbe => ({
  address,
  role: 'unreachable',
  error: new Error('connect ECONNREFUSED'),
});

describe('choosePrimary: the split-brain rule', () => {
  it('takes the one server that takes writes, and reports the cluster and timeline', () => {
    expect(choosePrimary([standby(A), primary(B, 3)], { timeline: 0 })).toEqual({
      index: 1,
      systemId: '7001',
      timeline: 3,
    });
  });

  it('finds none while the primary is down and the standby not yet promoted, and says what each host is', () => {
    const choice = choosePrimary([down(A), standby(B)], { systemId: '7001', timeline: 1 });
    expect(choice.index).toBeUndefined();
    expect(choice).toMatchObject({
      reason:
        'no host takes writes: a:5432 cannot be reached (connect ECONNREFUSED); b:5433 is a standby (in recovery)',
    });
  });

  it('never goes back to a former primary restarted as it was: its timeline is older than the one used', () => {
    // After a failover to B (timeline 2), A comes back out of recovery on timeline 1.
    expect(choosePrimary([primary(A, 1), primary(B, 2)], { systemId: '7001', timeline: 2 })).toMatchObject({
      index: 1,
    });
    // Even with B away, A is not written to.
    const choice = choosePrimary([primary(A, 1), down(B)], { systemId: '7001', timeline: 2 });
    expect(choice.index).toBeUndefined();
    expect(choice).toMatchObject({ reason: expect.stringContaining('a:5432 is a former primary (timeline 1') });
  });

  it('takes the newest timeline at a fresh start, when both old and new primaries answer', () => {
    expect(choosePrimary([primary(A, 1), primary(B, 2)], { timeline: 0 })).toMatchObject({ index: 1, timeline: 2 });
  });

  it('refuses to take a side when two servers take writes on the same timeline', () => {
    const choice = choosePrimary([primary(A, 2), primary(B, 2), standby(C)], { systemId: '7001', timeline: 2 });
    expect(choice.index).toBeUndefined();
    expect(choice).toMatchObject({ reason: expect.stringContaining('split brain') });
  });

  it('counts one server reached by two names once, keeping the current one', () => {
    const same = 'same-start';
    expect(choosePrimary([primary(A, 2, same), primary(B, 2, same)], { timeline: 2 })).toMatchObject({ index: 0 });
    expect(choosePrimary([primary(A, 2, same), primary(B, 2, same)], { timeline: 2 }, B)).toMatchObject({ index: 1 });
  });

  it('never writes to a server of another cluster', () => {
    const other: HostProbe = { ...primary(B, 5), systemId: '9999' };
    expect(choosePrimary([down(A), other], { systemId: '7001', timeline: 1 })).toMatchObject({
      index: undefined,
      reason: expect.stringContaining('b:5433 belongs to another cluster'),
    });
    expect(choosePrimary([primary(A, 1), other], { timeline: 0 })).toMatchObject({
      index: undefined,
      reason: expect.stringContaining('different clusters'),
    });
  });

  it('skips read-only servers and those that refuse the connection', () => {
    const readOnly: HostProbe = { ...primary(A, 4), role: 'read-only' };
    const refused: HostProbe = { address: B, role: 'refused', error: new Error('password authentication failed') };
    const choice = choosePrimary([readOnly, refused], { timeline: 0 });
    expect(choice).toMatchObject({
      index: undefined,
      reason:
        'no host takes writes: a:5432 is read-only; b:5433 refused the connection (password authentication failed)',
    });
  });
});
