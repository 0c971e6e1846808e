"""The stack declaration: one typed object per stack, under `accelplane:platform`.

Models are the contract (docs/conventions.md 5-7): strict (unknown keys rejected), frozen, every field
described, closed vocabularies as `StrEnum`. Single-field rules live here as validators;
rules that relate fields to each other or to a cloud's facts live in `accelplane.config.checks`
(and its per-cloud modules), so each problem can name its own field path in the user's file.

One declaration for two clouds (`cloud: aws | gcp`): concepts that mean the same keep one shape
(node pools, buckets, secrets, workloads, endpoint, kubernetes, waivers); keys exist only where the
clouds really differ (`gcp:` project settings, `network.vpc` ranges, a GCP reservation name, the
endpoint's certificate source), and the checks refuse a key the stack's cloud does not use.
"""

from __future__ import annotations

import ipaddress
from datetime import date
from enum import StrEnum
from itertools import pairwise
from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationInfo, field_validator, model_validator

from accelplane.config.bare_metal import BareMetal

Name = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,38}[a-z0-9]$"),
    Field(description="Lower-case DNS-style name: letters, digits and '-', 2-40 characters."),
]
Version = Annotated[
    str,
    StringConstraints(pattern=r"^[0-9A-Za-z][0-9A-Za-z.+_-]*$", max_length=64),
    Field(description='An exact version string, written as a YAML string (quote it: "12.8").'),
]
Cidr = Annotated[str, Field(description="An IPv4 or IPv6 network in CIDR notation, e.g. 10.0.0.0/16.")]
ImageDigest = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+@sha256:[0-9a-f]{64}$"),
    Field(description="Container image by digest: registry/repository@sha256:<64 hex>."),
]


