"""The inference endpoint: the load balancer in front of the exposed services, and its health check.

The certificate, the TLS policy and the load balancer's own settings are the cloud's: its
`declaration` module extends `InferenceEndpoint`."""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from accelplane.declaration.base import (
    Cidr,
    Hostname,
    Model,
    _check_cidr,
)


class HealthCheck(Model):
    path: str = Field(default="/healthz", pattern=r"^/", description="HTTP path probed by the load balancer.")
    interval_seconds: int = Field(default=15, ge=5, le=300, description="Seconds between probes.")
    timeout_seconds: int = Field(default=5, ge=2, le=120, description="Probe timeout.")
    healthy_threshold: int = Field(default=3, ge=2, le=10, description="Successes to mark healthy.")
    unhealthy_threshold: int = Field(default=3, ge=2, le=10, description="Failures to mark unhealthy.")
    matcher: str = Field(default="200", description="HTTP codes counted as healthy.")

class InferenceEndpoint(Model):
    listener_port: int = Field(default=443, ge=1, le=65535, description="HTTPS listener port.")
    http_redirect: bool = Field(
        default=True,
        description="Also listen on port 80 and answer every plain-HTTP request with a 301 redirect to HTTPS on "
        "listener_port; port 80 is then open to allowed_cidrs too. false: no port-80 listener and no port-80 ingress.",
    )
    target_port: int = Field(default=8000, ge=1, le=65535, description="Port the inference pods listen on.")
    health_check: HealthCheck = Field(default_factory=HealthCheck, description="Target group health check.")
    allowed_cidrs: list[Cidr] = Field(min_length=1, description="Client CIDRs allowed to reach the endpoint.")
    hostnames: list[Hostname] = Field(
        default_factory=list, max_length=20,
        description="Public names clients call this endpoint by (its certificate covers them). A migration stack "
        "points such a name's weighted records here, and refuses a name this list does not hold.",
    )

    @field_validator("allowed_cidrs")
    @classmethod
    def _cidrs(cls, value: list[str]) -> list[str]:
        return [_check_cidr(v) for v in value]

    @model_validator(mode="after")
    def _redirect_port_free(self) -> InferenceEndpoint:
        if self.http_redirect and self.listener_port == 80:
            raise ValueError("listener_port 80 is the HTTP redirect's port: set http_redirect: false or another port")
        return self
