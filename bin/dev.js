#!/usr/bin/env -S node --import tsx --no-warnings
import { execute } from '@oclif/core';

// Runs the TypeScript sources directly, without a build: `./bin/dev.js add --help`.
await execute({ development: true, dir: import.meta.url });
