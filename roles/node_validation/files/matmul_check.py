"""A matmul on the accelerators through the framework, checked against a float64 reference on the CPU.

Run with the framework environment's Python: `python matmul_check.py DEVICE SIZE`, DEVICE one of
  cuda    NVIDIA and AMD GPUs (ROCm builds of PyTorch expose AMD GPUs through the same torch.cuda
          API): every GPU the process sees, one after the other.
  hpu     Intel Gaudi (habana_frameworks.torch): a process acquires one Gaudi, so the product runs
          on the device this process got; hl-smi counts them all.
  npu     Huawei Ascend (torch_npu): every NPU the process sees, one after the other, in CANN's
          environment: a process started without it runs again under Huawei's set_env.sh
          (ASCEND_SET_ENV, default the toolkit's), as the CANN guide has users `source` it.
  neuron  AWS Neuron (torch_neuronx): the matmul compiled by neuronx-cc (torch_neuronx.trace) and
          run on a NeuronCore.
Prints one JSON object: {"devices": [{"index", "name", "max_rel_error", "seconds"}...], "error":
null | str}. Exit 0 when every device computed the product within tolerance, 1 otherwise.
"""

import json
import os
import sys
import time

TOLERANCE = 1e-2  # float32 accumulation over SIZE terms, relative to the largest reference value


def _each_device(torch, a, b, backend, what):
    """The product on every device of torch.<backend> (torch.cuda, torch.npu), one after the other."""
    api = getattr(torch, backend)
    if not api.is_available():
        raise RuntimeError(f"torch sees no {what} (torch.{backend}.is_available() is False)")
    for index in range(api.device_count()):
        device = torch.device(backend, index)
        start = time.perf_counter()
        product = a.to(device) @ b.to(device)
        api.synchronize(device)
        yield index, api.get_device_name(index), product.cpu(), time.perf_counter() - start


def _cuda(torch, a, b):
    yield from _each_device(torch, a, b, "cuda", "GPU")


def _hpu(torch, a, b):
    import habana_frameworks.torch.core as htcore

    if not torch.hpu.is_available():
        raise RuntimeError("torch sees no Gaudi (torch.hpu.is_available() is False)")
    start = time.perf_counter()
    product = a.to("hpu") @ b.to("hpu")
    htcore.mark_step()  # lazy mode: the graph runs here
    torch.hpu.synchronize()
    yield 0, torch.hpu.get_device_name(), product.cpu(), time.perf_counter() - start


def _npu(torch, a, b):
    import torch_npu  # noqa: F401 - registers torch.npu

    yield from _each_device(torch, a, b, "npu", "NPU")


def _neuron(torch, a, b):
    import torch_neuronx

    def matmul(x, y):
        return x @ y

    start = time.perf_counter()
    compiled = torch_neuronx.trace(matmul, (a, b))  # neuronx-cc compiles it for the NeuronCore
    product = compiled(a, b)
    yield 0, "NeuronCore 0", product, time.perf_counter() - start


DEVICES = {"cuda": _cuda, "hpu": _hpu, "npu": _npu, "neuron": _neuron}


def _cann_environment() -> None:
    """Run again under CANN's set_env.sh unless its environment is set (ASCEND_HOME_PATH) or this
    process is that second run."""
    set_env = os.environ.get("ASCEND_SET_ENV", "/usr/local/Ascend/ascend-toolkit/set_env.sh")
    if "ASCEND_HOME_PATH" in os.environ or "ACCELPLANE_CANN_ENV" in os.environ or not os.path.isfile(set_env):
        return
    os.environ["ACCELPLANE_CANN_ENV"] = set_env
    script = '. "$1" >/dev/null 2>&1; shift; exec "$@"'
    os.execv("/bin/sh", ["sh", "-c", script, "sh", set_env, sys.executable, *sys.argv])


def main() -> int:
    kind = sys.argv[1] if len(sys.argv) > 1 else ""
    if kind == "npu":
        _cann_environment()
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    result = {"devices": [], "error": None}
    if kind not in DEVICES:
        result["error"] = f"unknown device {kind!r}; expected one of {', '.join(DEVICES)}"
        print(json.dumps(result))
        return 1
    try:
        import torch

        torch.manual_seed(0)
        a = torch.randn(size, size, dtype=torch.float32)
        b = torch.randn(size, size, dtype=torch.float32)
        reference = a.double() @ b.double()
        scale = reference.abs().max().item()
        ok = True
        for index, name, product, seconds in DEVICES[kind](torch, a, b):
            error = (product.double() - reference).abs().max().item() / scale
            ok = ok and error <= TOLERANCE
            result["devices"].append({"index": index, "name": name, "max_rel_error": error, "seconds": seconds})
    except Exception as error:  # the report names why, whatever it is
        result["error"] = f"{kind} matmul failed: {type(error).__name__}: {error}"
        print(json.dumps(result))
        return 1
    print(json.dumps(result))
    return 0 if ok and result["devices"] else 1


if __name__ == "__main__":
    sys.exit(main())
