/**
 * RSAES-PKCS1-v1_5 decryption of a content-encryption key, without blocking the event loop.
 *
 * Node.js refuses `privateDecrypt` with PKCS#1 v1.5 padding unless its OpenSSL does implicit
 * rejection (the CVE-2023-46809 fix; OpenSSL 3.2+, as in Node 24): where it is allowed, the
 * native call is used (about 2 ms). Elsewhere (Node 20 and 22) node-forge decrypts, in a worker
 * thread because its pure-JavaScript RSA takes about 200 ms per 2048-bit key and 230 ms per
 * 3072-bit one. A padding failure returns null; the caller continues with a random key
 * (RFC 3218 §2.3), as implicit rejection does natively.
 */
import { constants, privateDecrypt, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** null until the first call finds out whether the native call is allowed. */
let nativeAllowed: boolean | null = null;

// CommonJS, evaluated in the worker: forge's decrypt, keys parsed once per key id
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const forge = require(workerData.forge);
const keys = new Map();
parentPort.on('message', (m) => {
  let out = null;
  try {
    let key = keys.get(m.keyId);
    if (!key) {
      key = forge.pki.privateKeyFromPem(m.pem);
      keys.set(m.keyId, key);
      if (keys.size > 64) keys.delete(keys.keys().next().value);
    }
    out = Buffer.from(key.decrypt(Buffer.from(m.wrapped).toString('binary'), 'RSAES-PKCS1-V1_5'), 'binary');
  } catch {
    out = null;
  }
  parentPort.postMessage({ id: m.id, out });
});
`;

interface Pending {
  resolve(b: Buffer | null): void;
  reject(e: Error): void;
}

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 1;

function forgeWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { forge: createRequire(import.meta.url).resolve('node-forge') } });
  w.on('message', (m: { id: number; out: Uint8Array | null }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (pending.size === 0) w.unref();
    p?.resolve(m.out ? Buffer.from(m.out) : null);
  });
  const fail = (err: Error): void => {
    worker = null;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`the RSA worker exited (code ${code})`)));
  w.unref();
  worker = w;
  return w;
}

/** The private key in the form the worker reads, and an id under which it caches the parsed key. */
export interface UnwrapKey {
  readonly key: KeyObject;
  readonly id: string;
  readonly pkcs1Pem: string;
}

/** Decrypts a PKCS#1 v1.5-wrapped key; null when the padding is not valid (forge path). */
export async function unwrapPkcs1v15(wrapped: Buffer, k: UnwrapKey): Promise<Buffer | null> {
  if (nativeAllowed !== false) {
    try {
      const out = privateDecrypt({ key: k.key, padding: constants.RSA_PKCS1_PADDING }, wrapped);
      nativeAllowed = true;
      return out;
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_INVALID_ARG_VALUE' || nativeAllowed === true) return null;
      nativeAllowed = false;
    }
  }
  const w = forgeWorker();
  const id = nextId++;
  return new Promise<Buffer | null>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref();
    w.postMessage({ id, keyId: k.id, pem: k.pkcs1Pem, wrapped });
  });
}

/** Which implementation unwraps keys in this process (for logs and tests). */
export function unwrapImplementation(): 'native' | 'forge-worker' | 'undetermined' {
  return nativeAllowed === null ? 'undetermined' : nativeAllowed ? 'native' : 'forge-worker';
}
