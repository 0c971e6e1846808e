"""Network rules: security group ingress, SSH/RDP, EFA security groups."""