class Model(BaseModel):
    """Base: strict shape, immutable once validated."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)


def _check_cidr(value: str) -> str:
    try:
        return str(ipaddress.ip_network(value, strict=True))
    except ValueError as error:
        raise ValueError(f"expected a network in CIDR notation like 10.0.0.0/16 ({error})") from None


class Environment(StrEnum):
    dev = "dev"
    staging = "staging"
    prod = "prod"


class Purpose(StrEnum):
    training = "training"
    inference = "inference"
    general = "general"


class CapacityType(StrEnum):
    on_demand = "on_demand"
    spot = "spot"
    capacity_reservation = "capacity_reservation"


class TaintEffect(StrEnum):
    """EKS managed node group taint effects (botocore eks `TaintEffect`)."""

    NO_SCHEDULE = "NO_SCHEDULE"
    NO_EXECUTE = "NO_EXECUTE"
    PREFER_NO_SCHEDULE = "PREFER_NO_SCHEDULE"


class BucketRole(StrEnum):
    datasets = "datasets"
    checkpoints = "checkpoints"
    logs = "logs"
    model_artifacts = "model_artifacts"


class BucketAccess(StrEnum):
    read = "read"
    write = "write"
    read_write = "read_write"


class WorkloadKind(StrEnum):
    training = "training"
    inference = "inference"
    batch = "batch"


class NatMode(StrEnum):
    single = "single"
    per_az = "per_az"


class Cloud(StrEnum):
    aws = "aws"
    gcp = "gcp"


class ReleaseChannel(StrEnum):
    """GKE release channels (container.v1 ReleaseChannel.channel, without UNSPECIFIED)."""

    RAPID = "RAPID"
    REGULAR = "REGULAR"
    STABLE = "STABLE"
    EXTENDED = "EXTENDED"


class GpuDriver(StrEnum):
    """How GKE installs the NVIDIA driver (container.v1 GPUDriverInstallationConfig.gpuDriverVersion):
    the driver GKE pins as default or latest for the node version, or none (a driver DaemonSet of yours)."""

    default = "default"
    latest = "latest"
    disabled = "disabled"


class SslProfile(StrEnum):
    """Google SSL policy profiles that allow TLS 1.2+ suites only (compute.v1 SslPolicy.profile)."""

    MODERN = "MODERN"
    RESTRICTED = "RESTRICTED"


class KernelModule(StrEnum):
    open = "open"
    proprietary = "proprietary"


class Tags(Model):
    owner: str = Field(min_length=1, description="Team or person accountable for the platform.")
    cost_centre: str = Field(min_length=1, description="Cost centre billed for the platform.")
    extra: dict[str, str] = Field(default_factory=dict, description="More tags applied to every taggable resource.")


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


class GcpVpc(Model):
    """A new VPC on Google Cloud: one private node subnet with secondary ranges for pods and services."""

    node_cidr: Cidr = Field(description="Primary range of the node subnet.")
    pods_cidr: Cidr = Field(description="Secondary range for pod IPs (VPC-native cluster).")
    services_cidr: Cidr = Field(description="Secondary range for Service IPs.")
    control_plane_cidr: Cidr = Field(description="A /28 for the GKE control plane's private endpoint.")

    @field_validator("node_cidr", "pods_cidr", "services_cidr", "control_plane_cidr")
    @classmethod
    def _cidrs(cls, value: str) -> str:
        return _check_cidr(value)


class Network(Model):
    new_vpc: NewVpc | None = Field(default=None, description="AWS: create a new VPC with these settings.")
    existing_vpc: ExistingVpc | None = Field(default=None, description="AWS: use this existing VPC instead.")
    vpc: GcpVpc | None = Field(default=None, description="Google Cloud: the new VPC's node, pod and service ranges.")
    api_allowed_cidrs: list[Cidr] = Field(
        default_factory=list,
        description="CIDRs allowed to reach the cluster API publicly; empty keeps the endpoint private only.",
    )

    @field_validator("api_allowed_cidrs")
    @classmethod
    def _api(cls, value: list[str]) -> list[str]:
        return [_check_cidr(v) for v in value]



class SoftwareProfile(Model):
    """A pinned version set: the single version declaration for pools, Ansible and the rules.

    Field names are the keys of the version matrix (docs/design.md `matrix check` contract) plus
    the node-image and runtime pins that the matrix does not judge.
    """

    description: str = Field(default="", description="What this profile is for.")
    os: str | None = Field(default=None, description="Operating system, e.g. ubuntu-22.04 or al2023.")
    kernel: Version | None = Field(default=None, description="Kernel release, e.g. 6.8.0.")
    glibc: Version | None = Field(default=None, description="glibc version of the OS image.")
    python: Version | None = Field(default=None, description="Python minor version, e.g. 3.11.")
    driver: Version | None = Field(default=None, description="NVIDIA driver, exact (e.g. 570.172.08).")
    kernel_module: KernelModule | None = Field(default=None, description="NVIDIA kernel module flavour.")
    fabric_manager: Version | None = Field(default=None, description="NVIDIA Fabric Manager (NVSwitch systems).")
    cuda: Version | None = Field(default=None, description="CUDA runtime the framework is built for, e.g. 12.8.")
    compat_package: Version | None = Field(default=None, description="cuda-compat forward-compatibility package.")
    cudnn: Version | None = Field(default=None, description="cuDNN version.")
    nccl: Version | None = Field(default=None, description="NCCL (or RCCL) version.")
    nccl_package: str | None = Field(default=None, description="NCCL pip package, e.g. nvidia-nccl-cu12.")
    torch: Version | None = Field(default=None, description="PyTorch version.")
    torchvision: Version | None = Field(default=None, description="torchvision version.")
    torchaudio: Version | None = Field(default=None, description="torchaudio version.")
    rocm: Version | None = Field(default=None, description="ROCm release.")
    rocm_userspace: Version | None = Field(default=None, description="ROCm user-space release in containers.")
    amdgpu_kmd: Version | None = Field(default=None, description="amdgpu kernel driver version.")
    gpu_target: str | None = Field(default=None, description="LLVM GPU target, e.g. gfx942.")
    neuron_sdk: Version | None = Field(default=None, description="AWS Neuron SDK release.")
    torch_neuronx: Version | None = Field(default=None, description="torch-neuronx version.")
    torch_neuron: Version | None = Field(
        default=None,
        description="torch-neuron version: the Inferentia1 (inf1) SDK line, torch 1.x, e.g. 1.13.1.2.11.13.0.",
    )
    neuronx_cc: Version | None = Field(
        default=None, description="neuronx-cc compiler of the Neuron SDK release (pip), e.g. 2.21.18209.0."
    )
    neuron_runtime: Version | None = Field(
        default=None, description="aws-neuronx-runtime-lib of the Neuron SDK release (apt), e.g. 2.28.23.0."
    )
    neuron_collectives: Version | None = Field(
        default=None, description="aws-neuronx-collectives of the Neuron SDK release (apt), e.g. 2.28.27.0."
    )
    neuron_tools: Version | None = Field(
        default=None, description="aws-neuronx-tools (neuron-ls) of the Neuron SDK release (apt), e.g. 2.26.14.0."
    )
    jax: Version | None = Field(default=None, description="JAX version.")
    jaxlib: Version | None = Field(default=None, description="jaxlib version.")
    libtpu: Version | None = Field(default=None, description="libtpu version.")
    torch_xla: Version | None = Field(default=None, description="torch_xla version.")
    tpu_runtime: str | None = Field(default=None, description="TPU VM runtime image.")
    gaudi_sw: Version | None = Field(default=None, description="Intel Gaudi software release.")
    gaudi_build: str | None = Field(
        default=None,
        pattern=r"^[0-9]+$",
        description="Build number of the Intel Gaudi software release (1.22.0-740: 740): the habanalabs-* package "
        "versions are <gaudi_sw>-<build>, habana-torch-plugin's <gaudi_sw>.<build>.",
    )
    cann: Version | None = Field(default=None, description="Huawei CANN release.")
    ascend_driver: Version | None = Field(
        default=None,
        description="Huawei Ascend NPU driver (Ascend HDK) as its installer names it, e.g. 25.0.rc1.1 "
        "(Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-aarch64.run; /usr/local/Ascend/driver/version.info).",
    )
    ascend_firmware: Version | None = Field(
        default=None,
        description="Huawei Ascend NPU firmware of the driver's Ascend HDK release, e.g. 7.7.0.1.231 "
        "(Ascend-hdk-910b-npu-firmware_7.7.0.1.231.run; npu-smi info -t board).",
    )
    torch_npu: Version | None = Field(default=None, description="torch_npu version.")
    efa_installer: Version | None = Field(default=None, description="AWS EFA installer version.")
    aws_ofi_nccl: Version | None = Field(default=None, description="aws-ofi-nccl plugin version.")
    container_toolkit: Version | None = Field(default=None, description="NVIDIA container toolkit version.")
    containerd: Version | None = Field(default=None, description="containerd version on bare-metal nodes.")
    ami_release_version: Version | None = Field(
        default=None,
        description="EKS-optimized AMI release version (e.g. 1.33.5-20251120) pinned on managed node groups.",
    )
    # Kubernetes add-ons: Helm chart versions. Node-level plugins come from the pools' profiles,
    # cluster-wide controllers from the profile named by `kubernetes.addons_profile`.
    nvidia_device_plugin: Version | None = Field(default=None, description="nvidia-device-plugin chart version.")
    dcgm_exporter: Version | None = Field(default=None, description="NVIDIA dcgm-exporter chart version.")
    neuron_helm_chart: Version | None = Field(
        default=None, description="AWS neuron-helm-chart version (device plugin and scheduler extension)."
    )
    neuron_monitor_image: ImageDigest | None = Field(
        default=None,
        description="AWS neuron-monitor exporter image by digest (public.ecr.aws/neuron/neuron-monitor or a mirror), "
        "run on Neuron pools so Prometheus scrapes their device metrics.",
    )
    efa_device_plugin: Version | None = Field(default=None, description="aws-efa-k8s-device-plugin chart version.")
    aws_load_balancer_controller: Version | None = Field(
        default=None, description="aws-load-balancer-controller chart version."
    )
    kueue: Version | None = Field(default=None, description="Kueue chart version.")
    jobset: Version | None = Field(default=None, description="JobSet chart version.")
    kube_prometheus_stack: Version | None = Field(default=None, description="kube-prometheus-stack chart version.")

    # Keys that describe the node image or runtime, not a compatibility input of the matrix.
    NON_MATRIX_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "description", "container_toolkit", "containerd", "ami_release_version", "nvidia_device_plugin",
            "dcgm_exporter", "neuron_helm_chart", "efa_device_plugin", "aws_load_balancer_controller", "kueue",
            "jobset", "kube_prometheus_stack", "neuron_monitor_image",
            # Package builds the bare-metal roles install; the matrix judges the release itself.
            "gaudi_build", "neuronx_cc", "neuron_runtime", "neuron_collectives", "neuron_tools",
            "ascend_driver", "ascend_firmware",
        }
    )
    # Container images by digest: pinned here like versions, but not versions. They do not fit a node
    # label (63 characters) and no node or host runs them, so `versions()` leaves them out.
    IMAGE_FIELDS: ClassVar[frozenset[str]] = frozenset({"neuron_monitor_image"})

    def versions(self) -> dict[str, str]:
        """Every pinned version that is set (images excluded), as plain strings keyed by field name."""
        return {
            key: str(value)
            for key, value in self.model_dump(exclude_none=True, exclude={"description", *self.IMAGE_FIELDS}).items()
            if value != ""
        }

    def matrix_stack(self, accelerator: str, instance: str | None = None) -> dict[str, str]:
        """The flat mapping `accelplane.matrix.check` judges, for one pool's accelerator."""
        stack = {k: v for k, v in self.versions().items() if k not in self.NON_MATRIX_FIELDS}
        stack["accelerator"] = accelerator
        if instance:
            stack["instance"] = instance
        return stack


