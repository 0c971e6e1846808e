"""Stand-in for torch_neuronx (torch-neuronx @VERSION@) on lab nodes without Neuron devices.

`trace(func, example_inputs)` "compiles" with the neuronx-cc stand-in and returns a callable that
runs on a NeuronCore: it needs a Neuron device, as the real runtime does (the neuron-ls stand-in
finds one while the driver is installed).
"""

import subprocess

__version__ = "@VERSION@"


def trace(func, example_inputs):
    import neuronxcc  # the compiler the real trace calls

    found = subprocess.run(["/opt/aws/neuron/bin/neuron-ls", "--json-output"], capture_output=True, text=True)
    if found.returncode != 0 or found.stdout.strip() in ("", "[]"):
        raise RuntimeError(f"NeuronCore not available (neuronx-cc {neuronxcc.__version__}): {found.stderr.strip()}")

    def compiled(*inputs):
        return func(*inputs)

    return compiled
