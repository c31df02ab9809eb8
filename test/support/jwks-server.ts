import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An asymmetric key pair as an identity provider holds it: the private half signs, the public half is published. */
export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key as SPKI PEM: what a verifier derives from the JWK (and what key confusion abuses). */
  publicPem: string;
}

/** A fresh RSA 2048 (RS256) or P-256 (ES256) key pair under the given `kid`. */
export function generateSigningKey(alg: SigningKey['alg'], kid: string): SigningKey {
  const { privateKey, publicKey } =
    alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    kid,
    alg,
    privateKey,
    publicKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export interface JwksServer {
  /** `http://127.0.0.1:<port>/.well-known/jwks.json` */
  uri: string;
  /** How many times the key set has been fetched. */
  fetches(): number;
  close(): Promise<void>;
}

export const JWKS_PATH = '/.well-known/jwks.json';

/** Serves the public halves of `keys` as a JWKS on a free local port; any other path answers 404. */
export async function startJwksServer(keys: SigningKey[]): Promise<JwksServer> {
  const body = JSON.stringify({
    keys: keys.map((key) => ({
      ...key.publicKey.export({ format: 'jwk' }),
      kid: key.kid,
      alg: key.alg,
      use: 'sig',
    })),
  });
  let fetches = 0;
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === JWKS_PATH) {
      fetches += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((listening, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => listening());
  });
  const { port } = server.address() as AddressInfo;
  return {
    uri: `http://127.0.0.1:${port}${JWKS_PATH}`,
    fetches: () => fetches,
    close: () =>
      new Promise<void>((closed, fail) => {
        server.close((error) => (error ? fail(error) : closed()));
        server.closeAllConnections();
      }),
  };
}
