// esbuild plugins shared by the npm package's bundles (scripts/bundle.mjs) and the single
// executable's (scripts/build-binary.mjs).
import path from 'node:path';

/**
 * undici's Client requires its HTTP/2 half (client-h2.js) as it loads, and with it node:http2
 * and undici's fetch body and WebIDL modules, a cost to every command (bench a), for a
 * protocol plants never asks for (undici speaks HTTP/2 only with allowH2). Here client-h2.js is
 * loaded on its first call instead, unchanged.
 */
export const lazyHttp2 = {
  name: 'lazy-undici-client-h2',
  setup(build) {
    build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      args.importer.endsWith(path.join('undici', 'lib', 'dispatcher', 'client.js'))
        ? { path: path.join(args.resolveDir, 'client-h2.js'), namespace: 'lazy-client-h2' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-client-h2' }, (args) => ({
      contents: `let connectH2;
module.exports = function lazyConnectH2(...args) {
  connectH2 ??= require(${JSON.stringify(args.path)});
  return connectH2(...args);
};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * conf imports, at its top, what it uses only for options plants never sets: a JSON-schema
 * validator (ajv, ajv-formats), migrations (semver), encryption (node:crypto) and defaults checks
 * (node:assert), which would cost every `plants login` their loading (bench a). Here each is
 * loaded on its first use instead, unchanged: a stand-in module whose every export is a getter
 * that requires the real one.
 */
const LAZY_IN_CONF = {
  // module: the names conf imports from it by name (the rest it takes as a default import)
  'ajv/dist/2020.js': ['Ajv2020'],
  'ajv-formats': [],
  semver: [],
  'node:crypto': [],
  'node:assert': [],
};
/**
 * conf's constructor also calls node:assert's deepEqual on every run, to see whether the file
 * lacks a default: loading node:assert for that is most of what `plants logout` costs on Node 20
 * (bench a). Objects deep-equal in util's strict sense are deep-equal in assert's loose sense
 * too, so that answer is taken first; any other pair goes to node:assert itself, unchanged.
 */
const ASSERT_DEEP_EQUAL = `const { isDeepStrictEqual } = require('node:util');
const deepEqual = (actual, expected, ...rest) =>
  isDeepStrictEqual(actual, expected) ? undefined : load().deepEqual(actual, expected, ...rest);
`;
export const lazyConfImports = {
  name: 'lazy-conf-imports',
  setup(build) {
    const confDir = `${path.sep}node_modules${path.sep}conf${path.sep}`;
    build.onResolve({ filter: /.*/ }, (args) =>
      args.namespace !== 'lazy-conf' && args.importer.includes(confDir) && Object.hasOwn(LAZY_IN_CONF, args.path)
        ? { path: args.path, namespace: 'lazy-conf', pluginData: { resolveDir: args.resolveDir } }
        : undefined,
    );
    // A default import is the module object itself, read through a Proxy; a named import needs an
    // own property (esbuild copies those), so each of those is a getter.
    build.onLoad({ filter: /.*/, namespace: 'lazy-conf' }, (args) => ({
      contents: `${args.path === 'node:assert' ? ASSERT_DEEP_EQUAL : ''}let real;
const load = () => (real ??= require(${JSON.stringify(args.path)}));
const named = {};
for (const key of ${JSON.stringify(LAZY_IN_CONF[args.path])}) Object.defineProperty(named, key, { enumerable: true, get: () => load()[key] });
${args.path === 'node:assert' ? 'named.deepEqual = deepEqual;' : ''}
module.exports = new Proxy(named, { get: (target, key) => (Object.hasOwn(target, key) ? target[key] : load()[key]) });`,
      loader: 'js',
      resolveDir: args.pluginData.resolveDir,
    }));
  },
};
