import { MAX_TEXT_LENGTH, OUTCOME_UNKNOWN } from '../schema/plant.js';

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } as const;

function errorResponse(description: string, headers?: Record<string, unknown>) {
  return headers === undefined
    ? { description, content: errorContent }
    : { description, headers, content: errorContent };
}

/**
 * What any request can be answered by the HTTP layer, before a route sees it: the 4XX answers of
 * the operations that take no body and no token (probes, this document).
 */
const httpLayerErrors = {
  '408': { $ref: '#/components/responses/RequestTimeout' },
  '431': { $ref: '#/components/responses/RequestHeaderFieldsTooLarge' },
} as const;

/**
 * A CORS preflight of a path: 204 for an origin given to `serve --cors`, 405 for any other (as
 * for every method the path does not take). Documented so that a browser app's author knows.
 */
function preflight(operationId: string) {
  return {
    operationId,
    summary: 'CORS preflight',
    description: `A browser's preflight (OPTIONS with Access-Control-Request-Method). 204 with the CORS headers for an origin given to plants serve --cors; otherwise 405, as for any method the path does not take. Needs no token.`,
    security: [],
    responses: {
      '204': {
        description: 'the origin may call this path',
        headers: {
          'Access-Control-Allow-Origin': { description: 'the request origin', schema: { type: 'string' } },
          'Access-Control-Allow-Methods': { description: 'GET, HEAD, POST, DELETE', schema: { type: 'string' } },
          'Access-Control-Allow-Headers': { description: 'authorization, content-type', schema: { type: 'string' } },
          'Access-Control-Max-Age': { description: 'seconds the answer may be cached', schema: { type: 'integer' } },
        },
      },
      '405': { $ref: '#/components/responses/MethodNotAllowed' },
    },
  };
}

/**
 * The contract this server serves at GET /openapi.json: the seed interface (shared
 * plant-store.openapi.yaml) with what this server really does added, so that a client can trust
 * it. Kept as an object here rather than read from the seed at run time: the server ships alone.
 *
 * Additions to the seed, each true of this server and checked by its tests:
 * - the 200 of POST /plants carries the id (StoredPlant); names and tags have length limits;
 * - every status the server can answer, each with an Error body, POST /plants' in the operation,
 *   the path-independent ones (404, 405, 400/408/431 from the HTTP layer) in components.responses;
 * - a summary on every operation and a 4XX on each, and every component used: Redocly's
 *   recommended rules pass with no warning (test/server/openapi-lint.test.ts runs them);
 * - GET /healthz, /livez, /readyz and /openapi.json, which need no token;
 * - POST /reset, served by plants serve --allow-reset (a test double) and a 404 otherwise;
 * - servers is `/`: the document is served by the server it describes, wherever that listens.
 */
