import { cidr, parseIp, parseIPv4, parseIPv6 } from "./ip-address";

export type AllowlistEntry = { kind: "host"; host: string; port: number | null } | { kind: "cidr"; base: bigint; bits: number; port: number | null };

function parsePort(p: string): number | null {
  if (!/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535) return null;
  return Number(p);
}

/**
 * One HONE_UPSTREAM_ALLOWLIST entry: `host`, `host:port`, an IP, `ip:port`, `[ipv6]:port` or a
 * CIDR (`10.0.0.0/8`, `fd00::/8`). Throws an Error naming the entry when it is none of these.
 */
export function parseAllowlistEntry(raw: string): AllowlistEntry {
  const entry = raw.trim().toLowerCase();
  const bad = (why: string) => new Error(`HONE_UPSTREAM_ALLOWLIST entry "${raw}" ${why}`);
  if (entry.includes("/")) {
    const [addr, len, extra] = entry.split("/");
    const ip = addr ? parseIp(addr) : null;
    const max = addr?.includes(":") ? 128 : 32;
    if (ip === null || extra !== undefined || !/^\d{1,3}$/.test(len ?? "") || Number(len) > max) throw bad("is not a valid CIDR");
    return { kind: "cidr", ...cidr(`${addr}/${len}`), port: null };
  }
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    const ip = parseIPv6(bracketed[1]!);
    const port = bracketed[2] === undefined ? null : parsePort(bracketed[2]);
    if (ip === null || (bracketed[2] !== undefined && port === null)) throw bad("is not a valid [IPv6]:port");
    return { kind: "cidr", base: ip, bits: 128, port };
  }
  if (entry.split(":").length > 2) {
    const ip = parseIPv6(entry);
    if (ip === null) throw bad("is not a valid IPv6 address (write [addr]:port with a port)");
    return { kind: "cidr", base: ip, bits: 128, port: null };
  }
  const [host, portText] = entry.split(":") as [string, string | undefined];
  const port = portText === undefined ? null : parsePort(portText);
  if (portText !== undefined && port === null) throw bad("has an invalid port");
  const ip = parseIPv4(host);
  if (ip !== null) return { kind: "cidr", base: ip, bits: 128, port };
  if (!/^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?\.?$/.test(host)) throw bad("is not a host name, host:port, IP or CIDR");
  return { kind: "host", host: host.replace(/\.$/, ""), port };
}
