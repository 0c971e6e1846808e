"""What only an AWS stack declares: its VPC (new or existing), EC2 capacity reservations, EFA and
placement groups on pools, the ALB's certificate and settings, Secrets Manager's recovery window, and
the EKS control-plane logs. `AwsPlatform` is the model `cloud: aws` (the default) selects; a key of
another cloud is an unknown key here, named by the loader with the cloud that has it.

Each class narrows a neutral section (`accelplane.declaration`) by subclassing it; the narrowed
fields carry `reportIncompatibleVariableOverride` waived: sound, as every model is frozen.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, ClassVar

from pydantic import Field, StringConstraints, field_validator, model_validator

from accelplane.clouds.aws.capacity_block import CapacityBlock
from accelplane.declaration import (
    AuditTrail,
    Capacity,
    ClientAuth,
    InferenceEndpoint,
    Network,
    NodePool,
    Platform,
    Secret,
    SoftwareProfile,
)
from accelplane.declaration.base import Cidr, Model, Name, Version, _check_cidr

# The software-profile field pinning the EFA device plugin (a pool with `efa: true` runs it).
EFA_PLUGIN_FIELD = "efa_device_plugin"


class NatMode(StrEnum):
    single = "single"
    per_az = "per_az"


class NewVpc(Model):
    cidr: Cidr = Field(description="CIDR of the new VPC.")
    availability_zones: list[str] = Field(min_length=1, description="Availability zones, one subnet pair each.")
    private_subnets: list[Cidr] = Field(min_length=1, description="Node subnets, one per availability zone.")
    public_subnets: list[Cidr] = Field(
        default_factory=list, description="Load-balancer-only subnets, one per availability zone."
    )
    nat: NatMode = Field(default=NatMode.single, description="One NAT gateway, or one per zone (prod).")

    _cidr = field_validator("cidr")(_check_cidr)

    @field_validator("private_subnets", "public_subnets")
    @classmethod
    def _subnets(cls, value: list[str]) -> list[str]:
        return [_check_cidr(v) for v in value]


class ExistingVpc(Model):
    vpc_id: str = Field(pattern=r"^vpc-[0-9a-f]{8,17}$", description="Id of the existing VPC.")
    cidr: Cidr = Field(description="CIDR of the existing VPC (security group rules are scoped to it).")
    private_subnet_ids: list[str] = Field(min_length=1, description="Existing private subnet ids for nodes.")
    public_subnet_ids: list[str] = Field(default_factory=list, description="Existing public subnet ids for the ALB.")

    _cidr = field_validator("cidr")(_check_cidr)


class AwsNetwork(Network):
    new_vpc: NewVpc | None = Field(default=None, description="Create a new VPC with these settings.")
    existing_vpc: ExistingVpc | None = Field(default=None, description="Use this existing VPC instead.")


class AwsCapacity(Capacity):
    reservation_key: ClassVar[str] = "reservation_id"
    reservation_form: ClassVar[str] = "cr-..."

    reservation_id: str | None = Field(
        default=None,
        pattern=r"^cr-[0-9a-f]{8,17}$",
        description="EC2 capacity reservation id (cr-...) the nodes consume: one of reservation_id or block.",
    )
    block: CapacityBlock | None = Field(
        default=None, description="An EC2 Capacity Block for ML the stack buys (`pulumi up` only) and the pool "
        "consumes: the offering `accelplane capacity offerings` listed, its price cap and approval.",
    )

    def reserved(self) -> str | None:
        if self.block is not None:
            return f"capacity block {self.block.offering_id}"
        return self.reservation_id

    @model_validator(mode="after")
    def _one_reservation(self) -> AwsCapacity:
        if self.block is not None and self.reservation_id is not None:
            raise ValueError("declare reservation_id (a reservation you hold) or block (one to buy), not both")
        return self


class AwsNodePool(NodePool):
    capacity: AwsCapacity = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default_factory=AwsCapacity, description="How nodes are bought."
    )
    efa: bool = Field(default=False, description="Attach EFA interfaces (instance type must support EFA).")
    placement_group: bool = Field(default=False, description="Cluster placement group (EFA training pools).")

    def uses_efa(self) -> bool:
        return self.efa

    def fabric_plugin_field(self) -> str | None:
        return EFA_PLUGIN_FIELD if self.efa else None


class MutualTlsMode(StrEnum):
    """The ALB's client-certificate handling (botocore elbv2 MutualAuthenticationAttributes `Mode`; `off`
    is leaving mutual_tls out)."""

    verify = "verify"  # the ALB checks the certificate against the trust store and refuses the handshake
    passthrough = "passthrough"  # the ALB only forwards the certificate: the backend must verify it


class MutualTls(Model):
    """Clients present a certificate issued by a CA in the bundle (ALB mutual TLS)."""

    ca_bundle: str = Field(
        pattern=r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/\S+\.pem$",
        description="The PEM bundle of the CAs that issue client certificates (s3://bucket/key.pem). CA "
        "certificates are public; who may overwrite the object is what matters (rule AP-LB-022).",
    )
    ca_bundle_version: str | None = Field(
        default=None, min_length=1, max_length=1024,
        description="The S3 object version of the bundle the trust store is built from (pins it: an overwrite "
        "of the object changes nothing until this changes).",
    )
    mode: MutualTlsMode = Field(
        default=MutualTlsMode.verify, description="verify (the ALB refuses unknown certificates) or passthrough "
        "(the backend must verify: flagged by AP-LB-021).",
    )

    def bucket_and_key(self) -> tuple[str, str]:
        bucket, _, key = self.ca_bundle.removeprefix("s3://").partition("/")
        return bucket, key


class CognitoSignIn(Model):
    """People sign in through an Amazon Cognito user pool before the ALB forwards their requests (the
    `authenticate-cognito` action; ELB User Guide, "Authenticate users using an Application Load
    Balancer"): a browser without a session is redirected to the pool's sign-in page, and the pool's
    users (or its federated identity providers) are who may call."""

    user_pool_arn: str = Field(
        pattern=r"^arn:aws[a-z-]*:cognito-idp:[a-z0-9-]+:\d{12}:userpool/[\w-]+_[0-9a-zA-Z]+$",
        description="The Cognito user pool people sign in to.",
    )
    user_pool_client_id: str = Field(
        pattern=r"^[\w+]{1,128}$", description="The pool's app client for the endpoint (with a client secret and "
        "the ALB's /oauth2/idpresponse callback URL).",
    )
    user_pool_domain: str = Field(
        pattern=r"^[a-z0-9](?:[a-z0-9.-]{0,61}[a-z0-9])?$",
        description="The pool's domain prefix (or its custom domain) hosting the sign-in page.",
    )
    session_timeout_seconds: int = Field(
        default=28800, ge=1, le=604800,
        description="How long a sign-in lasts (the ALB's session cookie; at most 7 days).",
    )


class AwsClientAuth(ClientAuth):
    mutual_tls: MutualTls | None = Field(default=None, description="Client certificates (ALB mutual TLS).")
    people: CognitoSignIn | None = Field(
        default=None, description="People sign in through a Cognito user pool (the ALB's authenticate-cognito).")

    def methods(self) -> list[str]:
        return [*super().methods(), *(["mutual_tls"] if self.mutual_tls is not None else []),
                *(["people"] if self.people is not None else [])]

    @model_validator(mode="after")
    def _one_authenticate_action(self) -> AwsClientAuth:
        # botocore's elbv2 model, `Action`: a rule of an HTTPS listener "can also include one of the following
        # user authentication actions: authenticate-oidc, authenticate-cognito, or jwt-validation".
        if self.people is not None and self.id_tokens is not None:
            raise ValueError("an ALB listener rule takes one authentication action: id_tokens (jwt-validation) "
                             "for machine callers or people (authenticate-cognito) for sign-in, not both on one "
                             "endpoint")
        return self


RoleArn = Annotated[str, StringConstraints(pattern=r"^arn:aws[a-z-]*:iam::\d{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}$")]


class AwsAuditTrail(AuditTrail):
    """CloudTrail: the account's management events (Secrets Manager's reads among them) in every region, and
    the data events of the stack's model and checkpoint buckets, into an S3 bucket under object lock."""

    readers: list[RoleArn] = Field(
        default_factory=list, max_length=10,
        description="IAM roles that may read the trail's log files (the bucket denies every other reader).")


