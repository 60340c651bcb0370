import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/** In assets/ beside this module (copied to dist/ by the build). */
export const PAGE_ASSETS = {
  'index.html': 'text/html; charset=utf-8',
  'page.js': 'text/javascript; charset=utf-8',
  'page.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
} as const;
export type PageAssetName = keyof typeof PAGE_ASSETS;

/** The page's three files gzipped fit TCP's initial window: one round trip. */
const cache = new Map<PageAssetName, Promise<{ raw: Buffer; gzipped: Buffer }>>();
const gzipAsync = promisify(gzip);

export function readPageAsset(name: PageAssetName) {
  let asset = cache.get(name);
  if (asset === undefined) {
    asset = readFile(new URL(`./assets/${name}`, import.meta.url)).then(async (raw) => ({
      raw,
      gzipped: await gzipAsync(raw, { level: 9 }),
    }));
    // A failed read is tried again next time, not remembered.
    asset.catch(() => cache.delete(name));
    cache.set(name, asset);
  }
  return asset;
}
