// `plants/testing` (docs/testing.md): nothing of the CLI is loaded from here (oclif, config, keyring).
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
