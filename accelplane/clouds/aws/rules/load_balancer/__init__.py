"""Load balancer rules: TLS policy, HTTP redirects, header hygiene."""
