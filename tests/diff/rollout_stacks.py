"""Stack files for the rollout diff tests: the prod example's platform with this test's own inference
service, so the tests do not depend on how the example stacks declare theirs.

`canary_stack(weights)` serves `serve` from an L40S backend (the baseline) and an Inferentia2 canary;
with a third weight, also from `cuda13`, a backend on the L40S pool whose image is built for CUDA 13.0
(profile `l40s-cuda13`), too new for the pool's R570 driver: its matrix verdict is incompatible. The
L40S pool's profile pins EKS AMI release 1.33.5-20250920 here, whose NVIDIA driver is 570.172.08 (on
EKS the AMI decides the driver).
"""

from __future__ import annotations

from pathlib import Path

IMAGE = "444455556666.dkr.ecr.us-west-2.amazonaws.com/llm-server{suffix}@sha256:{digest}"
CUDA13_PROFILE = """\
      l40s-cuda13:
        description: An LLM server image built for CUDA 13.0 (too new for an R570 driver)
        python: "3.11"
        cuda: "13.0"
        cudnn: "9.13.0.50"
        nccl: "2.27.7"
        nccl_package: nvidia-nccl-cu13
        torch: "2.9.0"
"""
# The L40S profile's AMI release line (the one followed by the Trainium profile) and a 1.33 release
# whose AMI ships the R570 driver 570.172.08 (data/eks_ami.yaml).
L40S_AMI = ('ami_release_version: "1.33.5-20251120"\n        nvidia_device_plugin: "0.18.0"\n'
            '        dcgm_exporter: "4.1.1"\n      trn1-neuron:')
R570_AMI_RELEASE = "1.33.5-20250920"
_BACKENDS = {
    "l40s": ("infer-l40s", "", "1", None, 'cpu: "6"\n              memory: 48Gi', 2, 12),
    "inf2": ("infer-inf2", "-neuron", "2", None, 'cpu: "3"\n              memory: 12Gi', 1, 8),
    "cuda13": ("infer-l40s", "-cu130", "3", "l40s-cuda13", 'cpu: "6"\n              memory: 48Gi', 1, 4),
}


def services_block(weights: dict[str, int]) -> str:
    lines = ["      inference_services:", "        - name: serve", "          workload: serve", "          port: 8080",
             "          backends:"]
    for name, weight in weights.items():
        pool, suffix, digit, profile, resources, low, high = _BACKENDS[name]
        lines += [f"            - name: {name}", f"              node_pool: {pool}",
                  f"              image: {IMAGE.format(suffix=suffix, digest=digit * 64)}",
                  f"              weight: {weight}"]
        if profile:
            lines.append(f"              software_profile: {profile}")
        lines += [f"              {resources}",
                  f"              autoscaling: {{min_replicas: {low}, max_replicas: {high}}}"]
    lines += ["          rollout:", "            baseline: l40s", "            canary: inf2",
              "            steps: [5, 25, 50, 100]", "            metrics: cloudwatch"]
    return "\n".join(lines) + "\n"


def canary_stack(prod: Path, weights: dict[str, int]) -> str:
    """The prod stack file's text with `serve` declared by `weights` and the CUDA 13 profile added."""
    text = prod.read_text()
    start, end = text.index("      inference_services:\n"), text.index("      training_templates:\n")
    text = text[:start] + services_block(weights) + text[end:]
    assert L40S_AMI in text, "the prod stack's L40S profile moved: update L40S_AMI"
    text = text.replace(L40S_AMI, L40S_AMI.replace("1.33.5-20251120", R570_AMI_RELEASE), 1)
    return text.replace("    software_profiles:\n", "    software_profiles:\n" + CUDA13_PROFILE, 1)


def write_canary_stack(stacks: Path, stack: str, weights: dict[str, int]) -> Path:
    path = stacks / f"Pulumi.{stack}.yaml"
    path.write_text(canary_stack(stacks / "Pulumi.prod.yaml", weights))
    return path
