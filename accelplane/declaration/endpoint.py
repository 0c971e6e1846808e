"""The inference endpoint: the load balancer in front of the exposed services, its health check, and
how it authenticates clients.

The certificate, the TLS policy and the load balancer's own settings are the cloud's: its
`declaration` module extends `InferenceEndpoint` (and `ClientAuth`, with what only its load balancer
offers, such as the ALB's mutual TLS)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, field_validator, model_validator

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

# Google's OpenID Connect discovery document (https://accounts.google.com/.well-known/openid-configuration,
# read 2026-12-07): the issuer of Google-signed ID tokens and where its signing keys are published.
GOOGLE_ISSUER = "https://accounts.google.com"
GOOGLE_JWKS_URI = "https://www.googleapis.com/oauth2/v3/certs"
# Issuers whose key set needs no `jwks_uri` in the declaration.
KNOWN_JWKS_URIS = {GOOGLE_ISSUER: GOOGLE_JWKS_URI}

# ALB's JWT validation takes at most 10 values per claim (botocore elbv2 JwtValidationActionAdditionalClaim).
MAX_CALLERS = 10

HttpsUrl = Annotated[str, StringConstraints(pattern=r"^https://[^\s/]+(/\S*)?$", max_length=256)]


class IdTokens(Model):
    """Machine clients send an OpenID Connect ID token (`Authorization: Bearer ...`); the load balancer
    checks its signature against the issuer's keys, its expiry, issuer and audience, and that it names
    one of the callers, before a request reaches a model server."""

    issuer: HttpsUrl = Field(
        default=GOOGLE_ISSUER, description="The tokens' issuer (`iss`); default Google, whose ID tokens both "
        "clouds' load balancers validate (a migration's two ends then accept the same callers).",
    )
    jwks_uri: HttpsUrl | None = Field(
        default=None, description="The issuer's JSON Web Key Set (default for accounts.google.com: "
        f"{GOOGLE_JWKS_URI}).",
    )
    audience: str = Field(
        min_length=1, max_length=256, pattern=r"^\S+$",
        description="The tokens' audience (`aud`): the OAuth client id the callers request tokens for.",
    )
    callers: list[Annotated[str, StringConstraints(pattern=r"^[^@\s]+@[^@\s]+\.[a-z]{2,63}$", max_length=256)]] = Field(
        min_length=1, max_length=MAX_CALLERS,
        description="The identities allowed to call (the token's `email` claim: service accounts, users).",
    )

    @model_validator(mode="after")
    def _keys_known(self) -> IdTokens:
        if self.jwks_uri is None and self.issuer not in KNOWN_JWKS_URIS:
            raise ValueError(f"give jwks_uri for issuer {self.issuer} (known without it: "
                             f"{', '.join(sorted(KNOWN_JWKS_URIS))})")
        return self

    def keys_uri(self) -> str:
        return self.jwks_uri or KNOWN_JWKS_URIS[self.issuer]


class ClientAuth(Model):
    """Who may call the endpoint: a source range (`allowed_cidrs`) is not an identity."""

    id_tokens: IdTokens | None = Field(default=None, description="Validate callers' OpenID Connect ID tokens.")

    def methods(self) -> list[str]:
        """The authentication methods declared (a cloud adds its own)."""
        return ["id_tokens"] if self.id_tokens is not None else []

    @model_validator(mode="after")
    def _one_method(self) -> ClientAuth:
        if not self.methods():
            names = ", ".join(name for name in type(self).model_fields)
            raise ValueError(f"declare how clients authenticate ({names}), or leave client_auth out")
        return self


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
    client_auth: ClientAuth | None = Field(
        default=None, description="How the load balancer authenticates clients before a request reaches a model "
        "server (required in prod by the rules, unless waived).",
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
