"""Preflight inside the Pulumi program: with `accelplane:preflight: true` in the stack's config,
`pulumi preview` and `pulumi up` run the stack's cloud checks before any resource is registered and
stop with the report when something does not fit (`accelplane:preflightAllowUnknown: true` lets
checks that could not be made pass, as `--allow-unknown` does). The bare-metal node preflight is not
run here: the node playbooks run it themselves.

The offline engine (`accelplane preview`, `check --stack`) never runs these: it has no credentials,
and says so (`offline_note`)."""

from __future__ import annotations

from typing import Any

from accelplane.declaration import Platform
from accelplane.errors import InputError
from accelplane.preflight.cloud_preflight import cloud_preflight
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightReport

CONFIG_KEY = "accelplane:preflight"
ALLOW_UNKNOWN_KEY = "accelplane:preflightAllowUnknown"


def preflight_refusal(platform: Platform, stack: str, *, allow_unknown: bool = False,
                      options: PreflightOptions | None = None) -> str | None:
    """The report to stop the program with, or None when everything fits."""
    # Start-up time: only a program with preflight on loads the report renderers.
    from accelplane.preflight.preflight_output import render_preflight

    options = options or PreflightOptions(allow_unknown=allow_unknown)
    try:
        found = cloud_preflight(platform, options)
    except InputError as error:
        return f"accelplane preflight could not run ({CONFIG_KEY} is set): {error}"
    report = PreflightReport(stack, str(platform.cloud), found.where, found.endpoint, found.checks,
                             allow_unknown=options.allow_unknown)
    if not report.failed:
        return None
    return f"accelplane preflight ({CONFIG_KEY} is set) stopped the run:\n" + render_preflight(report, "table")


def offline_note(config: dict[str, Any]) -> str | None:
    """What `accelplane preview` says for a stack that turns preflight on."""
    if str(config.get(CONFIG_KEY, "")).lower() != "true":
        return None
    return (f"note: {CONFIG_KEY} is set: the live preflight runs under `pulumi preview`/`pulumi up` and "
            "`accelplane preflight`; the offline engine has no credentials and skips it")
