import { fail } from './report.ts';

export interface ParsedUrl {
  scheme: string;
  user: string;
  password: string;
  /** Without the brackets of an IPv6 address. */
  host: string;
  /** Empty when the URL names none. */
  port: string;
  /** The path without its leading slash (a MySQL URL's database). */
  path: string;
}

export function parseUrl(url: string): ParsedUrl {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return fail(`cannot parse URL: ${url}`);
  }
  return {
    scheme: parsed.protocol.replace(/:$/, ''),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port,
    path: decodeURIComponent(parsed.pathname.replace(/^\//, '')),
  };
}

/** The URL with its password replaced by `***`, for anything printed. */
export function redact(url: string): string {
  return url.replace(/(:\/\/[^:/@]*:)[^@/]*@/g, '$1***@');
}

/** Servers are only ever started for addresses of this machine. */
export function isLocalHost(host: string): boolean {
  return /^127\./.test(host) || ['localhost', '::1', '0.0.0.0', '::'].includes(host);
}

/** `host:port`, with an IPv6 host in brackets. */
export function hostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A URL without its trailing slash. */
export function base(url: string): string {
  return url.trim().replace(/\/+$/, '');
}
