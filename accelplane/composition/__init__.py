"""One composition module per cloud: the only places components are wired together."""
