/** A prefix of their own, so that no store route changes. */
export const PAGE_PREFIX = '/_serve/';
