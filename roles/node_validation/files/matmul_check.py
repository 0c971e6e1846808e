"""A matmul on every device the framework sees, checked against a float64 reference on the CPU.

Run with the framework environment's Python: `python matmul_check.py SIZE`. Prints one JSON
object: {"devices": [{"index", "name", "max_rel_error", "seconds"}...], "error": null | str}.
Exit 0 when every device computed the product within tolerance, 1 otherwise. ROCm builds of
PyTorch expose AMD GPUs through the same `torch.cuda` API.
"""

import json
import sys
import time

TOLERANCE = 1e-2  # float32 accumulation over SIZE terms, relative to the largest reference value


def main() -> int:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    result = {"devices": [], "error": None}
    try:
        import torch
    except Exception as error:  # the report names why, whatever it is
        result["error"] = f"cannot import torch: {error}"
        print(json.dumps(result))
        return 1
    if not torch.cuda.is_available():
        result["error"] = "torch sees no GPU (torch.cuda.is_available() is False)"
        print(json.dumps(result))
        return 1
    torch.manual_seed(0)
    a = torch.randn(size, size, dtype=torch.float32)
    b = torch.randn(size, size, dtype=torch.float32)
    reference = a.double() @ b.double()
    scale = reference.abs().max().item()
    ok = True
    for index in range(torch.cuda.device_count()):
        device = torch.device("cuda", index)
        start = time.perf_counter()
        product = a.to(device) @ b.to(device)
        torch.cuda.synchronize(device)
        seconds = time.perf_counter() - start
        error = (product.cpu().double() - reference).abs().max().item() / scale
        ok = ok and error <= TOLERANCE
        result["devices"].append(
            {"index": index, "name": torch.cuda.get_device_name(index), "max_rel_error": error, "seconds": seconds}
        )
    print(json.dumps(result))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
