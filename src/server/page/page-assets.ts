import { readFile } from 'node:fs/promises';

/** The page's files, beside this module in assets/ (copied to dist/ by the build), by the name they are served under. */
export const PAGE_ASSETS = {
  'index.html': 'text/html; charset=utf-8',
  'page.js': 'text/javascript; charset=utf-8',
  'page.css': 'text/css; charset=utf-8',
} as const;
export type PageAssetName = keyof typeof PAGE_ASSETS;

const cache = new Map<PageAssetName, Promise<Buffer>>();

/** The file's bytes, read once (the page is static: no build step, nothing to template). */
export function readPageAsset(name: PageAssetName): Promise<Buffer> {
  let bytes = cache.get(name);
  if (bytes === undefined) {
    bytes = readFile(new URL(`./assets/${name}`, import.meta.url));
    // A failed read is tried again next time, not remembered.
    bytes.catch(() => cache.delete(name));
    cache.set(name, bytes);
  }
  return bytes;
}
