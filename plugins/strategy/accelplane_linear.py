"""Ansible's linear strategy with less controller work per task and host.

Ansible forks one worker process per task and host. On a fleet run the fork, the copy-on-write
faults of a large controller process on both sides of it, and each new worker repeating work its
parent already did (loading plugins, compiling templates) cost more controller CPU than the
node's own work on many tasks (bench/bench_nodes.py measures it). This strategy keeps Ansible's
linear order, results and callbacks; what it changes:

- No fork where none is needed. Controller-only actions (`set_fact`, `assert`, `debug`, `fail`,
  the includes, the argument-spec check) and any task whose `when` is false (its result is only
  "skipped") run in the controller's main thread. A task that reaches its host runs in a thread
  of the controller, at most `forks` at once: the thread spends its time waiting on the host, as
  a worker does. Either way Ansible's own TaskExecutor runs the task, on a copy of it (the
  executor templates the task in place, as a worker does in its forked copy) and of the
  variables, and the result travels through Ansible's result queue as a worker's does, so
  callbacks, `register`, facts, blocks and handlers see what they would see otherwise. A `when`
  that holds is judged twice (in the main thread, then by the task's run): a condition with side
  effects would run them twice.
- Still forked, as Ansible does: a task with a `timeout` (the executor's alarm is a signal, and
  only the main thread receives signals), a throttled task (the worker slots enforce
  `throttle`) and `pause` (it prompts through its worker). Before a worker is forked the filter,
  test and action plugins are loaded in the controller, so that every worker inherits them, and
  the controller's objects are frozen for the fork (gc.freeze), so that the worker's garbage
  collector does not touch them. Plugin loading is made safe for threads
  (_load_plugins_one_at_a_time).
- Jinja compiles a template to Python code again each time Ansible templates it (about a fifth
  of the controller's CPU). Here the code is compiled once per template text and kept
  (_CompiledTemplates). Likewise each module and module_utils source is parsed once per run
  (_parse_module_sources_once), not once for every module payload that imports it.

Ctrl-C: a task running in a thread is not killed the way a worker is; its command on the host
gets the signal with the rest of the process group, and the run ends when the threads return.

`accelplane nodes` selects it (ANSIBLE_STRATEGY, accelplane/nodes/runner.py); a plain
ansible-playbook run uses Ansible's linear strategy unless ANSIBLE_STRATEGY=accelplane_linear.
ansible-core 2.19 warns that strategy plugins outside ansible.builtin are deprecated; the pinned
ansible-core runs it, and tests/ansible/test_strategy.py compares it with linear on every change.
"""

from __future__ import annotations

import gc
import threading
import typing as t
from concurrent.futures import ThreadPoolExecutor

from ansible._internal import _task
from ansible._internal._datatag._tags import Origin
from ansible._internal._errors import _error_utils
from ansible._internal._templating import _jinja_bits
from ansible.errors import AnsibleError
from ansible.executor import module_common
from ansible.executor.task_executor import TaskExecutor
from ansible.executor.task_result import _RawTaskResult
from ansible.inventory.host import Host
from ansible.playbook.task import Task
from ansible.plugins import loader as plugin_loader
from ansible.plugins.strategy.linear import StrategyModule as LinearStrategyModule
from ansible.utils.fqcn import add_internal_fqcns
from jinja2.environment import TemplateExpression

# Actions whose whole work is on the controller: their action plugins never open a connection.
CONTROLLER_ACTIONS = frozenset(
    add_internal_fqcns(
        ("set_fact", "assert", "debug", "fail", "include_tasks", "include_role", "validate_argument_spec")
    )
)


def _load_plugins_one_at_a_time() -> None:
    """Make plugin loading safe for threads. Ansible's plugin loader puts a plugin's module in
    sys.modules before it runs the module's code, and returns what it finds there: a second
    thread loading the same plugin would get a module still half-run (no ActionModule yet). One
    lock for the process (re-entrant: a plugin's code may load another) closes that window."""
    if getattr(plugin_loader.PluginLoader._load_module_source, "_one_at_a_time", False):
        return
    load = plugin_loader.PluginLoader._load_module_source
    lock = threading.RLock()

    def load_one_at_a_time(self, *, python_module_name: str, path: str):
        with lock:
            return load(self, python_module_name=python_module_name, path=path)

    load_one_at_a_time._one_at_a_time = True  # type: ignore[attr-defined]
    setattr(plugin_loader.PluginLoader, "_load_module_source", load_one_at_a_time)  # noqa: B010


