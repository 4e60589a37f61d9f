"""conf/sweep: every sweep composes into a multirun, expands into the jobs it promises (as Hydra's basic sweeper
expands them), and names each job's folder after its settings, so that a rerun finds the same folders."""
from __future__ import annotations

from pathlib import Path

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.types import RunMode
from omegaconf import OmegaConf

from conftest import CONF_DIR, make_config
from translate.assembly.settings import validate_config
from translate.config import ConfigError
from translate.assembly.trainer import model_from_config

SWEEPS = sorted(p.stem for p in (Path(CONF_DIR) / "sweep").glob("*.yaml"))
ENCODINGS = sorted(p.stem for p in (Path(CONF_DIR) / "encoding").glob("*.yaml"))


def compose_job(*overrides: str):
    """A job's config with its hydra node, as the launcher composes it."""
    return make_config(*overrides, return_hydra_config=True)


def sweep_jobs(*overrides: str) -> list[list[str]]:
    """The override lists of every job of a multirun: the sweep's params, then the command line, expanded by
    Hydra's basic sweeper (glob() over a config group included)."""
    from hydra._internal.config_loader_impl import ConfigLoaderImpl
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra._internal.utils import create_config_search_path

    loader = ConfigLoaderImpl(config_search_path=create_config_search_path(CONF_DIR))
    cfg = loader.load_configuration("config", list(overrides), run_mode=RunMode.MULTIRUN)
    params = [f"{key}={value}" for key, value in cfg.hydra.sweeper.params.items()]
    parsed = OverridesParser.create(config_loader=loader).parse_overrides(params + list(cfg.hydra.overrides.task))
    return [list(job) for batch in BasicSweeper.split_arguments(parsed, None) for job in batch]


def job_folder(cfg) -> str:
    return str(Path(cfg.hydra.sweep.dir) / OmegaConf.select(cfg, "hydra.sweep.subdir"))


def test_the_promised_sweeps_exist():
    assert {"encodings", "seed_repro", "seed_repro_cpu", "length_extrapolation", "seeds"} <= set(SWEEPS)


@pytest.mark.parametrize("name", [s for s in SWEEPS if s != "seeds"])
def test_a_sweep_is_a_resumable_parallel_multirun_in_its_own_folder(name):
    cfg = compose_job(f"+sweep={name}")
    assert str(cfg.hydra.mode) == "RunMode.MULTIRUN"
    assert cfg.hydra.launcher._target_.endswith("JoblibLauncher") and cfg.hydra.launcher.n_jobs >= 1
    assert cfg.train.resume == "auto"
    assert cfg.hydra.sweep.dir == f"sweeps/{name}"
    validate_config(cfg)


@pytest.mark.parametrize("name", ["encodings", "length_extrapolation"])
def test_encoding_sweeps_cover_every_encoding_once(name):
    jobs = sweep_jobs(f"+sweep={name}")
    assert sorted(o.split("=")[1] for job in jobs for o in job if o.startswith("encoding=")) == ENCODINGS
    folders = {job_folder(compose_job(*job)) for job in jobs[:3]}
    assert len(folders) == 3  # one folder per encoding
    if name == "length_extrapolation":
        cfg = compose_job(*jobs[0])
        assert cfg.data.train_max_words == 10 and cfg.data.train_min_words is None
        names = [test_set["name"] for test_set in cfg.eval.test_sets]
        assert names == ["test", "multi30k_flickr2016", "long_test", "long_concat"]  # real and synthetic long ones


SEED_REPRO_PE = {  # +sweep/pe option -> (encoding, ablation name)
    "sinusoidal": ("sinusoidal", "none"), "sinusoidal_zero_dims": ("sinusoidal", "zero_dims"), "none": ("none", "none"),
    "sinusoidal_zero_dims_mean": ("sinusoidal", "zero_dims_mean"),
    "sinusoidal_zero_low_dims": ("sinusoidal", "zero_low_dims"), "rope": ("rope", "none"), "t5": ("t5", "none")}


def test_seed_repro_is_seven_settings_by_two_lengths_by_three_seeds_trained_to_a_plateau():
    jobs = sweep_jobs("+sweep=seed_repro")
    assert len(jobs) == 7 * 2 * 3
    folders = set()
    for job in jobs:
        cfg = compose_job(*job)
        options = dict(o.split("=", 1) for o in job)
        encoding, ablation = SEED_REPRO_PE[options["+sweep/pe"]]
        assert (cfg.encoding.name, cfg.ablation.name) == (encoding, ablation)
        assert cfg.model.name == "base" and cfg.model.d_model == 512 and cfg.train.device == "cuda"
        assert cfg.train.early_stop_patience and cfg.train.max_steps and cfg.train.max_minutes is None
        assert cfg.data.test_limit is None and cfg.data.name == "tatoeba"  # every test bucket is evaluated
        folders.add(job_folder(cfg))
    assert len(folders) == 42  # one folder per job: a rerun finds each again
    assert "sweeps/seed_repro/none_none_words11-17_seed3" in folders
    cfg = compose_job(*jobs[0])
    validate_config(cfg)


