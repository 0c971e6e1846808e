"""Load balancer rules: SSL policies, Cloud Armor and the GKE Gateway (health checks, timeouts, rate limits)."""
