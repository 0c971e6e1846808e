"""`accelplane verify`: the running platform checked against its declaration, read-only, on any cloud.

The cloud-neutral half; each cloud's live reader is `accelplane/clouds/<cloud>/verify/`.

- `reader`: what verify asks of a cloud (`LiveReader`, `LiveSession`) and the options;
- `declared`: the offline graph of the stack and the identities its resources carry;
- `live`: the live view, live resources matched to declared ones in the declared (wire-format) shape;
- `canonical`: references as symbols, documents normalised, declared-vs-live differences;
- `drift`: the drift engine (a cloud's `DriftMapping` says what to compare per type); `rules`: the
  policy rules on the live view;
- `probe`: the HTTPS health probe of the inference endpoint;
- `checkpoint`: the checkpoint restore drill over a cloud's `CheckpointStore`;
- `text`: messages as one bounded line, never a pasted HTML error page;
- `results`: one `CheckResult` per thing looked at, and the report's counts;
- `report`: rendering (table, Markdown, JUnit, JSON; SARIF through `accelplane.report`), one set of
  counts in every format; `run`: `verify()` ties it together.
"""
