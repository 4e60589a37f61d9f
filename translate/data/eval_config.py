"""The `eval` config group (conf/eval/*.yaml): the test sets a run is scored on (see translate.data.test_sets)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, List, Optional

from translate.config.fields import HOW_IT_RAN, Checked


@dataclass
class EvalConfig(Checked):
    SECTION: ClassVar[str] = "eval"
    ROLE: ClassVar[Optional[str]] = HOW_IT_RAN  # what a run was scored on, never what it trained

    test_sets: List[Any] = field(default_factory=list)   # each {name, split} | {name, src, ref} | {name, long_concat_from}
    at_test: List[Any] = field(default_factory=list)     # test-time controls, each {ablation, name?, SETTING: VALUE}
                                                         # (translate/assembly/controls_at_test.py)

    def check(self) -> None:
        from translate.data.test_sets import parse_test_sets  # it raises ConfigError naming eval.test_sets[i]

        self.specs = parse_test_sets(self.test_sets)  # checked once, here; the run scores these (TestSetSpec list)