@pytest.mark.parametrize("pe", ["sinusoidal_zero_dims_mean", "sinusoidal_zero_low_dims", "rope", "t5"])
def test_seed_repro_controls_and_relative_encodings_validate(pe):
    cfg = compose_job("+sweep=seed_repro", f"+sweep/pe={pe}", "+sweep/train_words=11_to_17")
    validate_config(cfg)
    if pe == "sinusoidal_zero_dims_mean":
        assert cfg.ablation.fill == "mean" and cfg.ablation["from"] == 400


@pytest.mark.parametrize("pe", ["sinusoidal", "sinusoidal_zero_dims", "none"])
def test_seed_repro_models_build(pe):
    cfg = compose_job("+sweep=seed_repro", f"+sweep/pe={pe}", "+sweep/train_words=under_10")
    model = model_from_config(cfg, vocab_size=100, pad_id=0)
    table = model.encoding.table(__import__("torch").arange(30))  # (T, d_model) or None without a table
    if pe == "sinusoidal_zero_dims":
        assert table[:, 400:].abs().sum() == 0 and table[:, :400].abs().sum() > 0
    elif pe == "sinusoidal":
        assert table[:, 400:].abs().sum() > 0


def test_seeds_multiply_another_sweep_in_its_folder():
    jobs = sweep_jobs("+sweep=[seed_repro_cpu,seeds]")
    assert len(jobs) == 18
    cfg = compose_job(*[o for o in jobs[-1]])
    assert cfg.hydra.sweep.dir == "sweeps/seed_repro_cpu" and cfg.seed == 3
    assert job_folder(cfg).endswith("_seed3")
    assert compose_job("+sweep=[encodings,seeds]").hydra.launcher._target_.endswith("JoblibLauncher")


def test_cpu_repro_keeps_the_experiment_and_shrinks_the_budget():
    full, cpu = sweep_jobs("+sweep=seed_repro"), sweep_jobs("+sweep=seed_repro_cpu")
    strip = {tuple(sorted(o for o in job if not o.startswith("+sweep="))) for job in full}
    cpu_jobs = {tuple(sorted(o for o in job if not o.startswith("+sweep="))) for job in cpu}
    assert len(cpu_jobs) == 6 and cpu_jobs <= strip  # the claims' six settings, seed 1, as the GPU sweep runs them
    cfg = compose_job(*cpu[0])
    base = compose_job(*full[0])
    assert cfg.train.device == "auto" and not cfg.train.compile  # the CPU train preset, not train=gpu
    # the PE table the claims are about: the same width and heads as model=base, so the same sinusoid frequencies
    assert (cfg.model.d_model, cfg.model.n_heads) == (base.model.d_model, base.model.n_heads) == (512, 8)
    assert cfg.model.n_encoder_layers < base.model.n_encoder_layers and cfg.hydra.sweep.dir == "sweeps/seed_repro_cpu"
    assert cfg.train.num_threads * cfg.hydra.launcher.n_jobs <= 2       # 2 cores
    # a budget in steps, so that the load of the machine does not change the results
    assert cfg.train.max_minutes is None and cfg.train.max_steps * 3 <= 3000


def test_slurm_launcher_config_composes():
    cfg = compose_job("+sweep=encodings", "hydra/launcher=slurm")
    assert cfg.hydra.launcher._target_ == "hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher"
    assert cfg.hydra.launcher.timeout_min > 0 and cfg.hydra.launcher.gpus_per_node == 1


@pytest.mark.parametrize("sweep", ["encodings", "length_extrapolation", "seed_repro", "seed_repro_cpu"])
def test_sweep_budgets_are_in_steps_not_minutes(sweep):
    """Jobs sharing one machine or GPU get the same training whatever the load."""
    cfg = compose_job(*sweep_jobs(f"+sweep={sweep}")[0])
    assert cfg.train.max_minutes is None and 0 < cfg.train.max_steps <= 30000


