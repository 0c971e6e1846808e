"""`AcceleratorNodePool`: one GKE node pool (TPU slice, GPU or CPU nodes) of the platform's cluster.

A multi-host TPU slice is one node pool: the composition creates one pool per slice, with
`node_count` equal to the slice's VM count and `tpu_topology` from the TPU shape table; GKE then
places the VMs with a `COMPACT` placement policy and treats the slice atomically (scaling means
whole slices). Single-host TPU, GPU and CPU pools scale node by node.

Every pool: the dedicated node service account (never the Compute Engine default one) with the
`cloud-platform` scope (IAM, not scopes, decides; Google's recommendation), `GKE_METADATA` so pods
see only their Workload Identity, shielded VMs with secure boot and integrity monitoring, the
legacy metadata endpoints off, auto-repair on, auto-upgrade off when the version is pinned.

What replaces the pool (all its nodes, and for a slice the whole slice) rather than updating it:
- adding or removing the placement policy (`compact_placement`), the accelerator type or count,
  spot versus on-demand, the reservation, the service account, the metadata: the provider marks
  them ForceNew (terraform-provider-google's node pool and node config schemas; the table
  `accelplane diff` reads, accelplane/clouds/gcp/force_new.json);
- for TPU pools also `tpu_topology` and `machine_type` (a slice's shape is machine type and
  topology together; a single-host TPU pool's shape is its machine type). The provider marks
  neither ForceNew and its update path sends neither, so a topology change would read as an
  in-place update that changes nothing in GKE: the component asks Pulumi to replace on them
  (`replace_on_changes`), so `pulumi preview` and `accelplane diff` show the replacement;
- `machine_type`, `disk_size_gb` and `disk_type` on other pools update in place but recreate
  every node (in-place since terraform-provider-google 5.10, which pulumi-gcp 10.2 builds on;
  hashicorp/terraform-provider-google#16566).
Pools are deleted before their replacement is created: the pool name is fixed, and a reservation
or TPU quota has no room for two copies of a slice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.compute as compute
import pulumi_gcp.container as container
from pulumi_gcp.container import (
    NodePoolAutoscalingArgsDict,
    NodePoolNodeConfigArgsDict,
    NodePoolNodeConfigGuestAcceleratorArgsDict,
    NodePoolNodeConfigReservationAffinityArgsDict,
    NodePoolNodeConfigTaintArgsDict,
    NodePoolPlacementPolicyArgsDict,
    NodePoolUpgradeSettingsArgsDict,
)

from accelplane.clouds.gcp import flex_start, future_reservation
from accelplane.clouds.gcp.future_reservation import FutureReservation

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
RESERVATION_NAME_KEY = "compute.googleapis.com/reservation-name"
# container.v1 NodeTaint.effect and GPUDriverInstallationConfig.gpuDriverVersion values accepted
# here (the tests check them against Google's discovery document).
TAINT_EFFECTS = ("NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE")
GPU_DRIVER_VERSIONS = ("DEFAULT", "LATEST", "INSTALLATION_DISABLED")


@dataclass(frozen=True)
class NodeTaint:
    key: str
    value: str
    effect: str  # NO_SCHEDULE | PREFER_NO_SCHEDULE | NO_EXECUTE

    def __post_init__(self) -> None:
        if self.effect not in TAINT_EFFECTS:
            raise ValueError(f"taint {self.key}: effect {self.effect!r} is not one of {', '.join(TAINT_EFFECTS)}")


@dataclass(frozen=True)
class GpuSpec:
    accelerator_type: str  # e.g. "nvidia-h100-80gb"
    count: int  # GPUs per node
    # How GKE installs the driver: DEFAULT or LATEST (the driver GKE pins for the node version),
    # INSTALLATION_DISABLED (the platform installs it).
    driver_version: str

    def __post_init__(self) -> None:
        if self.driver_version not in GPU_DRIVER_VERSIONS:
            raise ValueError(f"GPU driver version {self.driver_version!r}: one of {', '.join(GPU_DRIVER_VERSIONS)}")
        if self.count < 1:
            raise ValueError(f"GPU count must be at least 1, got {self.count}")


@dataclass(frozen=True)
class Autoscaling:
    # Across all of the pool's zones (GKE's total_*_node_count). For a multi-host TPU slice: 0 or
    # the slice's VM count (GKE scales a slice atomically).
    min_nodes: int
    max_nodes: int

    def __post_init__(self) -> None:
        if not 0 <= self.min_nodes <= self.max_nodes or self.max_nodes < 1:
            raise ValueError(f"autoscaling needs 0 <= min <= max and max >= 1, got {self.min_nodes}..{self.max_nodes}")


@dataclass(frozen=True)
class NodePoolArgs:
    pool_name: str  # the GKE node pool name (at most 40 characters)
    cluster_id: pulumi.Input[str]
    location: str  # the cluster's location
    node_locations: Sequence[str]  # zones
    machine_type: str
    node_service_account_email: pulumi.Input[str]
    # The pinned node version; None lets GKE upgrade the pool (required on a release channel).
    kubernetes_version: str | None
    disk_size_gb: int
    node_labels: Mapping[str, str]  # Kubernetes node labels
    taints: Sequence[NodeTaint]
    labels: Mapping[str, str]  # Google Cloud labels on the node VMs
    node_count: int | None = None  # per zone; for a multi-host TPU slice the slice's VM count
    autoscaling: Autoscaling | None = None
    disk_type: str = "pd-balanced"  # TPU v6e (ct6e) takes hyperdisk-balanced only
    spot: bool = False
    reservation: str | None = None  # a specific reservation's name (or projects/<p>/reservations/<name>)
    tpu_topology: str | None = None  # multi-host TPU slices, e.g. "4x4"
    tpu: bool = False  # a TPU machine type (single-host pools have no tpu_topology)
    compact_placement: bool = False  # implied by tpu_topology
    gpu: GpuSpec | None = None
    flex_start: bool = False  # Dynamic Workload Scheduler flex-start (accelplane/clouds/gcp/flex_start.py)
    queued_provisioning: bool = False  # with flex_start: nodes only for a ProvisioningRequest
    # A calendar-mode future reservation the pool requests and then consumes (its name is `reservation`);
    # the pool is created empty and `accelplane capacity sync` sets its size.
    future_reservation: FutureReservation | None = None

    def __post_init__(self) -> None:
        if (self.node_count is None) == (self.autoscaling is None):
            raise ValueError(f"node pool {self.pool_name}: give exactly one of node_count and autoscaling")
        if self.node_count is not None and self.node_count < 0:
            raise ValueError(f"node pool {self.pool_name}: node_count must not be negative")
        if not self.node_locations:
            raise ValueError(f"node pool {self.pool_name}: at least one zone in node_locations")
        if self.spot and self.reservation:
            raise ValueError(f"node pool {self.pool_name}: spot capacity cannot consume a reservation")
        if self.flex_start and (self.autoscaling is None or self.spot or self.reservation):
            raise ValueError(f"node pool {self.pool_name}: flex-start autoscales on-demand capacity, no reservation")
        if self.queued_provisioning and not self.flex_start:
            raise ValueError(f"node pool {self.pool_name}: queued provisioning is a mode of flex-start")
        if self.gpu is not None and self.tpu_topology is not None:
            raise ValueError(f"node pool {self.pool_name}: GPU and TPU settings exclude each other")
        if self.future_reservation is not None and (self.reservation is None or self.autoscaling is not None
                                                    or list(self.node_locations) != [self.future_reservation.zone]):
            raise ValueError(f"node pool {self.pool_name}: a future reservation's pool consumes it by name, "
                             "in its zone, at a size set outside the program")
        # A compact placement policy places all VMs in one zone.
        if self.placement_is_compact and len(self.node_locations) != 1:
            raise ValueError(f"node pool {self.pool_name}: compact placement needs exactly one zone")

    @property
    def placement_is_compact(self) -> bool:
        return self.compact_placement or self.tpu_topology is not None


class AcceleratorNodePool(pulumi.ComponentResource):
    pool_id: pulumi.Output[str]
    name: pulumi.Output[str]

    def __init__(self, name: str, args: NodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:AcceleratorNodePool", name, None, opts)
        autoscaling: NodePoolAutoscalingArgsDict | None = None
        if args.autoscaling is not None:
            autoscaling = {
                "total_min_node_count": args.autoscaling.min_nodes,
                "total_max_node_count": args.autoscaling.max_nodes,
            }
            if args.flex_start:
                autoscaling["location_policy"] = flex_start.LOCATION_POLICY
        placement: NodePoolPlacementPolicyArgsDict | None = None
        if args.placement_is_compact:
            placement = {"type": "COMPACT"}
            if args.tpu_topology is not None:
                placement["tpu_topology"] = args.tpu_topology
        # A reservation (and a TPU slice) has no spare capacity for a surge node: upgrade by
        # taking one node down at a time instead.
        tight = args.reservation is not None or args.tpu_topology is not None
        if args.future_reservation is not None:
            assert args.reservation is not None  # __post_init__
            self._request(name, args.reservation, args.machine_type, args.future_reservation)
        upgrade: NodePoolUpgradeSettingsArgsDict = {
            "strategy": "SURGE",
            "max_surge": 0 if tight else 1,
            "max_unavailable": 1 if tight else 0,
        }
        # A slice's shape is machine type and topology together: a new one is a new slice. A single-host
        # TPU pool's shape is its machine type (ct5lp-hightpu-8t is 2x4, -4t 2x2): a new one is a new pool
        # of other TPU VMs, not an update (a change of 8t to 4t once read `~ nodeConfig.machineType`,
        # replace: 0, while every node and the chips' attached workloads went).
        replace_on = (["nodeConfig.machineType", "placementPolicy.tpuTopology"] if args.tpu_topology is not None
                      else ["nodeConfig.machineType"] if args.tpu else [])
        ignore: list[str] = []
        if args.autoscaling is not None or args.future_reservation is not None:
            # The autoscaler, or `accelplane capacity sync` following the reservation, owns the live size.
            ignore = ["nodeCount", "initialNodeCount"]
        pool = container.NodePool(
            f"{name}-pool",
            name=args.pool_name,
            cluster=args.cluster_id,
            location=args.location,
            node_locations=list(args.node_locations),
            version=args.kubernetes_version,
            node_count=args.node_count,
            initial_node_count=args.autoscaling.min_nodes if args.autoscaling is not None else None,
            autoscaling=autoscaling,
            # Flex-start nodes are not repaired (GKE's flex-start guide turns auto-repair off).
            management={"auto_repair": not args.flex_start, "auto_upgrade": args.kubernetes_version is None},
            placement_policy=placement,
            upgrade_settings=upgrade,
            node_config=self._node_config(args),
            # GKE's flex-start with queued provisioning: nodes come only for a ProvisioningRequest, all at once.
            queued_provisioning={"enabled": True} if args.queued_provisioning else None,
            opts=pulumi.ResourceOptions(
                parent=self,
                delete_before_replace=True,
                replace_on_changes=replace_on,
                ignore_changes=ignore,
            ),
        )
        self.pool_id = pool.id
        self.name = pool.name
        self.register_outputs({"name": pool.name})

    def _request(self, name: str, reservation: str, machine_type: str, request: FutureReservation) -> None:
        """Request the calendar-mode reservation, once: submitted for Google's review on `pulumi up`."""
        compute.FutureReservation(
            f"{name}-future-reservation",
            name=reservation,
            zone=request.zone,
            reservation_mode=future_reservation.MODE,
            planning_status=future_reservation.SUBMITTED,
            # Google provisions a reservation of this name at the start; only VMs naming it consume it.
            reservation_name=reservation,
            specific_reservation_required=True,
            auto_delete_auto_created_reservations=True,
            specific_sku_properties={"instance_properties": {"machine_type": machine_type},
                                     "total_count": str(request.machines)},
            time_window={"start_time": future_reservation.utc_text(request.start),
                         "end_time": future_reservation.utc_text(request.end)},
            description=request.description(),
            # Requested once: an edit of what was requested (an amendment Google reviews again, or a request
            # in another zone) must never be sent by a later `up`, and an approved request bills for its
            # whole period, so the program never deletes it (docs/capacity.md says how to release it).
            opts=pulumi.ResourceOptions(parent=self, protect=True,
                                        ignore_changes=list(future_reservation.REQUEST_TERMS)),
        )

    @staticmethod
    def _node_config(args: NodePoolArgs) -> NodePoolNodeConfigArgsDict:
        taints: list[NodePoolNodeConfigTaintArgsDict] = [
            {"key": t.key, "value": t.value, "effect": t.effect} for t in args.taints
        ]
        config: NodePoolNodeConfigArgsDict = {
            "machine_type": args.machine_type,
            "disk_size_gb": args.disk_size_gb,
            "disk_type": args.disk_type,
            "service_account": args.node_service_account_email,
            "oauth_scopes": [CLOUD_PLATFORM_SCOPE],
            "workload_metadata_config": {"mode": "GKE_METADATA"},
            "shielded_instance_config": {"enable_secure_boot": True, "enable_integrity_monitoring": True},
            "metadata": {"disable-legacy-endpoints": "true"},
            "labels": dict(args.node_labels),
            "resource_labels": dict(args.labels),
            "taints": taints,
            "spot": args.spot,
        }
        if args.reservation is not None:
            reservation: NodePoolNodeConfigReservationAffinityArgsDict = {
                "consume_reservation_type": "SPECIFIC_RESERVATION",
                "key": RESERVATION_NAME_KEY,
                "values": [args.reservation],
            }
            config["reservation_affinity"] = reservation
        if args.flex_start:
            config["flex_start"] = True
            config["reservation_affinity"] = {"consume_reservation_type": flex_start.NO_RESERVATION}
        if args.gpu is not None:
            accelerator: NodePoolNodeConfigGuestAcceleratorArgsDict = {
                "type": args.gpu.accelerator_type,
                "count": args.gpu.count,
                "gpu_driver_installation_config": {"gpu_driver_version": args.gpu.driver_version},
            }
            config["guest_accelerators"] = [accelerator]
        return config
