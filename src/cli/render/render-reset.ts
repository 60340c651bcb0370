import type { Colors } from './colors.js';

/** After `plants reset`, on stderr: what the store holds now (the plants themselves went to stdout). */
export function renderResetDone(plants: number, c: Colors): string {
  return `${c.green('✓')} Reset: the store holds ${plants === 0 ? 'no plants' : plants === 1 ? '1 plant' : `${plants} plants`} now`;
}