def test_a_piece_takes_every_nth_job_of_a_sweep_and_refuses_other_values():
    from translate.cli.piece import in_piece, parse_piece

    assert [job for job in range(8) if in_piece("2/3", job)] == [1, 4, 7]
    assert sorted(job for k in (1, 2, 3) for job in range(8) if in_piece(f"{k}/3", job)) == list(range(8))
    assert in_piece(None, None) and in_piece(None, 5)
    for bad in ("0/3", "4/3", "2", "a/b", "1/0", ""):
        with pytest.raises(ConfigError, match=r"piece=.* is not allowed: expected null or K/N"):
            parse_piece(bad)
    with pytest.raises(ConfigError, match="only applies to a sweep"):
        in_piece("1/2", None)


@pytest.mark.parametrize("name, per_seed, seed_count", [("claims_cpu", 4, 3), ("extrapolation_published_cpu", 5, 3),
                                                   ("claim_a_cpu", 2, 11), ("claim_a_long_cpu", 2, 8),
                                                   ("claim_b_within_cpu", 2, 8), ("claim_a_long_cpu_pilot", 2, 1),
                                                   ("claim_b_within_cpu_pilot", 2, 1)])
def test_comparison_sweeps_run_seed_by_seed_so_an_interrupted_sweep_leaves_pairs(name, per_seed, seed_count):
    """Jobs run in the sweeper's order: all settings of seed 1 (a PE and its baseline side by side), then seed 2, so
    the jobs a session finishes pair up into Δs instead of piling up seeds of one setting."""
    jobs = sweep_jobs(f"+sweep=[{name}]")
    seeds = [next(o for o in job if o.startswith("seed=")) for job in jobs]
    assert seeds == [f"seed={s}" for s in range(1, seed_count + 1) for _ in range(per_seed)]
    first = [next(o for o in job if o.startswith("+sweep/pe=")) for job in jobs[:2]]
    if name == "claims_cpu":
        assert first == ["+sweep/pe=sinusoidal", "+sweep/pe=none"]   # the first two jobs are one Δ
    folders = [job_folder(compose_job(f"+sweep=[{name}]", *job)) for job in jobs]
    assert len(set(folders)) == len(folders), folders   # a folder per job: none overwrites another


def test_claim_b_within_one_model_trains_on_every_length():
    """Its sweeper's params replace claims_cpu's two length groups (params merge, so the key must be set)."""
    for job in sweep_jobs("+sweep=[claim_b_within_cpu_pilot]"):
        cfg = compose_job("+sweep=[claim_b_within_cpu_pilot]", *job)
        assert cfg.data.train_min_words is None and cfg.data.train_max_words is None
        assert "hansards_gold" in [t.name for t in cfg.eval.test_sets] and cfg.report.position_probe == 600


def test_claim_a_long_scores_its_controls_in_its_sinusoidal_jobs_and_its_second_pilots_differ_in_dropout_only():
    jobs = sweep_jobs("+sweep=[claim_a_long_cpu]")
    assert len(jobs) == 16
    for job in jobs:
        cfg = compose_job("+sweep=[claim_a_long_cpu]", *job)
        assert [c["name"] if "name" in c else c["ablation"] for c in cfg.eval.at_test] == ["zero_dims",
                                                                                        "zero_dims_mean"]
        assert (cfg.data.train_min_words, cfg.data.train_max_words) == (11, 17) and cfg.model.name == "base_cpu"
    first = [compose_job("+sweep=[claim_a_long_cpu_pilot]", *job) for job in sweep_jobs("+sweep=[claim_a_long_cpu_pilot]")]
    second = [compose_job("+sweep=[claim_a_long_cpu_pilot_dropout]", *job)
              for job in sweep_jobs("+sweep=[claim_a_long_cpu_pilot_dropout]")]
    assert [c.model.dropout for c in first] == [0.1, 0.1] and [c.model.dropout for c in second] == [0.3, 0.3]
    for a, b in zip(first, second):
        a.model.dropout = b.model.dropout
        assert {k: v for k, v in a.items() if k not in ("hydra", "run_name")} == {
            k: v for k, v in b.items() if k not in ("hydra", "run_name")}
        assert b.hydra.sweep.dir == "sweeps/claim_a_long_cpu_pilot_dropout"


@pytest.mark.parametrize("cpu_sweep, gpu_sweep, jobs", [("claims_cpu", "claims_gpu", 12),
                                                      ("claim_b_within_cpu", "claim_b_within_gpu", 16),
                                                      ("claim_a_long_cpu", "claim_a_long_gpu", 16)])
