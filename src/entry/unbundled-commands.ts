/**
 * Commands run from dist/ with the runner there, not from the fast bundle (scripts/bundle.mjs):
 * no short command should carry the server. One copy of every module (an error's class included).
 */
export const unbundledCommands: readonly string[] = ['serve'];