class Taint(Model):
    key: str = Field(min_length=1, max_length=63, description="Taint key, e.g. nvidia.com/gpu.")
    value: str = Field(default="", max_length=63, description="Taint value.")
    effect: TaintEffect = Field(description="NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE.")


class Capacity(Model):
    type: CapacityType = Field(default=CapacityType.on_demand, description="on_demand, spot or capacity_reservation.")
    reservation_id: str | None = Field(
        default=None,
        pattern=r"^cr-[0-9a-f]{8,17}$",
        description="AWS: EC2 capacity reservation id (cr-...), required for capacity_reservation.",
    )
    reservation: str | None = Field(
        default=None,
        pattern=r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$",
        description="Google Cloud: name of the specific Compute Engine reservation the nodes consume.",
    )

    @model_validator(mode="after")
    def _reservation(self) -> Capacity:
        reserved = self.reservation_id or self.reservation
        if self.type is CapacityType.capacity_reservation and not reserved:
            raise ValueError("capacity_reservation needs reservation_id (AWS, cr-...) or reservation (Google Cloud)")
        if self.type is not CapacityType.capacity_reservation and reserved:
            raise ValueError("reservation_id and reservation are only valid with type capacity_reservation")
        return self


class Scaling(Model):
    min: int = Field(ge=0, description="Minimum node count.")
    desired: int = Field(ge=0, description="Desired node count at creation.")
    max: int = Field(ge=1, description="Maximum node count.")


