import { Flags } from '@oclif/core';
import { addPlants } from '../cli/actions/add-plants.js';
import { PlantsCommand, storeFlags } from '../cli/base-command.js';
import { DEFAULT_CONCURRENCY, DEFAULT_RETRIES, MAX_CONCURRENCY, MAX_RETRIES } from '../cli/defaults.js';

export class Add extends PlantsCommand {
  static override action = addPlants;
  static override summary = 'Add a plant, or many from a file.';
  static override description =
    `Builds a NewPlant from --id, --name and --tag, or reads --file (a path, or - for stdin), checks it with the same schema the server uses, and sends it to POST {base_url}/plants. The id is a 64-bit integer and is sent digit for digit, up to 9223372036854775807.

--file holds one NewPlant object (the flags override its fields), a JSON array of them, NDJSON (one per line), or JSON documents one after another (jq's default output), recognised from the content and streamed, however large; an empty input is zero records. A record is at most 64 KiB and UTF-8: a longer one, or one with bytes that are not UTF-8, is refused. For many records, stdout gets one NDJSON line per record, in input order: {"line":N,"sent":true,"status":200,"plant":{...},"outcome":"added"}, or the Error (and, for a record never sent, the fields at fault); "index" gives a record's place in an array, "outcome" is added, existing, conflict, rejected, invalid, not-sent or unknown (sent, may have been added). --name and --tag then apply to every record (--id only to an array of one). Exit 0 when every record was added (or, with --skip-existing, was already there exactly as sent), 1 when some were not, 3 when the rest are unknown, 2 when the input cannot be read; Ctrl-C stops reading, lets requests in flight finish and exits 130 (a second Ctrl-C stops waiting and prints what is known).

--dry-run checks every record exactly so and prints the same result lines, with "outcome" valid (and the "plant" as it would be sent) or invalid, sending nothing: it needs no token or store. It exits 0 when every record is valid, 2 when any is not, with the count on stderr ("3 records: 2 valid, 1 invalid (line 2)"); a one-plant add from the flags is one such line.

A 409 met on a retry (the first attempt may have added the plant before its connection dropped), and an add any try of which may have been applied (sent with no whole answer, or answered that its outcome is unknown), are settled by reading the plant back (GET /plants/{id}): stored exactly as sent, it was added; stored with other data, it is a conflict and both versions are shown; not readable, it is unknown (exit 3), never rejected. --skip-existing does the same for every 409, so that an import can be run again from the start.`;
  static override aliases = ['plant:add'];
  static override examples = [
    '<%= config.bin %> add --id 1 --name Fern --tag herb',
    '<%= config.bin %> plant add --id 9223372036854775807 --name Oak',
    '<%= config.bin %> add --file plant.json --tag shade',
    `$ echo '{"id": 2, "name": "Ivy"}' | <%= config.bin %> add --file - --json`,
    '<%= config.bin %> add --file plants.ndjson --concurrency 32 > results.ndjson',
    `$ jq -c '.[]' plants.json | <%= config.bin %> add --file - --fail-fast`,
    '<%= config.bin %> add --file plants.ndjson --skip-existing   # run an import again: stored plants are existing',
    '<%= config.bin %> add --file plants.ndjson --dry-run   # check every record, send nothing',
    `<%= config.bin %> add --file plants.ndjson --jq 'select(.outcome != "added") | .line'`,
  ];
  static override flags = {
    id: Flags.string({ summary: 'Id of the plant (a 64-bit integer).', helpValue: 'ID' }),
    name: Flags.string({ summary: 'Name of the plant.', helpValue: 'NAME' }),
    tag: Flags.string({ summary: 'Tag that says what type of plant it is.', helpValue: 'TAG' }),
    file: Flags.string({
      char: 'f',
      summary: 'Read a NewPlant, a JSON array of them, NDJSON or JSON documents from a file, or - for stdin.',
      helpValue: 'PATH',
    }),
    concurrency: Flags.integer({
      summary: 'With many records: most requests in flight at once.',
      default: DEFAULT_CONCURRENCY,
      min: 1,
      max: MAX_CONCURRENCY,
    }),
    'fail-fast': Flags.boolean({ summary: 'With many records: stop at the first one not added.', default: false }),
    'skip-existing': Flags.boolean({
      summary: 'On a 409, read the plant back: one stored exactly as sent is reported as existing, not a failure.',
      default: false,
    }),
    'dry-run': Flags.boolean({
      summary: 'Check every record as add would, print a result line each (valid or invalid), and send nothing.',
      default: false,
    }),
    retries: Flags.integer({
      summary: 'Send again after a dropped connection, or a 429/503 with Retry-After, this many times.',
      default: DEFAULT_RETRIES,
      min: 0,
      max: MAX_RETRIES,
    }),
    ...storeFlags,
  };
}
