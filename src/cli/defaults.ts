/** Defaults of the flags of commands that send requests, shared by the flags and the actions. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_RETRIES = 3;
export const MAX_RETRIES = 10;
export const DEFAULT_CONCURRENCY = 64;
export const MAX_CONCURRENCY = 256;