class NodePool(Model):
    name: Name
    purpose: Purpose = Field(description="training, inference or general.")
    accelerator: str | None = Field(
        default=None, description="Accelerator from the matrix vocabulary (e.g. nvidia-h100); omit for CPU pools."
    )
    instance_type: str = Field(
        description="AWS: EC2 instance type (p5.48xlarge); Google Cloud: machine type (a3-highgpu-8g, ct5p-hightpu-4t)."
    )
    software_profile: Name | None = Field(
        default=None, description="Name of a software profile (required with accelerator)."
    )
    capacity: Capacity = Field(default_factory=Capacity, description="How nodes are bought.")
    scaling: Scaling = Field(description="Node counts: min <= desired <= max.")
    disk_gib: int = Field(default=200, ge=20, le=16384, description="Root volume size in GiB (gp3, encrypted).")
    labels: dict[str, str] = Field(default_factory=dict, description="Extra Kubernetes node labels.")
    taints: list[Taint] | None = Field(
        default=None, description="Node taints; default is the accelerator's taint (none for CPU pools)."
    )
    efa: bool = Field(default=False, description="AWS: attach EFA interfaces (instance type must support EFA).")
    placement_group: bool = Field(default=False, description="AWS: cluster placement group (EFA training pools).")
    tpu_topology: str | None = Field(
        default=None,
        pattern=r"^[1-9][0-9]*x[1-9][0-9]*(x[1-9][0-9]*)?$",
        description="Google Cloud TPU pools: the slice topology, e.g. 2x4 or 2x2x4; with a multi-host topology "
        "`scaling` counts whole slices (each slice is atomic; a shape change replaces the pool).",
    )
    zones: list[str] | None = Field(
        default=None,
        description="Google Cloud: zones of this pool's nodes (default: gcp.zones); a multi-host TPU slice lives "
        "in exactly one zone that offers its TPU generation.",
    )
    gpu_driver: GpuDriver | None = Field(
        default=None, description="Google Cloud GPU pools: how GKE installs the driver (default: default)."
    )
    group: str | None = Field(
        default=None, description="Pools in one group train together and must share driver, runtime and NCCL."
    )


class LifecycleTransition(Model):
    days: int = Field(ge=0, description="Days after creation.")
    storage_class: str = Field(description="S3 storage class, e.g. STANDARD_IA, GLACIER_IR, INTELLIGENT_TIERING.")


class LifecycleRule(Model):
    id: Name
    prefix: str = Field(default="", description="Key prefix the rule applies to ('' for the whole bucket).")
    expire_days: int | None = Field(default=None, ge=1, description="Delete current objects after N days.")
    transitions: list[LifecycleTransition] = Field(default_factory=list, description="Storage class transitions.")
    noncurrent_expire_days: int | None = Field(default=None, ge=1, description="Delete old versions after N days.")
    abort_multipart_days: int | None = Field(default=7, ge=1, description="Abort incomplete multipart uploads.")


class Bucket(Model):
    role: BucketRole = Field(description="datasets, checkpoints, logs or model_artifacts.")
    versioning: bool = Field(default=True, description="Keep object versions.")
    lifecycle: list[LifecycleRule] = Field(default_factory=list, description="Lifecycle rules.")
    force_destroy: bool = Field(default=False, description="Allow deleting a non-empty bucket (never in prod).")


class HealthCheck(Model):
    path: str = Field(default="/healthz", pattern=r"^/", description="HTTP path probed by the load balancer.")
    interval_seconds: int = Field(default=15, ge=5, le=300, description="Seconds between probes.")
    timeout_seconds: int = Field(default=5, ge=2, le=120, description="Probe timeout.")
    healthy_threshold: int = Field(default=3, ge=2, le=10, description="Successes to mark healthy.")
    unhealthy_threshold: int = Field(default=3, ge=2, le=10, description="Failures to mark unhealthy.")
    matcher: str = Field(default="200", description="HTTP codes counted as healthy.")


