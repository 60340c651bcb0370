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

/**
 * POST /plants (the interface's one operation), and plants serve's own GET /plants, GET and
 * DELETE /plants/{id} in the shape the published plant store uses, and POST /reset.
 * This is the hot path of the server: callbacks and one promise (the store's) per request rather
 * than a chain of async functions.
 */
export function createPlantRoutes(
  { store, authorize, maxBodyBytes, fail, failed }: RouteContext,
  /** serve --allow-reset: puts the store back to its seed, atomically. Absent: POST /reset is a 404. */
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
            // The 409 carries the plant stored under the id, read now: a client re-running an
            // import settles it without a GET of its own. Not read (deleted since, the store
            // failing): the Error record alone, which is still the true answer.
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
  // POST /reset rather than DELETE /plants: it puts the seed back, which is not a deletion, and a
  // client that drops the id of DELETE /plants/{id} must never empty a store (that stays a 405).
  const resetStore: Handler = (req, res) => {
    authorize(req.headers.authorization);
    if (reset === undefined) {
      throw new NotFoundError(
        '/reset',
        'reset is off on this server: start plants serve with --allow-reset to allow it',
      );
    }
    // A body, if any, means nothing: read and dropped before the store is touched.
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

/** Up to `limit` of `plants` (fetched one over, to tell whether there is a next page) as a page of GET /plants. */
function sendPage(res: ServerResponse, plants: readonly NewPlant[], limit: number): void {
  const page = renderPage(plants, limit, (plant) => stringifyJsonExact(toWire(plant)));
  if (page.nextAfter !== undefined) res.setHeader('link', nextPageLink(limit, page.nextAfter));
  sendJson(res, 200, page.body);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A POST /plants body as the NewPlant it holds, or a 400 that says what is wrong with it. */
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

/** A stored plant as answered: id first, tag only when the plant has one. */
export function toWire(plant: NewPlant): { id: bigint; name: string; tag?: string } {
  return plant.tag === undefined
    ? { id: plant.id, name: plant.name }
    : { id: plant.id, name: plant.name, tag: plant.tag };
}
