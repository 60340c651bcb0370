/** RFC 6750 §2.1 b64token: the characters a bearer token may have in an Authorization header. */
const bearerToken = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Real tokens are a few hundred characters at most. */
export const MAX_TOKEN_LENGTH = 4096;

export function isBearerToken(text: string): boolean {
  return text.length <= MAX_TOKEN_LENGTH && bearerToken.test(text);
}

/** Why a token is refused, without ever repeating the token. */
export function describeBadToken(text: string): string {
  if (text.length === 0) return 'the token is empty';
  if (text.length > MAX_TOKEN_LENGTH) return `the token is longer than ${MAX_TOKEN_LENGTH} characters`;
  if (/^bearer(\s|$)/i.test(text.trim())) {
    return 'the token starts with "Bearer": give the token alone; plants adds the "Bearer " scheme itself';
  }
  if (text.trim() === '') return 'the token is only white space';
  if (text.trim() !== text && bearerToken.test(text.trim())) {
    return 'the token has white space around it (a copied newline or space?): remove it';
  }
  if (/\s/.test(text)) return 'the token has white space in it';
  return 'the token has characters a bearer token cannot have (RFC 6750 allows A-Z a-z 0-9 - . _ ~ + / and trailing =)';
}

/** Shorter than this, a token a server accepts can be guessed: 16 characters of base64 are 96 bits. */
export const MIN_SERVE_TOKEN_LENGTH = 16;
