"""Network rules: VPC firewall ingress."""
