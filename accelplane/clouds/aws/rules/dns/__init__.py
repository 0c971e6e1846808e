"""Route 53 rules: the weighted records a migration moves clients with."""
