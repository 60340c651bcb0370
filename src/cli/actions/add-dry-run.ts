import { checkRecord, positionOf, type RecordPosition, type RecordSource } from '../../bulk/bulk-add.js';
import { ExitCode } from '../../errors.js';
import type { NewPlant } from '../../schema/plant.js';
import type { Output } from '../render/output.js';
import { outcomeLine, renderDryRunCount, validLine } from '../render/render-bulk.js';

/** `plants add --dry-run`: every record checked as `add` checks it, one result line each, nothing sent. */
export async function addDryRun(
  { records, toPlant }: { records: RecordSource; toPlant: (value: unknown) => NewPlant },
  output: Output,
): Promise<ExitCode> {
  let read = 0;
  let invalid = 0;
  const firstInvalid: RecordPosition[] = [];
  let lines: string[] = [];
  for await (const record of records) {
    read++;
    const plant = checkRecord(record, toPlant);
    if ('kind' in plant) {
      invalid++;
      if (firstInvalid.length < 5) firstInvalid.push(plant);
      lines.push(outcomeLine(plant));
    } else lines.push(validLine(positionOf(record), plant));
    // One write (and, with --jq, one run of jq) for many lines.
    if (lines.length === 512) {
      output.json(lines);
      lines = [];
    }
  }
  output.json(lines);
  output.info(renderDryRunCount(read, invalid, firstInvalid));
  return invalid === 0 ? ExitCode.ok : ExitCode.usage;
}
