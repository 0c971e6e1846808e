"""The offline engine: run the Pulumi program with mocks and record the resource graph."""