class InferenceEndpoint(Model):
    certificate_arn: str | None = Field(
        default=None,
        pattern=r"^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate/[0-9a-f-]{36}$",
        description="AWS: ACM certificate ARN for the HTTPS listener.",
    )
    certificate: str | None = Field(
        default=None,
        pattern=r"^projects/[a-z][a-z0-9-]{4,28}[a-z0-9]/locations/global/certificates/[a-z]([-a-z0-9]{0,61}[a-z0-9])?$",
        description="Google Cloud: Certificate Manager certificate (projects/<p>/locations/global/certificates/<n>) "
        "the Gateway serves.",
    )
    ssl_profile: SslProfile = Field(
        default=SslProfile.MODERN,
        description="Google Cloud: SSL policy profile; the minimum TLS version is always 1.2.",
    )
    tls_policy: str = Field(
        default="ELBSecurityPolicy-TLS13-1-2-2021-06", description="AWS: ELB security policy (TLS 1.2 or newer only)."
    )
    listener_port: int = Field(default=443, ge=1, le=65535, description="HTTPS listener port.")
    http_redirect: bool = Field(
        default=True,
        description="Also listen on port 80 and answer every plain-HTTP request with a 301 redirect to HTTPS on "
        "listener_port; port 80 is then open to allowed_cidrs too. false: no port-80 listener and no port-80 ingress.",
    )
    target_port: int = Field(default=8000, ge=1, le=65535, description="Port the inference pods listen on.")
    health_check: HealthCheck = Field(default_factory=HealthCheck, description="Target group health check.")
    allowed_cidrs: list[Cidr] = Field(min_length=1, description="Client CIDRs allowed to reach the endpoint.")
    idle_timeout_seconds: int = Field(default=60, ge=1, le=4000, description="AWS: ALB idle timeout.")

    @field_validator("allowed_cidrs")
    @classmethod
    def _cidrs(cls, value: list[str]) -> list[str]:
        return [_check_cidr(v) for v in value]

    @model_validator(mode="after")
    def _redirect_port_free(self) -> InferenceEndpoint:
        if self.http_redirect and self.listener_port == 80:
            raise ValueError("listener_port 80 is the HTTP redirect's port: set http_redirect: false or another port")
        return self


class Secret(Model):
    """A Secrets Manager secret. Its readers are the workloads that list it under `secrets`."""

    name: Name
    description: str = Field(default="", description="What the secret holds (never its value).")
    recovery_window_days: int = Field(default=30, ge=7, le=30, description="Days a deleted secret can be restored.")


class BucketGrant(Model):
    role: BucketRole = Field(description="Which bucket.")
    access: BucketAccess = Field(description="read, write or read_write.")
    prefix: str = Field(
        pattern=r"^[A-Za-z0-9!_.*'()/-]*$",
        description="Key prefix the workload may touch, e.g. 'trainer/'. '' means the whole bucket.",
    )


class Workload(Model):
    name: Name
    kind: WorkloadKind = Field(description="training, inference or batch.")
    namespace: Name = Field(description="Kubernetes namespace of the workload.")
    service_account: Name | None = Field(default=None, description="Service account name (default: workload name).")
    buckets: list[BucketGrant] = Field(default_factory=list, description="Bucket prefixes the workload may touch.")
    secrets: list[Name] = Field(default_factory=list, description="Secrets the workload may read.")

    @property
    def service_account_name(self) -> str:
        return self.service_account or self.name


class Waiver(Model):
    rule: str = Field(min_length=1, description="Rule id being waived.")
    resource: str = Field(min_length=1, description="Resource name (or URN) the waiver applies to.")
    reason: str = Field(min_length=10, description="Why the finding is accepted (required).")
    owner: str = Field(min_length=1, description="Who accepted it.")
    expires: date = Field(description="Date the waiver stops applying (YYYY-MM-DD).")


class Autoscaling(Model):
    min_replicas: int = Field(
        ge=0,
        description="Fewest replicas (HPA minReplicas). 0 only for a backend at weight 0: no replicas and no "
        "HPA, so an idle canary or retired baseline holds no accelerators.",
    )
    max_replicas: int = Field(ge=1, description="Most replicas (HPA maxReplicas).")
    target_cpu_utilization: int = Field(default=70, ge=10, le=100, description="HPA CPU utilisation target, %.")


Duration = Annotated[
    str,
    StringConstraints(pattern=r"^[1-9][0-9]{0,5}(s|m|h)$|^0s$"),
    Field(description="A duration in seconds, minutes or hours: 30s, 10m, 1h."),
]
Timestamp = Annotated[
    str,
    StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"),
    Field(description='A UTC time, ISO 8601: "2026-12-03T06:00:00Z".'),
]


def duration_seconds(value: str) -> int:
    """Seconds in a `Duration` ("30s", "10m", "1h")."""
    return int(value[:-1]) * {"s": 1, "m": 60, "h": 3600}[value[-1]]


