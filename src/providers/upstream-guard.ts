import { lookup } from "node:dns/promises";
import { DomainError } from "../core/errors";
import { cidr, inRange, parseIp, V4_MAPPED } from "../lib/ip-address";
import { type AllowlistEntry, parseAllowlistEntry } from "../lib/allowlist-entry";

// Server-side request forgery guard for URLs a tenant chose (custom providers). A tenant holding an
// API key must not make Hone call into the network Hone runs in: loopback services, the private
// network, link-local hosts and, above all, the cloud metadata service that hands out the host's
// credentials. The check runs on every call, right before connecting, against every address the
// name resolves to, and the connection is then made to the address that was checked, so a DNS
// answer that changes between check and connect (rebinding) cannot slip a private address in.

/** Resolves a host name to its IP addresses (all of them). Injected so tests can play DNS. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const systemResolveHost: ResolveHost = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export type UpstreamPolicy = {
  /** HONE_ALLOW_PRIVATE_UPSTREAMS: loopback, private and link-local allowed; metadata never. */
  allowPrivate: boolean;
  /** HONE_UPSTREAM_ALLOWLIST, parsed. */
  allowlist: AllowlistEntry[];
};

// Cloud metadata and host-platform endpoints: they hand out the machine's credentials, so no
// setting opens them (neither HONE_ALLOW_PRIVATE_UPSTREAMS nor the allowlist).
const METADATA = [
  "169.254.169.0/24", // AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack metadata; AWS DNS and time
  "169.254.170.0/24", // AWS ECS task metadata and credentials (169.254.170.2), EKS pod identity
  "100.100.100.200/32", // Alibaba Cloud metadata
  "168.63.129.16/32", // Azure WireServer (host platform), a public-looking address
  "fd00:ec2::/64", // AWS metadata and pod identity over IPv6 (fd00:ec2::254, fd00:ec2::23)
].map(cidr);

const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]);

// Everything that is not a public unicast address: refused unless the operator opens it.
const PRIVATE = [
  "0.0.0.0/8", // "this network"; 0.0.0.0 reaches the local host on Linux
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT, also used inside clouds and Tailscale
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved and broadcast
  "::/128",
  "::1/128",
  "100::/64", // discard-only
  "fc00::/7", // unique local
  "fe80::/10", // link-local
  "fec0::/10", // old site-local
  "ff00::/8", // multicast
].map(cidr);

/** IPv4 addresses carried inside IPv6 forms that reach them: NAT64, IPv4-compatible, 6to4. */
function embeddedIPv4(ip: bigint): bigint | null {
  if (inRange(ip, cidr("64:ff9b::/96")) || (inRange(ip, cidr("::/96")) && ip > 1n)) return V4_MAPPED | (ip & 0xffffffffn);
  if (inRange(ip, cidr("2002::/16"))) return V4_MAPPED | ((ip >> 80n) & 0xffffffffn);
  return null;
}

type AddressClass = "public" | "private" | "metadata";

function classifyIp(ip: bigint): AddressClass {
  const inner = embeddedIPv4(ip);
  const candidates = inner === null ? [ip] : [ip, inner];
  if (candidates.some((c) => METADATA.some((r) => inRange(c, r)))) return "metadata";
  if (candidates.some((c) => PRIVATE.some((r) => inRange(c, r)))) return "private";
  return "public";
}

// ---- the allowlist -------------------------------------------------------------------------

export function upstreamPolicy(config: { allowPrivateUpstreams: boolean; upstreamAllowlist: string[] }): UpstreamPolicy {
  return { allowPrivate: config.allowPrivateUpstreams, allowlist: config.upstreamAllowlist.map(parseAllowlistEntry) };
}

// ---- the checks ------------------------------------------------------------------------------

type Target = { url: URL; hostname: string; port: number; ipLiteral: bigint | null };

function targetOf(raw: string, label: string): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused(label, "its base URL is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refused(label, "only http and https URLs may be called");
  // WHATWG URL parsing already turned 2130706433, 0x7f.1 and 127.1 into 127.0.0.1.
  const hostname = url.hostname.toLowerCase().replace(/\.$/, "");
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return { url, hostname, port, ipLiteral: parseIp(hostname) };
}

