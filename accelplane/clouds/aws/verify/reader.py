"""`accelplane verify` on AWS: a read-only session for the stack's account and region.

1. the clients (`AwsClients`: read-only by construction, retried, counted) for the declared region,
   with `--profile` and `--endpoint-url`;
2. the caller's account (`sts:GetCallerIdentity`): no credentials, an expired SSO token, an
   endpoint that cannot be reached or that is not the AWS API (an HTML page from a proxy) is an
   input problem (exit 2, naming the option or the endpoint), not a failed check;
3. the live inventory, read in parallel with the fewest calls (`inventory`), and the live view:
   live resources matched to declared ones, in the declared shape (`live_view`).
"""

from __future__ import annotations

import re
from datetime import datetime

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConfigNotFound,
    ConfigParseError,
    CredentialRetrievalError,
    HTTPClientError,
    InvalidRegionError,
    LoginError,
    NoAuthTokenError,
    NoCredentialsError,
    NoRegionError,
    PartialCredentialsError,
    ProfileNotFound,
    SSOError,
    TokenRetrievalError,
)
from botocore.exceptions import ConnectionError as AwsConnectionError
from botocore.parsers import ResponseParserError

from accelplane.clouds.aws.clients import AwsClients, NotAnApiResponseError, describe_error, endpoint_url_problem
from accelplane.clouds.aws.connection import aws_connection
from accelplane.clouds.aws.declaration import aws_platform
from accelplane.clouds.aws.verify.declared import aws_declared
from accelplane.clouds.aws.verify.drift_specs import DRIFT
from accelplane.clouds.aws.verify.inventory import Collector
from accelplane.clouds.aws.verify.live_view import build_live_view
from accelplane.clouds.aws.verify.routing import idle_target_groups
from accelplane.clouds.aws.verify.s3_checkpoints import S3Checkpoints
from accelplane.clouds.aws.verify.state_checks import declared_rate_rules, state_results
from accelplane.config.loader import StackConfig
from accelplane.engine.graph import OfflineGraph
from accelplane.errors import InputError
from accelplane.verify.checkpoint import CheckpointStore
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.endpoint_policy import EndpointPolicy
from accelplane.verify.reader import CloudVerify, LiveRead, LiveReader, LiveSession, ProbeTarget, VerifyOptions
from accelplane.verify.results import CheckId, CheckResult, Status, Subject
from accelplane.verify.text import one_line

_HERE = "accelplane verify"
# Credential providers that failed (SSO token expired, credential_process failed, ...).
_CREDENTIAL_ERRORS = (CredentialRetrievalError, TokenRetrievalError, SSOError, NoAuthTokenError, LoginError)
LOAD_BALANCER = "aws:lb/loadBalancer:LoadBalancer"
BUCKET = "aws:s3/bucket:Bucket"


class AwsReader(LiveReader):
    def __init__(self, clients: AwsClients | None = None) -> None:
        self.clients = clients  # tests hand in clients on moto or recorded answers

    def option_problems(self, options: VerifyOptions) -> list[tuple[str, str]]:
        url = aws_connection(options.connection).endpoint_url
        problem = url and endpoint_url_problem(url)
        return [("--endpoint-url", problem)] if problem else []

    def connect(self, stack: StackConfig, graph: OfflineGraph, options: VerifyOptions) -> AwsSession:
        connection = aws_connection(options.connection)
        clients = self.clients or aws_clients(stack.platform.region, endpoint_url=connection.endpoint_url,
                                              profile=connection.profile, max_attempts=options.max_attempts,
                                              concurrency=options.concurrency)
        declared = aws_declared(stack, graph)
        account = caller_account(clients)
        return AwsSession(clients, stack, declared_graph=declared, account=account, concurrency=options.concurrency)


class AwsSession(LiveSession):
    drift = DRIFT

    def __init__(self, clients: AwsClients, stack: StackConfig, *, declared_graph: DeclaredPlatform, account: str,
                 concurrency: int) -> None:
        self.clients = clients
        self.stack = stack
        self.declared = declared_graph
        self.account = account
        self.region = clients.region
        self.endpoint = clients.endpoint
        self.concurrency = concurrency

    def read(self) -> LiveRead:
        collector = Collector(self.clients, self.declared, concurrency=self.concurrency)
        collector.inventory.account = self.account
        inventory = collector.collect()
        view = build_live_view(self.declared, collector)
        errors = [
            CheckResult(CheckId.read_error, Status.failed,
                        f"{error.operation} on {error.resource} failed: {error.code}: {error.message}")
            for error in inventory.errors
        ]
        return LiveRead(self.declared, view, errors)

    def state_results(self, read: LiveRead, now: datetime) -> list[CheckResult]:
        return state_results(read.view, set(read.declared.types), now,
                             idle_target_groups=idle_target_groups(read.declared),
                             rate_rules=declared_rate_rules(read.declared))

    def probe_target(self, read: LiveRead, listener_port: int, health_path: str) -> ProbeTarget:
        lb = next((r for r in read.view.matched.values() if r.type == LOAD_BALANCER), None)
        subject: Subject = {"type": lb.type, "name": lb.name, "urn": lb.urn} if lb else {}
        dns = lb.outputs.get("dnsName") if lb else None
        if not dns:
            return ProbeTarget(None, subject, "no live load balancer to probe (see drift results)")
        port = "" if listener_port == 443 else f":{listener_port}"
        return ProbeTarget(f"https://{dns}{port}{health_path}", subject)

    def endpoint_policy(self, read: LiveRead) -> EndpointPolicy:
        spec = aws_platform(read.declared.platform).inference_endpoint
        assert spec is not None  # only asked when the platform declares an endpoint
        return EndpointPolicy(elb_policy_minimum_tls(spec.tls_policy), f"TLS policy {spec.tls_policy}",
                              spec.http_redirect)

    def checkpoint_store(self, read: LiveRead, options: VerifyOptions) -> tuple[CheckpointStore | None, Subject]:
        bucket = next(
            (live for live in read.view.matched.values()
             if live.type == BUCKET and live.tags().get("accelplane.io/bucket-role") == "checkpoints"),
            None,
        )
        if bucket is None:
            return None, {"type": BUCKET}
        store = S3Checkpoints(self.clients("s3"), str(bucket.id), mode=options.checkpoint_drill,
                              concurrency=options.concurrency)
        return store, {"type": bucket.type, "name": bucket.name, "urn": bucket.urn}

    def api_calls(self) -> dict[str, object]:
        return self.clients.calls.to_json()


