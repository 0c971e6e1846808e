"""The frameworks `accelplane matrix resolve` builds a profile around (a constant the CLI's parser
needs without loading the matrix)."""

FRAMEWORKS = ("torch", "jax")
