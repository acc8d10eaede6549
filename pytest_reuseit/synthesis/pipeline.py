"""``reuseit synthesize``: a guarded workflow from an agent's successful and failed runs.

The stages follow ReUseIt §4.1: (1) variations of the task (C.1), (2) exploration runs of every
task of the family, (3) a judgement of each run, (4) the structure learnt from the successful
runs, (5) condition checks from the failed runs (C.2) and fallbacks from the successful ones
(C.3), merged into the structure (C.4), (6) compiled ``do:`` ops where the successful runs agree,
(7) a validated ``*.reuseit.yaml`` and one verification run per variation. Every stage's output
is stored under ``.reuseit/runs/<id>/`` so a second call resumes instead of starting over.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from ..browser.observe import data_url
from ..browser.session import BrowserConfig
from ..engine.result import ModelUsage
from ..errors import ReuseitError
from ..llm.client import LlmClient
from ..llm.schemas import (
    ConditionChecks,
    FallbackActions,
    GuardedStep,
    GuardedWorkflow,
    RunJudgement,
    TaskVariations,
    WorkflowStructure,
)
from ..sites import LocalSites
from ..workflow.writer import Written, default_yaml, one_line, render, write
from . import prompts
from .compile import compile_step, parse_evidence
from .explore import RunRecord, TaskInstance, explore

log = logging.getLogger(__name__)

Say = Callable[[str], None]


@dataclass
class SynthesisOptions:
    task: str
    start_url: str
    runs: int = 5
    kinds: tuple[str, ...] = ("attribute", "category")
    concurrency: int = 4
    output: Path | None = None
    work_dir: Path = Path(".reuseit/runs")
    max_actions: int = 15
    action_timeout: float = 5  # seconds the agent waits for an element to act on
    browser: BrowserConfig = field(default_factory=BrowserConfig)
    verify: bool = True
    experience: str = ""
    # What the file says as start_url when it differs from the URL explored (e.g. "{demo_url}/...").
    start_url_template: str | None = None


@dataclass
class SynthesisResult:
    path: Path
    text: str
    runs: list[RunRecord]
    guards: int
    compiled_steps: int
    verification: list[tuple[str, str, float]]
    usage: ModelUsage
    seconds: float
    rules: list[tuple[str, str]] = field(default_factory=list)


def synthesis_id(task: str, start_url: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", task.lower()).strip("-")[:40]
    digest = hashlib.sha256(f"{task}\n{start_url}".encode()).hexdigest()[:8]
    return f"{slug}-{digest}"


class Synthesizer:
    def __init__(self, client: LlmClient, options: SynthesisOptions, say: Say = print) -> None:
        self.client = client
        self.opt = options
        self.say = say
        self.usage = ModelUsage()
        # Keyed by the URL as written, so a resumed call finds its runs even if a local port changed.
        self.dir = options.work_dir / synthesis_id(options.task, options.start_url_template or options.start_url)
        # Which runs each synthesized check or fallback came from, for the file's comments.
        self._sources: dict[str, dict[str, list[str]]] = {"pre": {}, "post": {}, "fallback": {}}

    # ------------------------------------------------------------------ helpers

    def _ask(self, schema: str, system: str, user: str | list[dict[str, object]]) -> BaseModel:
        content = user if isinstance(user, list) else [{"type": "text", "text": user}]
        return self.client.ask(
            schema, [{"role": "system", "content": system}, {"role": "user", "content": content}], self.usage
        )

    def _stage(self, name: str, make: Callable[[], BaseModel], model: type[BaseModel]) -> Any:
        """Run a stage once; its answer is stored so a resumed synthesis skips it."""
        path = self.dir / f"{name}.json"
        if path.exists():
            return model.model_validate_json(path.read_text(encoding="utf-8"))
        answer = make()
        self.dir.mkdir(parents=True, exist_ok=True)
        path.write_text(answer.model_dump_json(indent=1), encoding="utf-8")
        return answer

    # ------------------------------------------------------------------ stages

    def variations(self) -> tuple[TaskVariations, list[TaskInstance]]:
        kinds = ", ".join(self.opt.kinds) or "none"
        answer: TaskVariations = self._stage(
            "variations",
            lambda: self._ask(
                "task_variations",
                prompts.VARIATIONS,
                f"TASK TO ANALYZE:\n{self.opt.task}\n\nVariation kinds requested: {kinds}",
            ),
            TaskVariations,
        )
        original = {p.name: p.value for p in answer.parameters}
        instances = [TaskInstance("original", "original", self.opt.task, original)]
        seen: set[str] = set()
        for var in answer.variations:
            if var.kind not in self.opt.kinds or var.kind in seen:
                continue
            seen.add(var.kind)
            params = {**original, **{p.name: p.value for p in var.params}}
            instances.append(TaskInstance(var.kind, var.kind, var.task, params))
        return answer, instances

    def judge(self, record: RunRecord) -> None:
        if record.success is not None:
            return
        if record.error:
            record.success, record.rationale = False, f"run could not be judged: {record.error}"
            record.save(self.dir / record.run_id)
            return
        parts: list[dict[str, object]] = [{"type": "text", "text": record.log_text()}]
        for name in [a.screenshot for a in record.actions if a.screenshot][-1:] + ["final.jpg"]:
            shot = self.dir / record.run_id / name
            if shot.exists():
                parts.append({"type": "image_url", "image_url": {"url": data_url(shot.read_bytes()), "detail": "low"}})
        answer = self._ask("run_judgement", prompts.JUDGE_RUN, parts)
        assert isinstance(answer, RunJudgement)
        record.success, record.rationale = answer.success, answer.rationale
        record.save(self.dir / record.run_id)

    def structure(self, template: str, good: list[RunRecord]) -> WorkflowStructure:
        logs = "\n\n".join(r.log_text() for r in good)
        return self._stage(
            "structure",
            lambda: self._ask(
                "workflow_structure", prompts.STRUCTURE, f"Task template: {template}\n\nSuccessful runs:\n{logs}"
            ),
            WorkflowStructure,
        )

    def guards(self, structure: WorkflowStructure, good: list[RunRecord], bad: list[RunRecord]) -> GuardedWorkflow:
        steps = "\n".join(f"{n}. {s.action}" for n, s in enumerate(structure.steps, start=1))
        checks: ConditionChecks = (
            self._stage(
                "conditions",
                lambda: self._ask(
                    "condition_checks",
                    prompts.CONDITIONS,
                    f"Workflow structure:\n{steps}\n\nFAILED EXECUTION MESSAGES:\n"
                    + ("\n\n".join(r.log_text() for r in bad) or "(none)"),
                ),
                ConditionChecks,
            )
            if bad
            else ConditionChecks(checks=[])
        )
        fallbacks: FallbackActions = (
            self._stage(
                "fallbacks",
                lambda: self._ask(
                    "fallback_actions",
                    prompts.FALLBACKS,
                    f"Workflow structure:\n{steps}\n\nFailed runs:\n"
                    + "\n\n".join(r.log_text() for r in bad)
                    + "\n\nSUCCESSFUL EXECUTION MESSAGES:\n"
                    + "\n\n".join(r.log_text() for r in good),
                ),
                FallbackActions,
            )
            if bad
            else FallbackActions(fallbacks=[])
        )
        self._sources = {"pre": {}, "post": {}, "fallback": {}}
        for c in checks.checks:
            self._sources[c.phase][c.condition] = c.source_runs
        for f in fallbacks.fallbacks:
            self._sources["fallback"][f.fallback] = f.source_runs
        if not checks.checks and not fallbacks.fallbacks:
            return GuardedWorkflow.model_validate(
                {"steps": [{"action": s.action, "pre": [], "post": [], "fallback": []} for s in structure.steps]}
            )
        checks_text = "\n".join(f"- step {c.step}, {c.phase}: {c.condition}" for c in checks.checks) or "(none)"
        fallbacks_text = "\n".join(f"- step {f.step}: {f.fallback}" for f in fallbacks.fallbacks) or "(none)"
        return self._stage(
            "guarded",
            lambda: self._ask(
                "guarded_workflow",
                prompts.MERGE,
                f"Workflow Structure:\n{steps}\n\nCondition Checks:\n{checks_text}\n\nFallback Actions:\n{fallbacks_text}",
            ),
            GuardedWorkflow,
        )

    # ------------------------------------------------------------------ the whole pipeline

    def run(self, explore_progress: Callable[[RunRecord, bool], None] | None = None) -> SynthesisResult:
        started = time.monotonic()
        opt = self.opt
        self.say(f"synthesis folder: {self.dir}")
        variations, instances = self.variations()
        self.say(f"1/7 variations: {', '.join(f'{i.id}: {i.task}' for i in instances)}")
        host = urlsplit(opt.start_url).hostname or ""
        self.say(f"2/7 exploration: {len(instances)} tasks x {opt.runs} runs, {opt.concurrency} in parallel")
        records = explore(
            instances,
            opt.runs,
            opt.start_url,
            self.dir,
            self.client,
            allowed=(host,) if host else (),
            concurrency=opt.concurrency,
            browser=opt.browser,
            max_actions=opt.max_actions,
            action_timeout=opt.action_timeout,
            experience=opt.experience,
            progress=explore_progress,
        )
        for r in records:
            self.usage.add(ModelUsage(**{k: type(getattr(ModelUsage(), k))(v) for k, v in r.usage.items()}))
        for r in records:
            self.judge(r)
        good = [r for r in records if r.success]
        bad = [r for r in records if not r.success]
        self.say(f"3/7 judged: {len(good)} successful, {len(bad)} failed runs")
        if not good:
            raise SynthesisError(
                f"none of the {len(records)} runs succeeded, so there is nothing to learn the steps from; "
                f"see the runs in {self.dir} (run.json and screenshots), then try more --runs or a clearer task"
            )
        structure = self.structure(variations.template, good)
        self.say(f"4/7 structure: {len(structure.steps)} steps from {len(good)} successful runs")
        guarded = self.guards(structure, good, bad)
        n_guards = sum(len(s.pre) + len(s.post) + len(s.fallback) for s in guarded.steps)
        self.say(f"5/7 guards: {n_guards} checks and fallbacks from {len(bad)} failed runs")
        runs_by_id = {r.run_id: r for r in records}
        compiled: list[tuple[list[dict[str, Any]] | None, list[str]]] = [
            compile_step(parse_evidence(s.evidence), runs_by_id) for s in structure.steps
        ]
        if len(guarded.steps) != len(structure.steps):
            log.warning(
                "the merged workflow has %d steps, the structure %d: ops are compiled by position",
                len(guarded.steps),
                len(structure.steps),
            )
        n_compiled = sum(1 for ops, _ in compiled if ops)
        self.say(f"6/7 compiled: {n_compiled} of {len(structure.steps)} steps replay without a model")
        path = opt.output or Path(f"{self.dir.name}.reuseit.yaml")
        # Through the one writer: never a file the loader would reject or read as other steps.
        written = self.write_yaml(variations, instances, guarded, compiled, len(records), path)
        text = written.text
        write(path, written)
        self.say(f"7/7 wrote {path}")
        return SynthesisResult(
            path=path,
            text=text,
            runs=records,
            guards=n_guards,
            compiled_steps=n_compiled,
            verification=[],
            usage=self.usage,
            seconds=time.monotonic() - started,
            rules=learnt_rules(list(guarded.steps), self.dir.name),
        )

    def _step_item(
        self, step: GuardedStep, ops: list[dict[str, Any]] | None, from_runs: list[str]
    ) -> tuple[CommentedMap, list[str]]:
        """One step of the file, and the comment lines saying which runs each part came from."""
        item = CommentedMap({"action": step.action})
        if step.pre:
            item["pre"] = CommentedSeq(step.pre)
        if ops:
            item["do"] = CommentedSeq(ops)
        if step.post:
            item["post"] = CommentedSeq(step.post)
        if step.fallback:
            item["fallback"] = CommentedSeq(step.fallback)
        notes = []
        if ops:
            notes.append(f"do: compiled from successful runs {', '.join(from_runs)}")
        for phase in ("pre", "post", "fallback"):
            for text in getattr(step, phase):
                runs = self._sources[phase].get(text)
                if runs:
                    notes.append(f"{phase} '{text[:50]}' from runs {', '.join(runs)}")
        return item, notes

    def write_yaml(
        self,
        variations: TaskVariations,
        instances: list[TaskInstance],
        guarded: GuardedWorkflow,
        compiled: list[tuple[list[dict[str, Any]] | None, list[str]]],
        n_runs: int,
        path: Path,
    ) -> Written:
        opt = self.opt
        original = instances[0].params
        doc = CommentedMap()
        doc["name"] = opt.task[:80]
        doc["task"] = variations.template
        doc["start_url"] = opt.start_url_template or opt.start_url
        if original:
            doc["params"] = CommentedMap(original)
        seq = CommentedSeq()
        for inst in instances:
            var = CommentedMap({"id": inst.id, "kind": inst.kind})
            changed = {k: v for k, v in inst.params.items() if original.get(k) != v}
            if changed:
                var["params"] = CommentedMap(changed)
            seq.append(var)
        doc["variations"] = seq
        doc["tags"] = ["synthesized"]
        steps = CommentedSeq()
        for n, step in enumerate(guarded.steps):
            ops, from_runs = compiled[n] if n < len(compiled) else (None, [])
            item, notes = self._step_item(step, ops, from_runs)
            steps.append(item)
            if notes:
                steps.yaml_set_comment_before_after_key(
                    len(steps) - 1, before="\n".join(map(one_line, notes)), indent=2
                )
        doc["steps"] = steps
        doc.yaml_set_start_comment(
            f"Synthesized by `reuseit synthesize` from {n_runs} exploration runs "
            f"in {one_line(str(self.dir))}.\nReview the checks and fallbacks, then run it with pytest."
        )
        yaml = default_yaml()
        yaml.width = 110
        return render(doc, str(path), yaml=yaml, builtin_names=LocalSites.NAMES)


def learnt_rules(result_steps: list[Any], synthesis: str) -> list[tuple[str, str]]:
    """Rules for the site's experience from a synthesized workflow's guards (AWM/HxAgent-style memory)."""
    rules = []
    for step in result_steps:
        for cond in step.pre:
            rules.append((f"Before '{step.action}', make sure that: {cond}", f"synthesis {synthesis}"))
        for cond in step.post:
            rules.append((f"After '{step.action}', check that: {cond}", f"synthesis {synthesis}"))
        for fb in step.fallback:
            rules.append((f"If '{step.action}' fails: {fb}", f"synthesis {synthesis}"))
    return rules


class SynthesisError(ReuseitError):
    """Synthesis cannot go on; the message says why and what to try."""


def table(rows: list[tuple[str, str, float]]) -> str:
    lines = ["variation        result      seconds"]
    lines += [f"{v:<16} {s:<11} {t:7.1f}" for v, s, t in rows]
    return "\n".join(lines)


def summary(result: SynthesisResult) -> str:
    good = sum(1 for r in result.runs if r.success)
    u = result.usage
    return (
        f"runs: {len(result.runs)} ({good} successful), guards: {result.guards}, compiled steps: {result.compiled_steps}, "
        f"model: {u.calls} calls, {u.cache_hits} cache hits, {u.prompt_tokens + u.completion_tokens} tokens, "
        f"${u.cost:.4f}, time: {result.seconds:.1f}s"
    )
