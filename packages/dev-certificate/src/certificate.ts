import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** PEM key pair the HTTPS server presents. */
export interface TlsMaterial {
  /** The self-signed certificate, PEM; clients trust exactly this. */
  certPem: string;
  /** Its private key, PEM (PKCS#8). */
  keyPem: string;
}

/** File names inside the data directory, next to the write-ahead log. @internal */
export const CERT_FILE = 'tls-cert.pem';
const KEY_FILE = 'tls-key.pem';

/** Names the certificate must cover: what local clients dial. */
const DNS_NAMES = ['localhost'];
const IP_ADDRESSES = ['127.0.0.1', '::1'];

const VALIDITY_DAYS = 365;
/** A cached certificate this close to expiry is replaced rather than served. */
const RENEW_BEFORE_MS = 7 * 24 * 60 * 60 * 1000;
/** Backdated so a client whose clock is slightly behind still accepts it. */
const BACKDATE_MS = 60 * 60 * 1000;

async function createMaterial(): Promise<TlsMaterial> {
  const notBeforeDate = new Date(Date.now() - BACKDATE_MS);
  const notAfterDate = new Date(notBeforeDate.getTime() + VALIDITY_DAYS * 24 * 60 * 60 * 1000);
  // Loaded only to make one: the X.509 libraries behind it take longer to load than a reused pair takes to check.
  const { generate } = await import('selfsigned');
  // EC P-256 keys generate in milliseconds (RSA takes far longer) and every TLS client supports them.
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...DNS_NAMES.map((value) => ({ type: 2 as const, value })),
          ...IP_ADDRESSES.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { certPem: pems.cert, keyPem: pems.private };
}

/** True when the pair parses, belongs together, covers our names and is not about to expire. */
function isUsable(material: TlsMaterial, now: number): boolean {
  try {
    const cert = new X509Certificate(material.certPem);
    return (
      cert.checkPrivateKey(createPrivateKey(material.keyPem)) &&
      DNS_NAMES.every((name) => cert.checkHost(name) !== undefined) &&
      IP_ADDRESSES.every((ip) => cert.checkIP(ip) !== undefined) &&
      Date.parse(cert.validFrom) <= now &&
      Date.parse(cert.validTo) - RENEW_BEFORE_MS > now
    );
  } catch {
    return false;
  }
}

async function readCached(dir: string): Promise<TlsMaterial | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([
      readFile(join(dir, CERT_FILE), 'utf8'),
      readFile(join(dir, KEY_FILE), 'utf8'),
    ]);
    return { certPem, keyPem };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Returns a self-signed certificate for `localhost`, `127.0.0.1` and `::1`.
 * With `dataDir` the pair is kept there and reused on restart, so clients that already trust it keep
 * working; a missing, corrupt, mismatched or nearly expired pair is replaced. Without it, each call
 * generates a fresh pair.
 */
export async function loadOrCreateCertificate(dataDir?: string): Promise<TlsMaterial> {
  if (dataDir === undefined) return createMaterial();
  const cached = await readCached(dataDir);
  if (cached !== undefined && isUsable(cached, Date.now())) return cached;
  const material = await createMaterial();
  await mkdir(dataDir, { recursive: true });
  // Key first: a crash between the writes leaves a mismatched pair, which the next start replaces.
  await writeFile(join(dataDir, KEY_FILE), material.keyPem, { mode: 0o600 });
  await writeFile(join(dataDir, CERT_FILE), material.certPem);
  return material;
}
