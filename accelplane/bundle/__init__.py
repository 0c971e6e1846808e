"""Air-gapped bundles (docs/bundle.md): `bundle lock` turns a stack's pins into a hashed lock of
every artifact it fetches, `bundle fetch` builds a mirror from it, `bundle verify` checks a mirror
offline, `bundle export` writes it for other tools. Only `lock` and `fetch` read the network."""