class Backend(Model):
    """One way of serving an inference service: a pool (so an accelerator type), an image and a weight."""

    name: Name
    node_pool: Name = Field(description="Inference node pool the backend's pods run on (its accelerator type).")
    image: ImageDigest
    weight: int = Field(ge=0, le=100, description="Share of the service's requests, %; a service's weights sum to 100.")
    software_profile: Name | None = Field(
        default=None,
        description="Profile the image was built against (CUDA, framework, ...), judged by the version matrix "
        "with the pool's driver; default: the pool's own profile.",
    )
    accelerators_per_replica: int = Field(default=1, ge=1, description="Accelerators each replica requests.")
    cpu: str = Field(default="4", pattern=r"^[0-9]+m?$", description="CPU request per replica.")
    memory: str = Field(default="16Gi", pattern=r"^[0-9]+(Mi|Gi)$", description="Memory request and limit.")
    autoscaling: Autoscaling = Field(description="Replica bounds and target.")


class MetricsSource(StrEnum):
    cloudwatch = "cloudwatch"
    prometheus = "prometheus"


class RolloutGates(Model):
    """What must hold for the canary over the gate window before its weight grows."""

    window: Duration = Field(default="10m", description="Window the gates read (ending now).")
    min_requests: int = Field(
        default=200, ge=1, description="Fewest canary requests in the window for a verdict; fewer: hold."
    )
    max_error_rate: float = Field(
        default=0.01, ge=0, le=1, description="Largest share of the canary's requests answered 5xx (0.01 = 1%)."
    )
    max_p99_ratio: float = Field(
        default=1.25, gt=0, description="Largest canary p99 latency as a multiple of the baseline's p99."
    )
    max_p99_seconds: float = Field(default=2.0, gt=0, description="Largest canary p99 latency, seconds.")


class PrometheusMetrics(Model):
    """Where the model servers' request histogram is (the PodMonitor labels it per service and backend)."""

    histogram: str = Field(
        default="http_request_duration_seconds",
        pattern=r"^[a-zA-Z_:][a-zA-Z0-9_:]*$",
        description="Request-duration histogram the servers expose (its _bucket and _count series are read).",
    )
    status_label: str = Field(
        default="code", pattern=r"^[a-zA-Z_][a-zA-Z0-9_]*$", description="Label holding the HTTP status code."
    )


class Rollout(Model):
    """Progressive delivery from the baseline backend to the canary, step by step, gated on live metrics."""

    baseline: Name = Field(description="The backend serving today; latency is judged relative to it.")
    canary: Name | None = Field(
        default=None, description="The backend whose weight the steps grow; default: the only other backend."
    )
    steps: list[int] = Field(
        min_length=1, description="Canary weights, %, strictly increasing and ending at 100, e.g. [5, 25, 50, 100]."
    )
    bake: Duration = Field(default="15m", description="Least time a step runs before the next one.")
    gates: RolloutGates = Field(default_factory=RolloutGates, description="What must hold to advance.")
    metrics: MetricsSource = Field(
        description="cloudwatch (AWS: the ALB's per-target-group metrics) or prometheus (the cluster's "
        "Prometheus, the request histogram per backend)."
    )
    prometheus: PrometheusMetrics = Field(
        default_factory=PrometheusMetrics, description="The histogram read when metrics is prometheus."
    )
    since: Timestamp | None = Field(
        default=None, description="When the current weights were written (`accelplane rollout` writes it)."
    )

    @field_validator("steps")
    @classmethod
    def _steps(cls, value: list[int]) -> list[int]:
        if any(step < 1 or step > 100 for step in value):
            raise ValueError("expected weights between 1 and 100")
        if any(b <= a for a, b in pairwise(value)):
            raise ValueError("expected strictly increasing weights")
        if value[-1] != 100:
            raise ValueError("expected the last step to be 100 (the canary takes all traffic)")
        return value


