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
 * lacks a default: loading node:assert for that was most of what `plants logout` cost on Node 20
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

/**
 * undici's index requires every part of undici as it loads: fetch, WebSocket, EventSource,
 * caches, cookies, mocks, interceptors. plants uses two of its agents. In the bundles, plants'
 * own `import … from 'undici'` gets a stand-in whose exports are those names alone, each
 * required on its first use from the module undici's index takes it from, after what the index
 * does first (the request API put on Dispatcher.prototype: a proxy agent tunnels with it).
 * checkLeanUndici() holds each name to undici's own index, so an undici that moves one fails the
 * build, never a command.
 */
const LEAN_UNDICI = {
  Agent: 'undici/lib/dispatcher/agent.js',
  EnvHttpProxyAgent: 'undici/lib/dispatcher/env-http-proxy-agent.js',
};
const UNDICI_API = { module: 'undici/lib/api/index.js', onto: 'undici/lib/dispatcher/dispatcher.js' };

export const leanUndici = {
  name: 'lean-undici',
  setup(build) {
    const ownCode = `${path.sep}dist${path.sep}`;
    build.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.includes(ownCode) ? { path: 'undici', namespace: 'lean-undici' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lean-undici' }, () => ({
      contents: `let prepared = false;
function prepare() {
  if (prepared) return;
  prepared = true;
  const Dispatcher = require(${JSON.stringify(UNDICI_API.onto)});
  if (!('request' in Dispatcher.prototype)) Object.assign(Dispatcher.prototype, require(${JSON.stringify(UNDICI_API.module)}));
}
${Object.entries(LEAN_UNDICI)
  .map(
    ([name, file]) =>
      `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get() { prepare(); return require(${JSON.stringify(file)}); } });`,
  )
  .join('\n')}`,
      loader: 'js',
      resolveDir: process.cwd(),
    }));
  },
};

/**
 * Throws unless each name of the stand-in is the very object undici's index exports, and the
 * index puts the request API on Dispatcher.prototype as the stand-in does. (A name plants imports
 * that the stand-in lacks is undefined in the bundle: the client's tests over the built CLI fail.)
 */
export async function checkLeanUndici() {
  const { createRequire } = await import('node:module');
  const require = createRequire(path.join(process.cwd(), 'package.json'));
  const undici = require('undici');
  for (const [name, file] of Object.entries(LEAN_UNDICI)) {
    if (require(file) !== undici[name]) {
      throw new Error(`undici's ${name} is no longer ${file}: update LEAN_UNDICI in scripts/esbuild-plugins.mjs`);
    }
  }
  const api = require(UNDICI_API.module);
  const prototype = require(UNDICI_API.onto).prototype;
  if (prototype !== undici.Dispatcher.prototype || Object.keys(api).some((key) => prototype[key] !== api[key])) {
    throw new Error(`undici's index no longer puts ${UNDICI_API.module} on Dispatcher.prototype: update UNDICI_API`);
  }
}

/**
 * undici 8 carries a second HTTP/1 parser, Milo (experimental, used only when UNDICI_USE_MILO=1
 * or a client's useMilo asks for it), beside llhttp: 160 KB of the bundle, which every command
 * pays for in compiling and, at its close, in the line ends V8 computes for the stack of the
 * error that destroys the socket. undici leaves it out where `esbuildDetection` is defined (as
 * Node's own copy of undici does): llhttp, undici's default, is the parser.
 */
export const undiciWithoutMilo = { esbuildDetection: 'true' };