def test_a_gpu_claims_sweep_is_the_cpu_one_on_a_gpu_in_fp32_in_its_own_folder(cpu_sweep, gpu_sweep, jobs):
    """A separate comparison: the same jobs, data, model, steps, test sets, controls and probes; only the device and
    the folder differ, and every job runs at once."""
    cpu_jobs, gpu_jobs = sweep_jobs(f"+sweep=[{cpu_sweep}]"), sweep_jobs(f"+sweep=[{gpu_sweep}]")
    assert len(gpu_jobs) == len(cpu_jobs) == jobs
    for cpu_job, gpu_job in zip(cpu_jobs, gpu_jobs):
        cpu, gpu = compose_job(*cpu_job), compose_job(*gpu_job)
        assert (gpu.train.device, gpu.train.precision, gpu.train.compile) == ("cuda", "fp32", False)
        assert job_folder(gpu) == job_folder(cpu).replace(f"sweeps/{cpu_sweep}/", f"sweeps/{gpu_sweep}/")
        for section in ("data", "model", "encoding", "ablation", "eval", "report"):
            assert OmegaConf.to_container(gpu[section]) == OmegaConf.to_container(cpu[section]), section
        for key in ("max_steps", "max_tokens", "lr", "valid_every", "test_checkpoint"):
            assert gpu.train[key] == cpu.train[key], key
        assert gpu.seed == cpu.seed
    assert compose_job(f"+sweep={gpu_sweep}").hydra.launcher.n_jobs == jobs
    half = sweep_jobs(f"+sweep=[{gpu_sweep}]", "seed=1,2")   # a call too short for every seed: both settings a seed
    assert len(half) == jobs * 2 // len({job[0] for job in gpu_jobs})   # job[0]: its seed=N
    assert sorted({o for job in half for o in job if o.startswith("seed=")}) == ["seed=1", "seed=2"]


@pytest.mark.parametrize("name", ["claims_gpu", "extrapolation_published_gpu", "claim_a_gpu",
                                  "claim_b_within_gpu", "claim_a_long_gpu"])
def test_a_gpu_sweep_saves_its_jobs_only_at_their_last_step(name):
    """A GPU piece never resumes in a later call, so saving every 100 steps would only load the machine's disk."""
    for job in sweep_jobs(f"+sweep=[{name}]"):
        cfg = compose_job(*job)
        assert cfg.train.save_every == cfg.train.max_steps
        assert validate_config(cfg).train.save_every == cfg.train.max_steps


def test_claim_a_on_a_gpu_runs_every_setting_with_three_seeds_at_once_and_its_pilots_first():
    jobs = [compose_job(*job) for job in sweep_jobs("+sweep=[claim_a_gpu]")]
    settings = sorted((cfg.encoding.name, cfg.ablation.name, cfg.seed) for cfg in jobs)
    assert len(settings) == 9 == len(set(settings)) == compose_job("+sweep=claim_a_gpu").hydra.launcher.n_jobs
    assert {cfg.model.d_model for cfg in jobs} == {512}
    assert all((cfg.train.device, cfg.train.precision, cfg.data.train_max_words) == ("cuda", "fp32", 9) for cfg in jobs)
    assert all(job_folder(cfg).startswith("sweeps/claim_a_gpu/") for cfg in jobs)
    pilots = [compose_job(*job) for job in sweep_jobs("+sweep=[claim_a_gpu_pilot]")]
    assert len({cfg.ablation.name for cfg in pilots}) == len(pilots) == 2 and {cfg.seed for cfg in pilots} == {1}
    assert all(cfg.train.early_stop_patience == 5 and cfg.train.test_checkpoint == "best" for cfg in pilots)


def test_the_published_comparison_on_a_gpu_is_the_cpu_one_beside_claims_gpu():
    cpu_jobs = sweep_jobs("+sweep=[extrapolation_published_cpu]")
    gpu_jobs = sweep_jobs("+sweep=[extrapolation_published_gpu]")
    assert len(gpu_jobs) == len(cpu_jobs) == 15
    for cpu_job, gpu_job in zip(cpu_jobs, gpu_jobs):
        cpu, gpu = compose_job(*cpu_job), compose_job(*gpu_job)
        assert (gpu.train.device, gpu.train.precision) == ("cuda", "fp32")
        assert job_folder(gpu) == job_folder(cpu).replace("_cpu/", "_gpu/")
        for section in ("data", "model", "encoding", "eval"):
            assert OmegaConf.to_container(gpu[section]) == OmegaConf.to_container(cpu[section]), section
        assert gpu.train.max_steps == cpu.train.max_steps == compose_job("+sweep=claims_gpu").train.max_steps