def _parse_module_sources_once() -> None:
    """Parse each module and module_utils source once per run. Ansible builds a module's payload
    (AnsiballZ) once per run and module, and finds the module_utils it needs by parsing every
    source it imports, so the same module_utils (basic.py and its ~40 imports) are parsed again
    for every module a run uses: about 5 CPU-seconds per run. The tree depends only on the source
    and the name it is compiled under (its file name comes from the source's origin), and the
    finder only reads it."""
    if getattr(module_common._compile_module_ast, "_once", False):
        return
    parse = module_common._compile_module_ast
    trees: dict[tuple, t.Any] = {}

    def parse_once(module_name: str, source_code: str | bytes):
        origin = Origin.get_tag(source_code)
        plain = str(source_code) if isinstance(source_code, str) else bytes(source_code)  # (without its tags)
        key = (module_name, origin.path if origin else None, plain)
        tree = trees.get(key)
        if tree is None:
            tree = trees[key] = parse(module_name, source_code)
        return tree

    parse_once._once = True  # type: ignore[attr-defined]
    setattr(module_common, "_compile_module_ast", parse_once)  # noqa: B010


def _load_jinja_plugins() -> None:
    """Load the Jinja filters and tests in this process. Each loader keeps them until a role adds a
    plugin directory of its kind (node_validation's filter_plugins), which clears its cache: checked
    before every fork, loaded again when cleared."""
    for loader in (plugin_loader.filter_loader, plugin_loader.test_loader):
        if not loader._cached_non_collection_wrappers:
            for _ in loader.all():
                pass


class _CompiledTemplates:
    """The Python code Jinja compiles from a template text, kept for the life of the process.

    Ansible gives every templating call a new Jinja environment, and Jinja caches compiled code
    only per environment and only for templates loaded by name, so the same text is parsed,
    generated and compiled again for every task and host. The code depends on the text and on
    what the environment's compiler reads: the lexer settings (a template's `#jinja2:` header
    overrides them), `escape_backslashes` during Ansible's compile, and whether a filter or test
    existed when it was compiled (a role's plugins can appear later), so all of these are in the
    key. Errors are not kept: a template that fails to compile fails again, as it would. The
    environment is bound when the code is turned into a template (Jinja's `from_code`), as Jinja
    does for its own cache.
    """

    def __init__(self) -> None:
        self._code: dict[tuple, t.Any] = {}
        self._local = threading.local()  # .capture: code compiled from an expression's parsed nodes
        self.installed = False

    def install(self) -> None:
        if self.installed or _jinja_bits.AnsibleEnvironment._debuggable_template_source:
            return  # (template debugging writes each compile's source to a file: left alone)
        compile_code = _jinja_bits.AnsibleEnvironment.compile
        compile_expression = _jinja_bits.AnsibleEnvironment.compile_expression

        def compiled(env, source, name=None, filename=None, raw=False, defer_init=False):
            if raw or not isinstance(source, str):
                code = compile_code(env, source, name, filename, raw, defer_init)
                if not raw and (captured := getattr(self._local, "capture", None)) is not None:
                    captured.append(code)
                return code
            key = ("template", str(source), name, filename, defer_init, *self._settings(env))
            code = self._code.get(key)
            if code is None:
                code = self._code[key] = compile_code(env, source, name, filename, raw, defer_init)
            return code

        def compiled_expression(env, source, undefined_to_none=True):
            key = ("expression", str(source), undefined_to_none, *self._settings(env))
            code = self._code.get(key)
            if code is not None:
                template = env.template_class.from_code(env, code, env.make_globals(None), None)
                return TemplateExpression(template, undefined_to_none)
            self._local.capture = captured = []
            try:
                expression = compile_expression(env, source, undefined_to_none)
            finally:
                self._local.capture = None
            if len(captured) == 1:
                self._code[key] = captured[0]
            return expression

        # (Jinja's overloaded signatures make a plain assignment a type error; the calls match.)
        setattr(_jinja_bits.AnsibleEnvironment, "compile", compiled)  # noqa: B010
        setattr(_jinja_bits.AnsibleEnvironment, "compile_expression", compiled_expression)  # noqa: B010
        self.installed = True

    @staticmethod
    def _settings(env: t.Any) -> tuple:
        compile_context = _jinja_bits._TemplateCompileContext.current(optional=True)
        return (
            type(env),
            tuple(getattr(env, name) for name in _jinja_bits._TEMPLATE_OVERRIDE_FIELD_NAMES),
            env.optimized,
            env.autoescape,
            bool(compile_context and compile_context.escape_backslashes),
            # a role's filter_plugins or test_plugins directory, added while the play runs
            len(plugin_loader.filter_loader._extra_dirs),
            len(plugin_loader.test_loader._extra_dirs),
        )