export const plantStoreOpenApi = {
  openapi: '3.1.0',
  info: {
    title: 'Plant Store',
    version: '1.0.0',
    license: { name: 'MIT', identifier: 'MIT' },
    description: [
      'A small store of plants. A client adds a plant by sending a NewPlant record as JSON;',
      'the service returns the stored Plant or an Error.',
      'Every error answer, on any path, has an Error body whose `error` is the HTTP status:',
      'an unknown path is 404; a known path with another method is 405 with an Allow header;',
      'a request that is not valid HTTP is 400; headers or a body that arrive too slowly are 408;',
      'headers that are too large are 431; a transfer coding other than chunked is 501.',
      'A request target in absolute form (as a forward proxy sends it) is routed by its path.',
    ].join(' '),
  },
  servers: [{ url: '/' }],
  security: [{ bearerAuth: [] }],
  paths: {
    '/plants': {
      post: {
        operationId: 'addPlant',
        summary: 'Add a plant',
        description: 'Creates a new plant in the store',
        requestBody: {
          description: 'Plant to add to the store',
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
        },
        responses: {
          '200': {
            description: 'plant response: the plant as stored, committed to disk before this answer',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/StoredPlant' } } },
          },
          '400': { $ref: '#/components/responses/BadRequest' },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '408': { $ref: '#/components/responses/RequestTimeout' },
          '409': { $ref: '#/components/responses/Conflict' },
          '413': { $ref: '#/components/responses/PayloadTooLarge' },
          '415': { $ref: '#/components/responses/UnsupportedMediaType' },
          '431': { $ref: '#/components/responses/RequestHeaderFieldsTooLarge' },
          '500': { $ref: '#/components/responses/InternalServerError' },
          '503': { $ref: '#/components/responses/StoreUnavailable' },
          '501': { $ref: '#/components/responses/NotImplemented' },
          '507': { $ref: '#/components/responses/InsufficientStorage' },
        },
      },
      options: preflight('preflightPlants'),
      get: {
        operationId: 'listPlants',
        summary: 'List plants, a page at a time',
        description:
          'Lists plants in id order, a page at a time. A Link header with rel="next" points to the next page when there is more.',
        parameters: [
          {
            name: 'limit',
            in: 'query',
            description: 'Plants a page (default 100; more than 1000 is taken as 1000)',
            schema: { type: 'integer', minimum: 1, default: 100 },
          },
          {
            name: 'after',
            in: 'query',
            description: 'Only plants whose id is above this one: the cursor of the next page',
            schema: { type: 'integer', format: 'int64' },
          },
        ],
        responses: {
          '200': {
            description: 'a page of plants, by id',
            headers: {
              Link: { description: 'RFC 8288: <…>; rel="next" when there is more', schema: { type: 'string' } },
            },
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/StoredPlant' } } },
            },
          },
          '400': { $ref: '#/components/responses/BadRequest' },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '500': { $ref: '#/components/responses/InternalServerError' },
          '503': { $ref: '#/components/responses/StoreUnavailable' },
        },
      },
    },
    '/plants/{id}': {
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          description: 'Id of the plant, checked like an id in a body (int64, exact)',
          schema: { type: 'integer', format: 'int64' },
        },
      ],
      options: preflight('preflightPlant'),
      get: {
        operationId: 'getPlant',
        summary: 'Get one plant',
        description: 'One plant',
        responses: {
          '200': {
            description: 'the plant',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/StoredPlant' } } },
          },
          '400': { $ref: '#/components/responses/BadRequest' },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '404': { $ref: '#/components/responses/NotFound' },
          '500': { $ref: '#/components/responses/InternalServerError' },
          '503': { $ref: '#/components/responses/StoreUnavailable' },
        },
      },
      delete: {
        operationId: 'deletePlant',
        summary: 'Delete one plant',
        description: 'Deletes one plant; committed to disk before the answer',
        responses: {
          '204': { description: 'deleted' },
          '400': { $ref: '#/components/responses/BadRequest' },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '404': { $ref: '#/components/responses/NotFound' },
          '500': { $ref: '#/components/responses/InternalServerError' },
          '503': { $ref: '#/components/responses/StoreUnavailable' },
          '507': { $ref: '#/components/responses/InsufficientStorage' },
        },
      },
    },
    '/reset': {
      post: {
        operationId: 'resetStore',
        summary: 'Put the store back to its seed',
        description:
          'plants serve --allow-reset only (a test double): replaces every plant with those of --seed (none without one), in one transaction, so no request is answered from a half-reset store. Answers the first page of what the store then holds, as GET /plants does. A request body is ignored.',
        responses: {
          '200': {
            description: 'the store holds its seed: the first page of it, by id',
            headers: {
              Link: { description: 'RFC 8288: <…>; rel="next" when there is more', schema: { type: 'string' } },
            },
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/StoredPlant' } } },
            },
          },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '404': errorResponse('reset is off: the server was started without --allow-reset; nothing was changed'),
          '413': { $ref: '#/components/responses/PayloadTooLarge' },
          '500': { $ref: '#/components/responses/InternalServerError' },
          '503': { $ref: '#/components/responses/StoreUnavailable' },
          '507': { $ref: '#/components/responses/InsufficientStorage' },
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'health',
        summary: 'Health check',
        description: 'Tells that the server is up and its store can be reached. Needs no token.',
        security: [],
        responses: {
          '200': {
            description: 'the server is up and its store answers',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
          },
          ...httpLayerErrors,
          '503': { $ref: '#/components/responses/ServiceUnavailable' },
        },
      },
    },
    '/livez': {
      get: {
        operationId: 'live',
        summary: 'Liveness probe',
        description: 'Liveness probe: the process answers. Needs no token; not in the request log.',
        security: [],
        responses: {
          '200': {
            description: 'the process is up',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
          },
          ...httpLayerErrors,
        },
      },
    },
    '/readyz': {
      get: {
        operationId: 'ready',
        summary: 'Readiness probe',
        description:
          'Readiness probe: the store is reachable and its schema migrated. Needs no token; not in the request log.',
        security: [],
        responses: {
          '200': {
            description: 'ready to serve',
            content: {
              'application/json': {
                schema: {
                  required: ['status'],
                  type: 'object',
                  properties: { status: { type: 'string', const: 'ready' } },
                },
              },
            },
          },
          ...httpLayerErrors,
          '503': { $ref: '#/components/responses/ServiceUnavailable' },
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This OpenAPI document',
        description: 'This document. Needs no token.',
        security: [],
        responses: {
          '200': {
            description: 'the OpenAPI document',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          ...httpLayerErrors,
        },
      },
    },
  },
  components: {
    schemas: {
      Plant: {
        required: ['name'],
        type: 'object',
        properties: {
          name: { description: 'The name of the plant', type: 'string', maxLength: MAX_TEXT_LENGTH },
          tag: { description: 'Tag to specify the type', type: 'string', maxLength: MAX_TEXT_LENGTH },
        },
      },
      NewPlant: {
        allOf: [
          { $ref: '#/components/schemas/Plant' },
          {
            required: ['id'],
            type: 'object',
            properties: {
              id: { description: 'Identification number of the plant', type: 'integer', format: 'int64' },
              name: { minLength: 1 },
            },
          },
        ],
      },
      StoredPlant: {
        description: 'A plant as stored: the id as sent, digit for digit; tag only when it was given',
        allOf: [
          { $ref: '#/components/schemas/Plant' },
          {
            required: ['id'],
            type: 'object',
            properties: {
              id: { description: 'Identification number of the plant', type: 'integer', format: 'int64' },
            },
          },
        ],
      },
      Error: {
        required: ['error', 'message'],
        type: 'object',
        properties: {
          error: { type: 'integer', format: 'int32', description: 'The HTTP status of the answer' },
          message: { type: 'string' },
          outcome: {
            type: 'string',
            enum: [OUTCOME_UNKNOWN],
            description:
              'Only on an answer to a change (POST /plants, DELETE /plants/{id}, POST /reset) that may or may not have been made: the server sent it to its database and lost the database before the answer (503: PostgreSQL went away mid-commit), or the storage failed under the commit (500). Such an answer never has Retry-After. Read the plant back (GET /plants/{id}) to learn what became of it, rather than taking the change for not made, or sending a delete again (an add may be sent again: a 409 with the plant stored as sent then means it was stored). Absent from every other Error: the request changed nothing.',
          },
        },
      },
      ConflictError: {
        description: 'The Error record of a 409, with the plant stored under the id when it could be read',
        allOf: [
          { $ref: '#/components/schemas/Error' },
          { type: 'object', properties: { plant: { $ref: '#/components/schemas/StoredPlant' } } },
        ],
      },
      Health: {
        required: ['status'],
        type: 'object',
        properties: { status: { type: 'string', const: 'ok' } },
      },
    },
    responses: {
      BadRequest: errorResponse(
        'the body is not JSON, not an object, or a field breaks NewPlant (the message names it); or the request is not valid HTTP',
      ),
      Unauthorized: errorResponse('no bearer token, a malformed one, or one the server does not accept', {
        'WWW-Authenticate': {
          description: 'Bearer realm="plants", with error="invalid_token" when a token was presented (RFC 6750)',
          schema: { type: 'string' },
        },
      }),
      NotFound: errorResponse('no such path; on /plants/{id}, no plant with that id'),
      MethodNotAllowed: errorResponse('the path does not take this method', {
        Allow: { description: 'the methods the path takes', schema: { type: 'string' } },
      }),
      RequestTimeout: errorResponse('the headers or the body arrived too slowly; the connection is closed'),
      Conflict: {
        description:
          'a plant with this id is already stored; it is left unchanged. The Error record carries the plant stored under the id (`plant`, the id digit for digit), so that a client can tell its own earlier add from a real conflict without a GET; `plant` is absent when it could not be read (deleted meanwhile)',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ConflictError' } } },
      },
      PayloadTooLarge: errorResponse('the body is larger than the server accepts'),
      UnsupportedMediaType: errorResponse(
        'the body is not application/json (a charset parameter must be utf-8), or has a content coding (gzip…): send it unencoded',
        {
          'Accept-Encoding': {
            description: 'identity, when the body had a content coding (RFC 9110 §15.5.16)',
            schema: { type: 'string' },
          },
        },
      ),
      RequestHeaderFieldsTooLarge: errorResponse('the request headers are too large; the connection is closed'),
      InternalServerError: errorResponse(
        'the server failed; the message tells nothing of why, except when the database file was deleted or replaced while the server ran (nothing is stored until it restarts), or when the storage failed under a commit (an I/O error: `outcome` is `unknown`, the change may or may not be made)',
      ),
      InsufficientStorage: errorResponse("the server's disk is full; nothing was stored"),
      NotImplemented: errorResponse(
        'a transfer coding other than chunked (RFC 9112 §6.1); the connection is closed after the answer',
      ),
      ServiceUnavailable: errorResponse('the store cannot be reached, or its schema is not the one this server serves'),
      StoreUnavailable: errorResponse(
        'the database cannot be reached just now (PostgreSQL restarting, failover). With Retry-After (and no `outcome`): nothing was changed; send the request again after it. With `outcome` `unknown` (and no Retry-After): the database went away after the change was sent to it, and it may or may not have been made; read the plant back once the database is back',
        {
          'Retry-After': {
            description: 'seconds to wait before sending the request again: only when the request changed nothing',
            schema: { type: 'integer' },
          },
        },
      ),
    },
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer' },
    },
  },
} as const;
