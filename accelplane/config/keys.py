"""The keys of a stack file's `config:` block the project reads (plain strings: no import cost)."""

NAMESPACE = "accelplane"
PLATFORM_KEY = f"{NAMESPACE}:platform"
MIGRATION_KEY = f"{NAMESPACE}:migration"  # a migration stack's declaration (accelplane.migration)
