"""Lab nodes only: keep the code objects Python compiles from Ansible's module payloads.

Every Ansible task that runs a module on a node ships the module and `ansible.module_utils` as a zip
(AnsiballZ) that Python imports with zipimport, which never writes bytecode: each module run compiles
`module_utils/basic.py` and its imports again, about 150 ms of the node's CPU per task on the 2-core
machine. The lab's nodes share the controller's two cores, so the whole suite paid that. This hook,
installed by a `.pth` file in the lab nodes' system Python only (never on a user's host, never in the
node-software bench: tests/support/ansible/nodes.py), keys each compiled module by its source's
SHA-256 and keeps it in a directory every lab node shares; what runs is the same code object Python
would have compiled, with the file name it was compiled under replaced by this run's.
"""

import hashlib
import marshal
import os
import zipimport

CACHE = "/var/cache/accelplane-lab-pyc"
_compile_source = zipimport._compile_source  # the one function zipimport compiles source with


def _renamed(code, filename):
    consts = tuple(_renamed(c, filename) if isinstance(c, type(code)) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _cached_compile(pathname, source):
    key = hashlib.sha256(source).hexdigest()
    path = os.path.join(CACHE, key[:2], key)
    try:
        with open(path, "rb") as kept:
            return _renamed(marshal.loads(kept.read()), pathname)
    except (OSError, EOFError, ValueError, TypeError):
        pass
    code = _compile_source(pathname, source)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        scratch = f"{path}.{os.getpid()}"
        with open(scratch, "wb") as out:
            out.write(marshal.dumps(code))
        os.replace(scratch, path)  # atomic: nodes compiling the same module at once never read half a file
    except OSError:
        pass
    return code


if os.path.isdir(CACHE):
    zipimport._compile_source = _cached_compile
