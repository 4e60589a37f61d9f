"""A setting's role is declared on its field (translate.config.fields: setting(role=...), or a section class's ROLE):
the keys that say how a job ran, not what it trained, are what those roles give, and the sweep groups jobs by the
other keys."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Optional

from omegaconf import DictConfig

from conftest import make_config
from translate.analysis.sweep.jobs import NOT_SETTINGS, Job, JobSettings, group_settings
from translate.assembly.schemas import schemas
from translate.config.fields import HOW_IT_RAN, TRAIN_ONLY, Checked, keys_with_role, setting, with_role
from translate.data.config import DataConfig


def test_the_sweeps_not_settings_are_what_the_roles_declare():
    cfg = make_config()
    top_level = [key for key in cfg if not isinstance(cfg[key], DictConfig)]  # seed, piece, run_name: no section
    derived = top_level + keys_with_role(schemas(), HOW_IT_RAN)
    assert sorted(derived) == sorted(NOT_SETTINGS)
    assert {"train.device", "train.num_threads", "train.resume", "data.path", "report."} <= set(derived)
    assert not {"train.lr", "train.max_steps", "data.train_max_words", "model.d_model"} & set(derived)


def test_a_section_role_covers_every_field_and_a_field_role_only_its_own():
    @dataclass
    class Reported(Checked):
        ROLE: ClassVar[Optional[str]] = HOW_IT_RAN
        edges: int = 1
        margin: float = setting(default=1.0)

    @dataclass
    class Trained(Checked):
        lr: float = 0.1
        device: str = setting(default="cpu", role=HOW_IT_RAN)

    assert with_role(Reported, HOW_IT_RAN) == ["edges", "margin"]
    assert with_role(Trained, HOW_IT_RAN) == ["device"]
    assert keys_with_role({"report": Reported, "train": Trained}, HOW_IT_RAN) == ["report.", "train.device"]
    assert with_role(DataConfig, TRAIN_ONLY) == ["train_min_words", "train_max_words", "train_limit",
                                                 "train_max_pairs", "train_same_tokens_as"]


def test_jobs_that_differ_only_in_how_they_ran_are_seeds_of_one_setting():
    def job(name: str, seed: int, **changed) -> Job:
        config = {"seed": seed, "encoding.name": "rope", "train.lr": 0.002, "train.num_threads": 1,
                  "train.device": "cpu", "data.path": None, "report.min_bucket": 50, "run_name": name, **changed}
        finished = object()  # a finished job has metrics.json; grouping reads only the config
        return Job(Path(name), config, metrics=finished, name=name, settings=JobSettings(seed=seed, encoding="rope"))

    jobs = [job("a", 1), job("b", 2, **{"train.num_threads": 4, "train.device": "cuda", "data.path": "/corpus",
                                        "report.min_bucket": 20}),
            job("c", 1, **{"train.lr": 0.001})]
    groups = group_settings(jobs)
    assert sorted(len(s.jobs) for s in groups) == [1, 2]
    assert {j.name for s in groups if len(s.jobs) == 2 for j in s.jobs} == {"a", "b"}


def test_a_token_matched_group_is_labelled_by_its_lengths_not_by_config_keys():
    """claims_cpu's short group is 1-9 words drawn to the target tokens of 11-17: one label says both."""
    def job(name: str, low: int, high: int, matched) -> Job:
        config = {"seed": 1, "encoding.name": "none", "data.train_min_words": low, "data.train_max_words": high,
                  "data.train_same_tokens_as": None if matched is None else tuple(matched)}
        data = DataConfig(name="tatoeba", train_min_words=low, train_max_words=high, train_same_tokens_as=matched)
        settings = JobSettings(seed=1, encoding="none", data=data, trained=(low, high))
        return Job(Path(name), config, metrics=object(), name=name, settings=settings)

    groups = {s.group for s in group_settings([job("short", 1, 9, [11, 17]), job("long", 11, 17, None)])}
    assert groups == {"train words 1-9 (as many target tokens as 11-17)", "train words 11-17"}
