"""Cloud DNS rules: the weighted record sets a migration moves clients with."""
