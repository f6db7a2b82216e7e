/**
 * Facts of the WAF's domain that more than one layer needs (config validation, the emulator, the
 * kinds): the permission catalog, the documented enums and the value checks. One copy, so the
 * emulator and the YAML validator can never disagree about what is valid.
 */
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export const PERMISSIONS = [
  {
    id: 0,
    name: 'Explore alerts',
    description: 'Visualize and ignore alerts; explore related HTTP transactions.',
  },
  {
    id: 1,
    name: 'Handle rules',
    description: 'Visualize, create, modify and delete rules (Application and Source).',
  },
  {
    id: 2,
    name: 'Load application rules',
    description: 'Load Application Rules to a Web Application Firewall.',
  },
  { id: 3, name: 'Load source rules', description: 'Load Source Rules to a Firewall.' },
] as const;

export type PermissionId = (typeof PERMISSIONS)[number]['id'];

export function permissionById(id: number): (typeof PERMISSIONS)[number] | undefined {
  return PERMISSIONS.find((p) => p.id === id);
}

/** The catalog name of a permission id, for messages and plans (the id itself if not in the catalog). */
export function permissionName(id: number): string {
  return permissionById(id)?.name ?? String(id);
}

export function permissionByName(name: string): (typeof PERMISSIONS)[number] | undefined {
  return PERMISSIONS.find((p) => p.name === name);
}

export const NOTIFICATION_TYPES = ['siem', 'generic'] as const;
export const NOTIFICATION_FORMATS = ['leef', 'cef', 'json'] as const;
export const NOTIFICATION_PROTOCOLS = ['tcp', 'udp'] as const;

export function isIpAddress(value: string): boolean {
  return isIP(value) !== 0;
}

export function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** Deliberately simple: one @, no spaces, a dot in the domain. Enough to catch typos, not RFC 5322. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(value: string): boolean {
  return EMAIL.test(value);
}

/** Answers by zone name: building an Intl.DateTimeFormat per schedule costs more than the rest of its checks. */
const knownTimezones = new Map<string, boolean>();

/** An IANA zone name that this Node's Intl knows (which also accepts aliases such as "UTC"). */
export function isTimezone(value: string): boolean {
  if (value === '') return false;
  let known = knownTimezones.get(value);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      known = true;
    } catch {
      known = false;
    }
    knownTimezones.set(value, known);
  }
  return known;
}

/** An IPv4 or IPv6 address, or a network in CIDR notation (`10.1.0.0/16`, `2001:db8::/32`). */
export function isAddressOrNetwork(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash === -1) return isIP(value) !== 0;
  const address = value.slice(0, slash);
  const prefix = value.slice(slash + 1);
  const family = isIP(address);
  if (family === 0 || prefix === '' || ![...prefix].every((c) => c >= '0' && c <= '9')) return false;
  try {
    // BlockList checks the prefix against the family (0..32 or 0..128).
    new BlockList().addSubnet(address, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    return true;
  } catch {
    return false;
  }
}

/**
 * An allowlist entry as compared and sent: the network it names, written one way, so that two
 * spellings of one network are one entry. The address is the network's first (`10.1.2.3/16` is
 * `10.1.0.0/16`), IPv6 in RFC 5952 text (`2001:DB8:0::/32` is `2001:db8::/32`), the prefix without
 * leading zeros (`1.2.3.0/024` is `1.2.3.0/24`), and a single host has no prefix (`1.2.3.4/32` is
 * `1.2.3.4`). A value that is no address or network is returned as it is, for validation to name.
 */
export function canonicalNetwork(value: string): string {
  if (!isAddressOrNetwork(value)) return value;
  try {
    if (!value.includes('/')) return addressText(ipaddr.parse(value));
    const [address, prefix] = ipaddr.parseCIDR(value);
    const first =
      address.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(value)
        : ipaddr.IPv6.networkAddressFromCIDR(value);
    const host = prefix === (address.kind() === 'ipv4' ? 32 : 128);
    return host ? addressText(first) : `${addressText(first)}/${prefix}`;
  } catch {
    // A form node:net accepts and ipaddr.js does not parse (none known): kept as written.
    return value;
  }
}

function addressText(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  return address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
}

/** Whether an allowlist entry is every address (`0.0.0.0/0`, `::/0`): it opens the firewall to all. */
export function isEveryAddress(value: string): boolean {
  return /\/0+$/.test(value) && isAddressOrNetwork(value);
}

/** What a network rule's `expire_strategy` may be: the vendor's examples show `delete` and `disable`. */
export const EXPIRE_STRATEGIES = ['delete', 'disable'] as const;
