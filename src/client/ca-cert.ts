import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InvalidInputError } from '../errors.js';
import { whyUnreadable } from '../files/unreadable-file.js';

const pemCertificate = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Node's list and the certificates of a PEM file (`--ca-cert`). A file that cannot be read or holds
 * none OpenSSL reads is exit 2 naming `where` (the flag, or the login that kept it), never OpenSSL's words.
 */
export async function trustedCertificates({ file, where }: { file: string; where: string }): Promise<string[]> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InvalidInputError(`${where} ${file} cannot be read: ${whyUnreadable(error)}`);
  }
  const certificates = text.match(pemCertificate) ?? [];
  const readable = certificates.every((pem) => {
    try {
      new X509Certificate(pem);
      return true;
    } catch {
      return false;
    }
  });
  if (certificates.length === 0 || !readable) {
    const key = /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)
      ? ' (it holds a private key: give the certificate)'
      : '';
    throw new InvalidInputError(`${where} ${file} is not a PEM certificate${key}`, {
      hints: ["Give the store's certificate, or its authority's, as PEM (-----BEGIN CERTIFICATE-----)."],
    });
  }
  const { rootCertificates } = await import('node:tls');
  return [...rootCertificates, certificates.join('\n')];
}
