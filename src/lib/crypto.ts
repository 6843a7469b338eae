import { createHash, timingSafeEqual } from "node:crypto";

// AES-256-GCM through WebCrypto. The additional data binds a ciphertext to the row it belongs
// to, so a stored key copied into another project's row does not decrypt.
const VERSION = "v1";
const keyCache = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function importKey(secret: Uint8Array): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", secret as BufferSource, "AES-GCM", false, ["encrypt", "decrypt"]);
    keyCache.set(secret, key);
  }
  return key;
}

export async function encryptSecret(secret: Uint8Array, plaintext: string, aad: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(aad) },
    await importKey(secret),
    new TextEncoder().encode(plaintext),
  );
  return `${VERSION}:${Buffer.from(iv).toString("base64")}:${Buffer.from(ct).toString("base64")}`;
}

export class DecryptError extends Error {
  override name = "DecryptError";
}

export async function decryptSecret(secret: Uint8Array, stored: string, aad: string): Promise<string> {
  const [version, iv, ct] = stored.split(":");
  if (version !== VERSION || !iv || !ct) throw new DecryptError("unknown ciphertext format");
  try {
    const pt = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: Buffer.from(iv, "base64"), additionalData: new TextEncoder().encode(aad) },
      await importKey(secret),
      Buffer.from(ct, "base64"),
    );
    return new TextDecoder().decode(pt);
  } catch {
    throw new DecryptError("authentication failed");
  }
}

const digestOf = (s: string) => createHash("sha256").update(s).digest();

/**
 * Compares two secrets in time that depends neither on where they differ nor on their lengths:
 * their SHA-256 digests, always 32 bytes, are compared.
 */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digestOf(given), digestOf(expected));
}
