"""plugins/strategy/accelplane_linear.py, _CompiledTemplates: Jinja code compiled once per template
text and kept, without changing what any template renders.

Ansible gives every templating call a new Jinja environment, so the cache is shared between
environments: these tests template through separate TemplateEngines, as separate tasks do, and
count Jinja's code generations. The patch is process-wide; each test restores Ansible's methods.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import jinja2
import pytest
from ansible._internal._datatag._tags import TrustedAsTemplate
from ansible._internal._templating._engine import TemplateEngine
from ansible._internal._templating._jinja_bits import AnsibleEnvironment
from ansible.errors import AnsibleError
from ansible.parsing.dataloader import DataLoader

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def compiled(monkeypatch):
    """A fresh cache installed on Ansible's environment class, and Jinja's code generations."""
    spec = importlib.util.spec_from_file_location(
        "accelplane_linear_under_test", ROOT / "plugins" / "strategy" / "accelplane_linear.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(AnsibleEnvironment, "compile", AnsibleEnvironment.compile)
    monkeypatch.setattr(AnsibleEnvironment, "compile_expression", AnsibleEnvironment.compile_expression)
    generated = []
    generate = jinja2.Environment._generate

    def counted(env, source, *args, **kwargs):
        generated.append(source)
        return generate(env, source, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "_generate", counted)
    cache = module._CompiledTemplates()
    cache.install()
    return cache, generated


def _render(template: str, **variables):
    return TemplateEngine(loader=DataLoader(), variables=variables).template(TrustedAsTemplate().tag(template))


def test_a_template_text_is_compiled_once_for_every_engine_and_renders_each_ones_variables(compiled):
    _, generated = compiled
    template = "{{ name | upper }}-{{ index * 2 }}"
    assert [_render(template, name=name, index=index) for name, index in (("a", 1), ("b", 2), ("c", 3))] == [
        "A-2",
        "B-4",
        "C-6",
    ]
    assert len(generated) == 1


def test_a_jinja2_header_changes_the_delimiters_and_is_not_served_the_plain_texts_code(compiled):
    _, generated = compiled
    body = "[[ x ]] {{ x }}"
    header = "#jinja2:variable_start_string:'[[', variable_end_string:']]'\n"
    # The header is stripped before Jinja compiles: both compile the same text with other lexers.
    assert _render(body, x=1) == "[[ x ]] 1"
    assert _render(header + body, x=1) == "1 {{ x }}"
    assert _render(body, x=2) == "[[ x ]] 2"
    assert len(generated) == 2  # the plain text once, the text under its header once


def test_a_condition_is_compiled_once_and_judged_on_each_engines_variables(compiled):
    _, generated = compiled
    condition = TrustedAsTemplate().tag("index | int > 1")
    verdicts = [
        TemplateEngine(loader=DataLoader(), variables={"index": index}).evaluate_conditional(condition)
        for index in (0, 2, 5)
    ]
    assert verdicts == [False, True, True]
    assert len(generated) == 1


def test_a_template_that_does_not_compile_fails_every_time_and_is_not_kept(compiled):
    cache, _ = compiled
    for _ in range(2):
        with pytest.raises(AnsibleError, match=r"(?i)syntax"):
            _render("{{ x | }}", x=1)
    assert not [key for key in cache._code if key[1] == "{{ x | }}"]
