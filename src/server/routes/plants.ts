import type { ServerResponse } from 'node:http';
import { stringifyJsonExact } from '../../schema/exact-json.js';
import { InvalidPlantError } from '../../schema/invalid-plant-error.js';
import { type NewPlant, parseNewPlantJson } from '../../schema/plant.js';
import { ConflictError, HttpError, NotFoundError } from '../errors.js';
import { checkContentEncoding, checkContentType, pathOf, readBody, searchOf } from '../http/request.js';
import { sendJson } from '../http/response.js';
import { DEFAULT_PAGE_SIZE, nextPageLink, parseListQuery, plantIdFromPath, renderPage } from '../listing.js';
import type { AddResult } from '../stores/plant-store.js';
import type { Handler, RouteContext } from './route-context.js';

/** The hot path: callbacks and one promise (the store's) per request rather than a chain of async functions. */
export function createPlantRoutes(
  { store, authorize, maxBodyBytes, fail, failed }: RouteContext,
  reset: (() => Promise<void>) | undefined,
) {
  const addPlant: Handler = (req, res) => {
    // Auth first, before a byte of the body is read: a client without a token learns nothing more.
    authorize(req.headers.authorization);
    checkContentType(req.headers['content-type']);
    checkContentEncoding(req.headers['content-encoding']);
    readBody(req, res, maxBodyBytes, (error, body) => {
      if (error !== undefined) return fail(req, res, error);
      let added: Promise<AddResult>;
      try {
        added = store.add(parsePlant(body));
      } catch (parseError) {
        return fail(req, res, parseError);
      }
      added.then(
        (result) => {
          if (!result.added) {
            // A client re-running an import settles it without a GET of its own; not read, the Error record alone.
            const message = `a plant with id ${result.id} already exists`;
            store.get(result.id).then(
              (stored) => fail(req, res, new ConflictError(message, stored)),
              () => fail(req, res, new ConflictError(message)),
            );
            return;
          }
          try {
            sendJson(res, 200, stringifyJsonExact(toWire(result.plant)));
          } catch (sendFailure) {
            fail(req, res, sendFailure);
          }
        },
        failed(req, res),
      );
    });
  };
  const listPlants: Handler = (req, res) => {
    authorize(req.headers.authorization);
    const { limit, after } = parseListQuery(searchOf(req.url));
    store.page(after, limit + 1).then((plants) => sendPage(res, plants, limit), failed(req, res));
  };
  const getPlant: Handler = (req, res) => {
    authorize(req.headers.authorization);
    const id = plantIdFromPath(pathOf(req.url));
    store.get(id).then(
      (plant) => {
        if (plant === undefined) return fail(req, res, new NotFoundError(`/plants/${id}`, `no plant with id ${id}`));
        sendJson(res, 200, stringifyJsonExact(toWire(plant)));
      },
      failed(req, res),
    );
  };
  const deletePlant: Handler = (req, res) => {
    authorize(req.headers.authorization);
    const id = plantIdFromPath(pathOf(req.url));
    store.remove(id).then(
      (removed) => {
        if (!removed) return fail(req, res, new NotFoundError(`/plants/${id}`, `no plant with id ${id}`));
        res.statusCode = 204;
        res.end();
      },
      failed(req, res),
    );
  };
  // Not DELETE /plants: a client that drops the id of DELETE /plants/{id} must never empty a store.
  const resetStore: Handler = (req, res) => {
    authorize(req.headers.authorization);
    if (reset === undefined) {
      throw new NotFoundError(
        '/reset',
        'reset is off on this server: start plants serve with --allow-reset to allow it',
      );
    }
    readBody(req, res, maxBodyBytes, (error, _body) => {
      if (error !== undefined) return fail(req, res, error);
      // Answered like GET /plants: the first page of what the store holds now.
      reset()
        .then(() => store.page(undefined, DEFAULT_PAGE_SIZE + 1))
        .then((plants) => sendPage(res, plants, DEFAULT_PAGE_SIZE), failed(req, res));
    });
  };
  return { addPlant, listPlants, getPlant, deletePlant, resetStore };
}

/** `plants` were fetched one over `limit`, to tell whether there is a next page. */
function sendPage(res: ServerResponse, plants: readonly NewPlant[], limit: number): void {
  const page = renderPage(plants, limit, (plant) => stringifyJsonExact(toWire(plant)));
  if (page.nextAfter !== undefined) res.setHeader('link', nextPageLink(limit, page.nextAfter));
  sendJson(res, 200, page.body);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parsePlant(body: Buffer): NewPlant {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch (error) {
    throw new HttpError(400, 'request body is not valid UTF-8', { cause: error });
  }
  try {
    return parseNewPlantJson(text);
  } catch (error) {
    if (error instanceof InvalidPlantError) throw new HttpError(400, error.message, { cause: error });
    throw error;
  }
}

/** Id first. */
export function toWire(plant: NewPlant): { id: bigint; name: string; tag?: string } {
  return plant.tag === undefined
    ? { id: plant.id, name: plant.name }
    : { id: plant.id, name: plant.name, tag: plant.tag };
}
