// `npm run build`: the page of plants serve (src/server/page/assets: HTML, script, style, used as
// they are, no build step of their own) goes beside the compiled server, where page-assets.js
// reads it, and so into the package.
import { cpSync } from 'node:fs';

cpSync('src/server/page/assets', 'dist/server/page/assets', { recursive: true });
