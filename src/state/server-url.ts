/**
 * A database server's URL (`redis://`, `postgres://`, `mysql://`, ...), checked before a driver sees
 * it: an unparsable one is an error that names it (its password hidden), not a driver's own message.
 */
export function parseServerUrl(url: string, what: string): string {
  if (!URL.canParse(url)) {
    throw new TypeError(
      `${what}: "${url.replace(/:[^:@/]*@/, ":***@")}" is not a URL (write it as scheme://user:password@host:port/name)`,
    );
  }
  return url;
}
