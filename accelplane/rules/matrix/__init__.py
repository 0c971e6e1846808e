"""Version-matrix rules: node pools' software profiles, pool groups, images against drivers."""
