// `plants/testing`: the plant store from test code (docs/testing.md). Nothing of the CLI is
// loaded from here: no oclif, no config, no keyring.
export { startStore } from './start-store.js';
export type {
  Delay,
  Fault,
  FaultKind,
  JournalEntry,
  SeedPlant,
  Store,
  StoreControls,
  StoreControlsUpdate,
  StoreOptions,
} from './store-types.js';