class AwsInferenceEndpoint(InferenceEndpoint):
    client_auth: AwsClientAuth | None = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default=None, description="How the ALB authenticates clients before a request reaches a model server: "
        "ID tokens (listener rules' jwt-validation), client certificates (mutual TLS), or both.",
    )
    certificate_arn: str = Field(
        pattern=r"^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate/[0-9a-f-]{36}$",
        description="ACM certificate ARN for the ALB's HTTPS listener.",
    )
    tls_policy: str = Field(
        default="ELBSecurityPolicy-TLS13-1-2-2021-06", description="ELB security policy (TLS 1.2 or newer only)."
    )
    idle_timeout_seconds: int = Field(
        default=60, ge=1, le=4000, description="ALB idle timeout, shared by every service (a silent "
        "connection is closed after it).",
    )
    waf_managed_rule_groups: list[str] = Field(
        default_factory=list, description="AWS managed rule groups the endpoint's WAF web ACL runs (e.g. "
        "AWSManagedRulesKnownBadInputsRuleSet). AWSManagedRulesCommonRuleSet blocks bodies over 8 KB (a long prompt).",
    )


class AwsSecret(Secret):
    """A Secrets Manager secret."""

    recovery_window_days: int = Field(default=30, ge=7, le=30, description="Days a deleted secret can be restored.")
    rotation_function: str | None = Field(
        default=None,
        pattern=r"^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}$",
        description="The Lambda function that rotates the secret (Secrets Manager calls it with the createSecret, "
        "setSecret, testSecret and finishSecret steps), by ARN; required with rotation_days. The stack lets "
        "Secrets Manager invoke it for this secret only.",
    )

    rotation_needs: ClassVar[tuple[str, str] | None] = (
        "rotation_function", "Secrets Manager rotates a secret by calling its rotation function every rotation_days"
    )