class InferenceService(Model):
    """A served model. Either one backend written inline (node_pool, image, ...) or `backends` with weights."""

    name: Name
    workload: Name = Field(description="Inference workload whose IAM role and service account the pods use.")
    port: int = Field(default=8000, ge=1, le=65535, description="Container port; the endpoint's target_port.")
    expose: bool = Field(default=True, description="Route the endpoint's requests to the service.")
    path_prefix: str = Field(
        default="/",
        pattern=r"^/([A-Za-z0-9._~-]+/)*$",
        description="Request paths the endpoint sends to this service, e.g. /chat/; '/' is the default route. "
        "Exposed services need distinct prefixes.",
    )
    node_pool: Name | None = Field(default=None, description="One backend: the inference node pool it runs on.")
    image: ImageDigest | None = Field(default=None, description="One backend: its image.")
    accelerators_per_replica: int = Field(default=1, ge=1, description="One backend: accelerators per replica.")
    cpu: str = Field(default="4", pattern=r"^[0-9]+m?$", description="One backend: CPU request per replica.")
    memory: str = Field(default="16Gi", pattern=r"^[0-9]+(Mi|Gi)$", description="One backend: memory per replica.")
    autoscaling: Autoscaling | None = Field(default=None, description="One backend: replica bounds and target.")
    backends: list[Backend] | None = Field(
        default=None, min_length=1, description="Backends sharing the service's traffic by weight."
    )
    rollout: Rollout | None = Field(default=None, description="How traffic moves from the baseline to the canary.")

    _INLINE: ClassVar[tuple[str, ...]] = (
        "node_pool", "image", "accelerators_per_replica", "cpu", "memory", "autoscaling",
    )

    @model_validator(mode="after")
    def _one_form(self) -> InferenceService:
        inline = [field for field in self._INLINE if field in self.model_fields_set]
        if self.backends is not None:
            if inline:
                raise ValueError(f"declare either backends or one inline backend, not both ({', '.join(inline)})")
            names = [backend.name for backend in self.backends]
            duplicates = sorted({n for n in names if names.count(n) > 1})
            if duplicates:
                raise ValueError(f"backend names must be unique: {', '.join(duplicates)}")
            total = sum(backend.weight for backend in self.backends)
            if total != 100:
                raise ValueError(f"expected the backends' weights to sum to 100, got {total}")
        else:
            missing = [f for f in ("node_pool", "image", "autoscaling") if getattr(self, f) is None]
            if missing:
                raise ValueError(
                    f"expected backends, or node_pool, image and autoscaling (missing: {', '.join(missing)})"
                )
            if self.rollout is not None:
                raise ValueError("a rollout needs backends: declare the baseline and the canary under backends")
        return self

    @property
    def serving_backends(self) -> tuple[Backend, ...]:
        """The backends, the inline form as one backend named after the service at weight 100."""
        if self.backends is not None:
            return tuple(self.backends)
        assert self.node_pool is not None and self.image is not None and self.autoscaling is not None
        return (
            Backend(
                name=self.name,
                node_pool=self.node_pool,
                image=self.image,
                weight=100,
                accelerators_per_replica=self.accelerators_per_replica,
                cpu=self.cpu,
                memory=self.memory,
                autoscaling=self.autoscaling,
            ),
        )

    def object_name(self, backend: Backend) -> str:
        """Kubernetes name of a backend's Deployment, Service, HPA and PDB; the inline backend keeps the
        service's own name, so a service that gains backends later does not rename what runs today."""
        return self.name if backend.name == self.name else f"{self.name}-{backend.name}"

    @property
    def canary(self) -> str | None:
        """The backend the rollout's steps move traffic to."""
        if self.rollout is None:
            return None
        if self.rollout.canary is not None:
            return self.rollout.canary
        others = [b.name for b in self.serving_backends if b.name != self.rollout.baseline]
        return others[0] if len(others) == 1 else None


class TrainingTemplate(Model):
    node_pool: Name = Field(description="Training node pool the job runs on.")
    workload: Name = Field(description="Training workload (service account, checkpoint prefix).")
    image: ImageDigest
    nodes: int | None = Field(default=None, ge=1, description="Nodes per job (default: the pool's max).")
    command: list[str] = Field(
        default_factory=lambda: ["torchrun", "train.py"], min_length=1, description="Entrypoint of each worker."
    )
    max_restarts: int = Field(default=3, ge=0, le=100, description="JobSet restarts, each resuming from a checkpoint.")


class Team(Model):
    name: Name
    namespace: Name = Field(description="Namespace whose LocalQueue feeds the team's ClusterQueue.")
    quotas: dict[Name, int] = Field(min_length=1, description="Nominal accelerators per node pool (flavor).")
    borrowing_limit: int = Field(default=0, ge=0, description="Accelerators per flavor the team may borrow.")


class KubernetesLayer(Model):
    addons_profile: Name = Field(description="Software profile holding the cluster add-on chart versions.")
    inference_services: list[InferenceService] = Field(default_factory=list, description="Inference services.")
    training_templates: list[TrainingTemplate] = Field(default_factory=list, description="Job templates per pool.")
    teams: list[Team] = Field(default_factory=list, description="Kueue teams: quotas per flavor, borrowing.")


class AirGap(Model):
    """An air-gapped stack: every artifact comes from one mirror that `accelplane bundle fetch` built
    (docs/bundle.md). The stack's other sources stay its upstream ones, which `bundle lock` reads on
    the connected side; the nodes and the Kubernetes layer get only the mirror named here
    (accelplane.nodes.air_gap, accelplane.k8s.mirror), and `accelplane check` (AP-AIR-001) flags any
    effective artifact source that is not in it."""

    mirror_url: str = Field(
        pattern=r"^(https?|file):\S+[^/]$",
        description="Base URL of the mirror as the nodes reach it (no trailing '/'): apt repository at <url>/apt, "
        "Python index at <url>/python/simple/, installers at <url>/files/, charts at <url>/charts.",
    )
    registry: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9.-]+(:[0-9]+)?(/[a-z0-9._-]+)*$",
        description="Registry (host[:port][/prefix]) the locked images are synced to; images by digest must name it.",
    )
    signed_by: str | None = Field(
        default=None,
        validate_default=True,
        pattern=r"^/\S+$",
        description="Keyring file on the nodes that signs the mirror's apt Release (`bundle fetch --sign-with`); "
        "may be omitted only for a file: mirror_url, which is then trusted.",
    )

    @field_validator("signed_by")
    @classmethod
    def _signed(cls, value: str | None, info: ValidationInfo) -> str | None:
        # Same rule as AptRepository: only a local file: repository may go unsigned. Reported on
        # this field (validate_default) so the error names `air_gap.signed_by` and its line.
        mirror_url = info.data.get("mirror_url")
        if value is None and isinstance(mirror_url, str) and not mirror_url.startswith("file:"):
            raise ValueError("declare the keyring on the nodes that signs the mirror's apt Release "
                             "(only a file: mirror_url may omit it)")
        return value


