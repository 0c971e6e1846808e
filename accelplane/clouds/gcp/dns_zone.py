"""A Cloud DNS managed zone as a migration names it: `projects/<project>/managedZones/<zone>` (the
form the Cloud DNS API's paths and `gcloud dns managed-zones list --uri` use, less the host). Read by the
declaration's checks and by the live weights' reader."""

from __future__ import annotations

import re

ZONE = re.compile(r"projects/(?P<project>[a-z][a-z0-9-]{4,28}[a-z0-9])/managedZones/(?P<zone>[a-z][a-z0-9-]{0,62})")
