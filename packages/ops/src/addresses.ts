import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * A list of addresses and CIDR ranges (IPv4 and IPv6), comma- or space-separated, as both services read their
 * trusted reverse proxies (HUB_TRUSTED_PROXIES, CORE_TRUSTED_PROXIES). A bad entry throws, naming the variable.
 */
export function parseAddressList(raw: string, variable: string): BlockList {
  const list = new BlockList();
  for (const entry of raw.split(/[\s,]+/).filter(Boolean)) {
    const [address = '', prefix] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
    const bits = prefix === undefined ? null : Number(prefix);
    if (!type || (bits !== null && (!Number.isInteger(bits) || bits < 0 || bits > (type === 'ipv4' ? 32 : 128)))) {
      throw new Error(`${variable}: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, 2001:db8::/32)`);
    }
    if (bits === null) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return list;
}