def elb_policy_minimum_tls(policy: str) -> str | None:
    """The lowest TLS version an ELB security policy allows, from its name as the ELB user guide's
    "Security policies for your Application Load Balancer" names them: `…TLS13-1-2-…` and
    `…TLS-1-2-…`/`…FS-1-2-…` allow TLS 1.2 and up; the 2015/2016 policies allow TLS 1.0."""
    match = re.search(r"(?:TLS13|TLS|FS)-1-(\d)-", policy)
    if match:
        return f"TLS_1_{match.group(1)}"
    return "TLS_1_0" if policy.startswith("ELBSecurityPolicy-") else None


def aws_clients(region: str, *, endpoint_url: str | None, profile: str | None, max_attempts: int,
                concurrency: int, here: str = _HERE) -> AwsClients:
    """Clients for a live command; a profile or config that cannot be used is an input problem."""
    try:
        return AwsClients(region, endpoint_url=endpoint_url, profile=profile, max_attempts=max_attempts,
                          concurrency=concurrency)
    except ProfileNotFound:
        raise InputError.single(
            f"no AWS profile {profile!r} in the AWS config files (see `aws configure list-profiles`)",
            file=here,
            field="--profile",
        ) from None
    except (ConfigParseError, ConfigNotFound) as error:
        raise InputError.single(
            f"cannot read the AWS configuration: {one_line(error, 300)}", file=here, field="--profile"
        ) from None
def caller_account(clients: AwsClients, here: str = _HERE) -> str:
    """The account the credentials belong to; every way this first call fails is an input problem."""
    field = "--endpoint-url" if clients.endpoint_url else "AWS endpoint"
    operation = "sts.GetCallerIdentity"
    endpoint = clients.endpoint if clients.endpoint_url else f"AWS STS in {clients.region}"
    try:
        sts = clients("sts", quick=True)
        endpoint = clients.endpoint if clients.endpoint_url else one_line(sts.meta.endpoint_url, 120)
        return str(sts.get_caller_identity()["Account"])
    except (NoCredentialsError, PartialCredentialsError):
        raise InputError.single(
            "no AWS credentials: set AWS_PROFILE (or --profile), or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY",
            file=here,
            field="credentials",
        ) from None
    except ProfileNotFound as error:
        raise InputError.single(one_line(error, 300), file=here, field="--profile") from None
    except _CREDENTIAL_ERRORS as error:
        raise InputError.single(
            f"cannot get AWS credentials: {describe_error(error)[1]}", file=here, field="credentials"
        ) from None
    except (NoRegionError, InvalidRegionError) as error:
        raise InputError.single(one_line(error, 300), file=here, field="region") from None
    except NotAnApiResponseError as error:
        raise InputError.single(f"{describe_error(error)[1]} (expected the AWS API)", file=here, field=field) from None
    except AwsConnectionError as error:  # no route, refused, connect timeout, TLS, proxy
        raise InputError.single(
            f"cannot reach AWS at {endpoint}: {describe_error(error)[1]}", file=here, field=field
        ) from None
    except HTTPClientError as error:  # read timeout, connection closed mid-answer
        raise InputError.single(
            f"no answer from {endpoint} to {operation}: {describe_error(error)[1]}", file=here, field=field
        ) from None
    except ClientError as error:
        code, message = describe_error(error)
        raise InputError.single(
            f"AWS rejected the credentials: {code}: {message}", file=here, field="credentials"
        ) from None
    except (ResponseParserError, KeyError, TypeError, ValueError) as error:
        # botocore's parsers raise these on a body of the wrong shape: not an AWS answer.
        raise InputError.single(
            f"{endpoint} answered {operation} with something that is not an AWS API response "
            f"({describe_error(error)[0]}): expected the AWS API",
            file=here,
            field=field,
        ) from None
    except BotoCoreError as error:
        code, message = describe_error(error)
        raise InputError.single(f"cannot call {operation}: {code}: {message}", file=here, field=field) from None


VERIFY = CloudVerify("aws", AwsReader)  # this cloud's `accelplane.verify` entry point
