/** See local-dns.mjs: names only this machine knows; returns a function that takes them back. */
export function installLocalHosts(hosts: Record<string, string>, log?: string): () => void
