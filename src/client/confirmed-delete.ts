import { AuthRejectedError, NoAnswerError, ResponseError, UnreachableError } from './errors.js';
import type { PlantClient } from './plant-client.js';

/**
 * DELETE /plants/{id}, never reported as not done while it may have been: a delete that may
 * have been applied (sent with no whole answer, or answered that its outcome is unknown) is
 * settled by reading the plant back. Gone: it was deleted (`confirmed`). Still there: it was
 * not, and the failure says so (a ResponseError, exit 1; a missing answer stays what it was).
 * Not read: NoAnswerError (exit 3), which says how to look.
 */
export async function deleteConfirmed(client: PlantClient, id: bigint): Promise<{ confirmed: boolean }> {
  try {
    await client.deletePlant(id);
    return { confirmed: false };
  } catch (error) {
    const inDoubt =
      (error instanceof ResponseError && error.mayHaveBeenApplied) ||
      (error instanceof UnreachableError && error.sentNoAnswer);
    if (!inDoubt) throw error;
    const read = await readBack(client, id);
    if (read === 'absent') return { confirmed: true };
    if (read === 'found' && error instanceof ResponseError) {
      const settled = new ResponseError(`${error.message} (read back, plant ${id} is still there: not deleted)`, error);
      settled.attempts = error.attempts;
      throw settled;
    }
    if (read === 'found') throw error;
    throw new NoAnswerError(id, error, { done: 'deleted', storeArgs: client.storeArgs });
  }
}

async function readBack(client: PlantClient, id: bigint): Promise<'found' | 'absent' | 'failed'> {
  try {
    await client.getPlant(id);
    return 'found';
  } catch (error) {
    if (error instanceof ResponseError && !(error instanceof AuthRejectedError) && error.status === 404)
      return 'absent';
    if (error instanceof ResponseError || error instanceof UnreachableError) return 'failed';
    throw error;
  }
}
