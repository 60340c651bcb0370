// `plants/testing`: the plant store from test code (docs/testing.md). Nothing of the CLI is
// loaded from here: no oclif, no config, no keyring.
export { type JournalEntry, type Store, startStore } from './start-store.js';
export type {
  Delay,
  Fault,
  FaultKind,
  SeedPlant,
  StoreControls,
  StoreControlsUpdate,
  StoreOptions,
} from './store-options.js';
