"""`accelplane verify`: the running platform checked against its declaration, read-only.

- `declared`: the offline graph of the stack and the identities its resources carry;
- `clients`: boto3 clients that refuse any non-read call, retry with backoff, count every call;
- `inventory`: the live platform read with the fewest paginated list calls;
- `live_view`: live resources matched to declared ones, in the declared (wire-format) shape;
- `canonical`: references as symbols, documents normalised, declared-vs-live differences;
- `drift`, `state_checks`, `rules`: the checks on the live view; `routing`: the inference endpoint's
  forwards (target groups per service and backend, weights, the rollout) within drift;
- `probe`: the HTTPS health probe of the inference endpoint;
- `checkpoint`: the checkpoint restore drill;
- `text`: messages as one bounded line, never a pasted HTML error page;
- `report`: rendering (table, Markdown, JUnit, JSON; SARIF through `accelplane.report`), one set of
  counts in every format; `run`: `verify()` ties it together.
"""

from accelplane.verify.model import CheckId, CheckResult, Status, VerifyReport
from accelplane.verify.run import VerifyOptions, verify

__all__ = ["CheckId", "CheckResult", "Status", "VerifyOptions", "VerifyReport", "verify"]