_COMPILED = _CompiledTemplates()


# Tasks that need a process of their own: `pause` prompts through its worker's queue
# (Display.prompt_until reads the worker's id).
FORKED_ACTIONS = frozenset(add_internal_fqcns(("pause",)))


def _runs_in_thread(task: t.Any) -> bool:
    """Whether a task that reaches the node can run in a thread of the controller: not one with
    a `timeout` (the executor's alarm is a signal, and signals reach only the main thread), nor a
    throttled one (the worker slots enforce `throttle`), nor one that prompts."""
    return not task.timeout and not task.throttle and task.action not in FORKED_ACTIONS


class StrategyModule(LinearStrategyModule):
    _action_plugins_loaded = False

    def __init__(self, tqm) -> None:
        super().__init__(tqm)
        _COMPILED.install()
        _load_plugins_one_at_a_time()
        _parse_module_sources_once()
        self._threads: ThreadPoolExecutor | None = None

    def _queue_task(self, host, task, task_vars, play_context):
        looped = bool(task.loop or task.loop_with)  # a loop's `when` is judged per item, in the worker
        if not looped and task.action in CONTROLLER_ACTIONS:
            return self._run_on_controller(host, task, task_vars, play_context, skip_only=False)
        # Any other task with a false `when` is only a skipped result: judged here, no fork. The
        # executor stops at the condition when it holds, and the task goes on as usual.
        if not looped and task.when and self._run_on_controller(host, task, task_vars, play_context, skip_only=True):
            return None
        # Loaded here, the plugins are shared by the threads and inherited by the workers.
        _load_jinja_plugins()
        if not self._action_plugins_loaded:
            # Ansible's own action plugins (no role here brings its own); imported once.
            for _ in plugin_loader.action_loader.all(class_only=True):
                pass
            self._action_plugins_loaded = True
        if _runs_in_thread(task):
            return self._run_in_thread(host, task, task_vars, play_context)
        # Frozen, the objects the worker inherits are left alone by its garbage collector, which
        # would otherwise walk them all and so copy every page they lie on (copy-on-write).
        gc.freeze()
        try:
            return super()._queue_task(host, task, task_vars, play_context)
        finally:
            gc.unfreeze()

    def _execute(self, host: Host, own_task: t.Any, task_vars: dict, play_context: t.Any) -> dict:
        """What a worker does for one task and host (WorkerProcess._run), in this process, on the
        caller's own copy of the task. The executor also changes the variables it is given (magic
        variables added) and the play context (a copy per task): a worker changes only its own."""
        try:
            with _task.TaskContext(own_task):
                return TaskExecutor(
                    host,
                    own_task,
                    dict(task_vars),
                    play_context,
                    self._loader,
                    plugin_loader.get_plugin_loader_namespace(),
                    self._final_q,
                    self._variable_manager,
                ).run()
        except Exception as error:  # a worker reports what escapes the executor as the task's failure
            return _error_utils.result_dict_from_exception(error)

    def _started(self, host: Host, task: t.Any, task_vars: dict, play_context: t.Any) -> None:
        """The bookkeeping of a task queued to a worker: the result handler finds the task's
        context here, the callbacks hear it started, and one more result is awaited."""
        self._queued_task_cache[(host.name, task._uuid)] = {
            "host": host,
            "task": task,
            "task_vars": task_vars,
            "play_context": play_context,
        }
        self._tqm.send_callback("v2_runner_on_start", host, task)
        self._pending_results += 1

    def _send_result(self, host: Host, own_task: t.Any, result: dict, task_fields: dict | None = None) -> None:
        # Through the result queue, as from a worker: the result is serialised on the way, so
        # nothing it holds is shared with the variables it was computed from.
        fields = own_task.dump_attrs() if task_fields is None else task_fields
        self._final_q.send_task_result(
            _RawTaskResult(host=Host(host.name), task=own_task, return_data=result, task_fields=fields)
        )

    def _run_on_controller(
        self, host: Host, task: t.Any, task_vars: dict, play_context: t.Any, *, skip_only: bool
    ) -> bool:
        """Run one task for one host here and now. With `skip_only`, only a task its condition
        skips runs here; False: the caller queues it as usual."""
        own_task = _own_copy(task)
        if skip_only:
            own_task._resolve_conditional = _StopWhenTrue(own_task._resolve_conditional)
        try:
            result = self._execute(host, own_task, task_vars, play_context)
        except _ConditionHolds:
            return False
        if skip_only and not result.get("skipped"):
            # The condition could not be judged here (an error): the worker reports it as Ansible does.
            return False
        self._started(host, task, task_vars, play_context)
        self._send_result(host, own_task, result)
        return True

    def _run_in_thread(self, host: Host, task: t.Any, task_vars: dict, play_context: t.Any) -> None:
        """Run one task for one host in a thread of this process, where Ansible would fork a
        worker: the thread waits on the node as a worker would, without the fork."""
        if self._threads is None:
            # As many at once as Ansible would run workers (forks).
            self._threads = ThreadPoolExecutor(max_workers=len(self._workers), thread_name_prefix="accelplane-task")
        own_task = _own_copy(task)
        self._started(host, task, task_vars, play_context)

        def run() -> None:
            try:
                result = self._execute(host, own_task, task_vars, play_context)
            except BaseException as error:  # the controller awaits a result whatever happens
                result = _error_utils.result_dict_from_exception(error)
            try:
                self._send_result(host, own_task, result)
            except Exception as error:
                # A result the queue cannot carry: the task's failure instead, as a worker sends it
                # (WorkerProcess._run); a result never sent would leave the play waiting for ever.
                omitted = AnsibleError("Task result omitted due to queue send failure.")
                omitted.__cause__ = error
                # (without the task's fields: they may be what failed to serialise)
                self._send_result(host, own_task, _error_utils.result_dict_from_exception(omitted), task_fields={})

        self._threads.submit(run)

    def cleanup(self) -> None:
        if self._threads is not None:
            self._threads.shutdown(wait=True)
            self._threads = None
        super().cleanup()


