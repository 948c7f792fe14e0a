import {execFileSync} from 'node:child_process'
import {join} from 'node:path'

/**
 * A self-signed certificate for `cn` made by openssl in `dir`: `key.pem` and `cert.pem` (RSA 2048, valid `days`),
 * with `san` as its subjectAltName when given (e.g. `DNS:localhost,IP:127.0.0.1`). Returns the two paths.
 */
export function selfSignedCert(
  dir: string,
  o: {cn: string; san?: string; days?: number},
): {keyFile: string; certFile: string} {
  const keyFile = join(dir, 'key.pem')
  const certFile = join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      String(o.days ?? 1),
      '-subj',
      `/CN=${o.cn}`,
      ...(o.san ? ['-addext', `subjectAltName=${o.san}`] : []),
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    {stdio: 'pipe'},
  )
  return {keyFile, certFile}
}