class GcpSettings(Model):
    """What only Google Cloud needs: the project and zones, and how the GKE version is pinned."""

    project: str = Field(pattern=r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$", description="Google Cloud project id.")
    zones: list[str] = Field(min_length=1, description="Zones of the region the nodes run in (default node locations).")
    gke_version: str | None = Field(
        default=None,
        pattern=r"^1\.\d{2}\.\d+-gke\.\d+$",
        description="Exact GKE version of the control plane and nodes, e.g. 1.33.5-gke.1162000 "
        "(required unless a release channel is declared).",
    )
    release_channel: ReleaseChannel | None = Field(
        default=None, description="Let GKE upgrade within this channel instead of pinning gke_version."
    )


class Platform(Model):
    """Everything one stack declares, under `accelplane:platform`."""

    cloud: Cloud = Field(default=Cloud.aws, description="aws (EKS) or gcp (GKE); default aws.")
    name: Name = Field(description="Platform name, the prefix of every resource name.")
    environment: Environment = Field(description="dev, staging or prod.")
    region: str = Field(
        pattern=r"^[a-z]{2,}(-[a-z]+)+-?\d+$", description="Cloud region, e.g. us-east-1 (AWS) or us-east5 (GCP)."
    )
    gcp: GcpSettings | None = Field(default=None, description="Google Cloud settings (cloud: gcp only).")
    kubernetes_version: str = Field(
        pattern=r"^1\.\d{2}$", description='Kubernetes minor version of the cluster and nodes, e.g. "1.33".'
    )
    tags: Tags = Field(description="Tags applied to every taggable resource.")
    network: Network = Field(description="VPC and who may reach the cluster API.")
    software_profiles: dict[Name, SoftwareProfile] = Field(
        min_length=1, description="Named, pinned version sets referenced by node pools."
    )
    node_pools: list[NodePool] = Field(min_length=1, description="Managed node groups (GKE node pools).")
    buckets: list[Bucket] = Field(default_factory=list, description="Storage buckets by role (S3 or GCS).")
    inference_endpoint: InferenceEndpoint | None = Field(default=None, description="Public HTTPS inference endpoint.")
    secrets: list[Secret] = Field(
        default_factory=list, description="Secrets Manager or Secret Manager secrets (values never here)."
    )
    workloads: list[Workload] = Field(default_factory=list, description="Workloads and what each may touch.")
    waivers: list[Waiver] = Field(default_factory=list, description="Accepted policy findings, with expiry.")
    kubernetes: KubernetesLayer | None = Field(
        default=None, description="The Kubernetes layer: add-ons, inference services, training templates, queues."
    )
    cluster_log_types: list[str] = Field(
        default_factory=lambda: ["api", "audit", "authenticator", "controllerManager", "scheduler"],
        description="AWS: EKS control-plane log types sent to CloudWatch.",
    )
    log_retention_days: int = Field(default=90, ge=1, description="AWS: CloudWatch retention of control-plane logs.")
    bare_metal: BareMetal | None = Field(
        default=None, description="Bare-metal accelerator host groups run with Ansible (`accelplane nodes`)."
    )
    air_gap: AirGap | None = Field(
        default=None,
        description="Air-gapped: the one mirror every artifact comes from (`accelplane bundle`); check flags others.",
    )

    @property
    def resource_tags(self) -> dict[str, str]:
        return {
            "accelplane:platform": self.name,
            "accelplane:environment": self.environment.value,
            "owner": self.tags.owner,
            "cost-centre": self.tags.cost_centre,
            **self.tags.extra,
        }

    @property
    def resource_labels(self) -> dict[str, str]:
        """The same facts as `resource_tags` as Google Cloud labels (lower-case keys without ':')."""
        return {key.replace(":", "-"): value for key, value in self.resource_tags.items()}

    def secret_readers(self, secret: str) -> list[Workload]:
        return [workload for workload in self.workloads if secret in workload.secrets]

    def pool_profile(self, pool: NodePool) -> SoftwareProfile | None:
        return self.software_profiles.get(pool.software_profile) if pool.software_profile else None