def _own_copy(task: t.Any) -> t.Any:
    """A copy of what the executor changes. A task's post_validate templates the task and its
    parent in place (a block only the attributes Ansible always post-validates, such as its
    name), and a parent that is itself a task (an include) does the same for its own parent; a
    block stops there. Those objects are copied (without their task lists); the blocks, includes
    and roles above them are only read, for inherited attributes, and are shared: copying the
    whole chain for every task and host cost about a tenth of the controller's CPU.
    """
    own = task.copy(exclude_parent=True, exclude_tasks=True)
    child, parent = own, task._parent
    while parent is not None:
        own_parent = parent.copy(exclude_parent=True, exclude_tasks=True)
        child._parent = own_parent
        if not isinstance(parent, Task):
            own_parent._parent = parent._parent  # shared from here up
            break
        child, parent = own_parent, parent._parent
    return own


class _ConditionHolds(BaseException):
    """Raised through the executor (which handles Exception) when a probed task's `when` holds."""


class _StopWhenTrue:
    """The task's condition check for a skip-only run: the executor's first check is the task's
    `when`; when it holds, the run stops before anything else is done."""

    def __init__(self, resolve: t.Callable[..., bool]) -> None:
        self._resolve = resolve
        self._first = True

    def __call__(self, *args: t.Any, **kwargs: t.Any) -> bool:
        holds = self._resolve(*args, **kwargs)
        if self._first and holds:
            raise _ConditionHolds
        self._first = False
        return holds