class AwsSoftwareProfile(SoftwareProfile):
    """A software profile of an EKS stack: the neutral pins, and the EKS AMI release and EKS add-on charts."""

    ami_release_version: Version | None = Field(
        default=None,
        description="EKS-optimized AMI release version (e.g. 1.33.5-20251120) pinned on managed node groups.",
    )
    efa_device_plugin: Version | None = Field(default=None, description="aws-efa-k8s-device-plugin chart version.")
    aws_load_balancer_controller: Version | None = Field(
        default=None, description="aws-load-balancer-controller chart version."
    )

    NON_MATRIX_FIELDS: ClassVar[frozenset[str]] = SoftwareProfile.NON_MATRIX_FIELDS | {
        "ami_release_version", "efa_device_plugin", "aws_load_balancer_controller",
    }


class AwsPlatform(Platform):
    """An EKS stack (`cloud: aws`)."""

    cloud: str = Field(
        default="aws", pattern=r"^aws$",
        description="The cloud the stack runs on, one of the installed clouds (`accelplane schema` lists them): "
        "aws (EKS) or gcp (GKE) here; default aws.",
    )

    network: AwsNetwork = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        description="A new or an existing VPC, and who may reach the cluster API."
    )
    software_profiles: dict[Name, AwsSoftwareProfile] = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        min_length=1, description="Named, pinned version sets referenced by node pools."
    )
    node_pools: list[AwsNodePool] = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        min_length=1, description="EKS managed node groups."
    )
    inference_endpoint: AwsInferenceEndpoint | None = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default=None, description="Public HTTPS inference endpoint (an ALB)."
    )
    secrets: list[AwsSecret] = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default_factory=list, description="Secrets Manager secrets (values never here)."
    )
    audit: AwsAuditTrail | None = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default=None, description="A CloudTrail trail of the account's management events and the model and "
        "checkpoint buckets' data events, kept under S3 object lock (required in prod by AP-AUD-001).",
    )
    cluster_log_types: list[str] = Field(
        default_factory=lambda: ["api", "audit", "authenticator", "controllerManager", "scheduler"],
        description="EKS control-plane log types sent to CloudWatch.",
    )
    log_retention_days: int = Field(default=90, ge=1, description="CloudWatch retention of control-plane logs.")

    def pool_profile(self, pool: NodePool) -> AwsSoftwareProfile | None:
        # Narrowed: an EKS stack's profiles are AwsSoftwareProfile (its AMI release and add-on charts).
        return self.software_profiles.get(pool.software_profile) if pool.software_profile else None


def aws_platform(platform: Platform) -> AwsPlatform:
    """The platform as the AWS model it was loaded with (the registry hands AWS only its own stacks)."""
    if not isinstance(platform, AwsPlatform):
        raise TypeError(f"an AWS stack's platform is an AwsPlatform, got {type(platform).__name__}")
    return platform