function allowlisted(policy: UpstreamPolicy, t: Target, ip: bigint | null): boolean {
  return policy.allowlist.some((e) => {
    if (e.port !== null && e.port !== t.port) return false;
    if (e.kind === "host") return e.host === t.hostname;
    return ip !== null && inRange(ip, e);
  });
}

const isLocalhostName = (h: string) => h === "localhost" || h.endsWith(".localhost");

function refused(label: string, why: string): DomainError {
  return new DomainError("VALIDATION", `${capitalise(label)} may not be called: ${why}`, {
    issues: [{ message: `baseUrl: ${why}`, path: ["baseUrl"] }],
  });
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const HOW_TO_ALLOW = "an operator can allow it with HONE_ALLOW_PRIVATE_UPSTREAMS=true or HONE_UPSTREAM_ALLOWLIST";

/** Refuses one address; what is refused says "a private address", never which one. */
function checkAddress(policy: UpstreamPolicy, t: Target, ip: bigint, label: string, what: string): void {
  const cls = classifyIp(ip);
  if (cls === "metadata") throw refused(label, `${what} a cloud metadata address, which is never allowed`);
  if (cls === "private" && !policy.allowPrivate && !allowlisted(policy, t, ip)) {
    throw refused(label, `${what} a private, loopback or link-local address (${HOW_TO_ALLOW})`);
  }
}

function checkName(policy: UpstreamPolicy, t: Target, label: string): void {
  if (METADATA_NAMES.has(t.hostname)) throw refused(label, "its host is a cloud metadata service, which is never allowed");
  if (isLocalhostName(t.hostname) && !policy.allowPrivate && !allowlisted(policy, t, null)) {
    throw refused(label, `its host is the local machine (${HOW_TO_ALLOW})`);
  }
}

/**
 * The check made when a URL is saved: scheme, and hosts that are private without asking DNS
 * (IP literals, localhost, metadata names). Names are resolved on each call instead.
 */
export function checkUpstreamUrl(raw: string, policy: UpstreamPolicy, label = "this custom provider"): void {
  const t = targetOf(raw, label);
  checkName(policy, t, label);
  if (t.ipLiteral !== null) checkAddress(policy, t, t.ipLiteral, label, "its host is");
}

type PinnedRequest = {
  /** The URL with its host replaced by the checked IP address. */
  url: string;
  /** The original Host header value (name and non-default port). */
  host: string;
  /** The name TLS must verify the certificate against (and send as SNI); null for IP literals. */
  serverName: string | null;
};

/**
 * The check made right before connecting. Resolves the host, refuses the call if any address is
 * refused by the policy, and returns the URL to connect to, pinned to the first checked address.
 */
export async function pinUpstreamUrl(raw: string, policy: UpstreamPolicy, resolve: ResolveHost, label: string): Promise<PinnedRequest> {
  const t = targetOf(raw, label);
  checkName(policy, t, label);
  if (t.ipLiteral !== null) {
    checkAddress(policy, t, t.ipLiteral, label, "its host is");
    return { url: t.url.href, host: t.url.host, serverName: null };
  }
  let addresses: string[];
  try {
    addresses = await resolve(t.hostname);
  } catch {
    throw new DomainError("UPSTREAM_ERROR", `Could not reach ${label}: its host name ${t.hostname} does not resolve`, { upstreamStatus: 502 });
  }
  const ips = addresses.map((a) => ({ text: a, ip: parseIp(a) }));
  if (!ips.length || ips.some((a) => a.ip === null)) {
    throw new DomainError("UPSTREAM_ERROR", `Could not reach ${label}: its host name ${t.hostname} does not resolve`, { upstreamStatus: 502 });
  }
  // Every address is checked, not only the one used: a name with one public and one private
  // address is refused rather than half-trusted.
  for (const a of ips) checkAddress(policy, t, a.ip!, label, "its host name resolves to");
  const first = ips[0]!;
  const pinned = new URL(t.url.href);
  pinned.hostname = first.text.includes(":") ? `[${first.text.replace(/%.*$/, "")}]` : first.text;
  return { url: pinned.href, host: t.url.host, serverName: t.url.protocol === "https:" ? t.hostname : null };
}
