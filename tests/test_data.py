"""Corpora, splits, the corpus search order, SentencePiece caching and token-budget batches."""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from translate.data import locate
from translate.data.batching import collate, make_batches, padding_fraction
from translate.data.cleaning import DropCounts, Pair, clean_pairs, normalise
from translate.data.components import sentence_components
from translate.data.corpora import (CorpusError, HuggingFace, Multi30k, Tatoeba,
                                    split_by_component)
from translate.data.locate import CorpusNotFound, RemoteFile, locate_corpus
from translate.data.tokenizer import cached_model_path, train_tokenizer

# The corpora as the code finds them: $TRANSLATE_DATA_DIR, else ../shared/data next to the repository.
SHARED = Path(os.environ.get(locate.ENV_VAR) or Path(__file__).resolve().parents[2] / "shared" / "data")


def write_zip(path: Path, text: bytes, member: str = "fra.txt") -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(member, text)
    return path


def test_tatoeba_reads_two_and_three_columns_and_counts_bad_lines(tmp_path):
    text = ("Go.\tVa !\n"
            "Hi.\tSalut !\tCC-BY 2.0 (France) Attribution: tatoeba.org\n"
            "no tab here\n"
            "\tempty english\n").encode() + b"Bad.\t\xff\xfe\n"
    drops = DropCounts()
    rows = list(Tatoeba.read_lines(write_zip(tmp_path / "fra-eng.zip", text), drops))
    pairs = clean_pairs(rows, drops)
    assert pairs == [Pair("Va !", "Go."), Pair("Salut !", "Hi.")]
    assert drops.reasons == {"not 2 or 3 tab-separated columns": 1, "bad UTF-8": 1, "empty side": 1}


def test_tatoeba_zip_without_fra_txt_is_a_clear_error(tmp_path):
    path = write_zip(tmp_path / "fra-eng.zip", b"x", member="other.txt")
    with pytest.raises(CorpusError, match="no fra.txt"):
        list(Tatoeba.read_lines(path, DropCounts()))


def test_normalise_is_nfc_and_keeps_case_and_punctuation():
    assert normalise("  Cafe\u0301  au   lait ! ") == "Caf\u00e9 au lait !"


def assert_no_sentence_in_two_splits(splits) -> None:
    for side in ("en", "fr"):
        sets = [{getattr(p, side) for p in s} for s in (splits.train, splits.valid, splits.test)]
        assert not (sets[0] & sets[1]) and not (sets[0] & sets[2]) and not (sets[1] & sets[2]), side


def chains(n: int, length: int) -> list[Pair]:
    """n chains en0-fr0-en1-fr1-...: each English sentence shares a French one with the next English one."""
    pairs = []
    for c in range(n):
        for k in range(length):
            pairs.append(Pair(f"fr {c}.{k}", f"en {c}.{k}"))
            pairs.append(Pair(f"fr {c}.{k}", f"en {c}.{k + 1}"))  # links en k and en k+1 through fr k
    return pairs


def test_a_chain_is_one_component_and_never_crosses_splits():
    pairs = chains(40, 3) + [Pair(f"solo fr {i}", f"solo en {i}") for i in range(200)]
    assert sorted(len(c) for c in sentence_components(chains(2, 3))) == [6, 6]
    splits = split_by_component(pairs, valid_size=20, test_size=30, seed=7)
    assert_no_sentence_in_two_splits(splits)
    assert len({p.en for p in splits.valid}) == 20 and len({p.en for p in splits.test}) == 30
    assert sorted(splits.train + splits.valid + splits.test, key=pairs.index) == pairs
    assert any(p.en.startswith("en ") for p in splits.test)  # chains (4 English sentences each) do reach test


def test_the_component_split_is_deterministic_by_seed():
    pairs = chains(30, 2) + [Pair(f"fr {i} {j}", f"en {i}") for i in range(300) for j in range(1 + i % 3)]
    a, b = (split_by_component(pairs, 20, 30, seed=7) for _ in range(2))
    assert a == b
    assert split_by_component(pairs, 20, 30, seed=8).test != a.test


def test_real_tatoeba_splits_share_no_english_and_no_french_sentence():
    splits = Tatoeba().load(str(SHARED / "tatoeba"))
    assert len({p.en for p in splits.valid}) == 1000 and len({p.en for p in splits.test}) == 2000
    assert_no_sentence_in_two_splits(splits)
    assert len(splits.train) > 130_000


def test_multi30k_reads_its_own_splits_and_refuses_misaligned_files(tmp_path):
    splits = Multi30k().load(str(SHARED / "multi30k"))
    assert (len(splits.train), len(splits.valid), len(splits.test)) == (29000, 1014, 1000)
    for split in ("train", "val", "test_2016_flickr"):
        (tmp_path / f"{split}.fr").write_text("un\ndeux\n")
        (tmp_path / f"{split}.en").write_text("one\n")
    with pytest.raises(CorpusError, match="line-aligned"):
        Multi30k().load(str(tmp_path))


def test_hf_loader_reads_a_dataset_saved_to_disk(tmp_path):
    import datasets

    def split(n):
        return datasets.Dataset.from_dict({"translation": [{"fr": f"bonjour {i}", "en": f"hello {i}"}
                                                           for i in range(n)]})
    datasets.DatasetDict({"train": split(5), "validation": split(2), "test": split(3)}).save_to_disk(tmp_path / "d")
    splits = HuggingFace().load(str(tmp_path / "d"))
    assert splits.train[4] == Pair("bonjour 4", "hello 4")
    assert (len(splits.valid), len(splits.test)) == (2, 3)


def test_locate_order_data_path_then_env_var_then_shared_then_data(tmp_path, monkeypatch):
    remote = [RemoteFile("fra-eng.zip", "http://127.0.0.1:9/none.zip")]  # closed port: a download fails at once
    repo = tmp_path / "work" / "repo"
    places = {"given": tmp_path / "given", "env": tmp_path / "env" / "tatoeba",
              "shared": tmp_path / "work" / "shared" / "data" / "tatoeba", "data": repo / "data" / "tatoeba"}
    for folder in places.values():
        folder.mkdir(parents=True)
        write_zip(folder / "fra-eng.zip", b"Go.\tVa !\n")
    monkeypatch.setattr(locate, "REPO_ROOT", repo)
    monkeypatch.setenv(locate.ENV_VAR, str(tmp_path / "env"))
    assert locate_corpus("tatoeba", remote, str(places["given"])) == places["given"]
    assert locate_corpus("tatoeba", remote) == places["env"]
    monkeypatch.delenv(locate.ENV_VAR)
    assert locate_corpus("tatoeba", remote) == places["shared"]
    (places["shared"] / "fra-eng.zip").unlink()
    assert locate_corpus("tatoeba", remote) == places["data"]


def test_nothing_found_offline_names_the_places_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setattr(locate, "REPO_ROOT", tmp_path / "repo")
    monkeypatch.delenv(locate.ENV_VAR, raising=False)
    remote = [RemoteFile("x.zip", "http://127.0.0.1:9/x.zip")]  # closed port: fails at once
    with pytest.raises(CorpusNotFound) as error:
        locate_corpus("nowhere", remote)
    message = str(error.value)
    assert "../shared/data" in message and "data.path" in message and "TRANSLATE_DATA_DIR" in message


def test_missing_data_path_is_named(tmp_path):
    with pytest.raises(CorpusNotFound, match="data.path='/no/such/folder'"):
        locate_corpus("tatoeba", Tatoeba.files, "/no/such/folder")


def test_empty_corpus_after_filtering_is_an_error(tmp_path):
    write_zip(tmp_path / "fra-eng.zip", ("".join(f"W{i} w w w w.\tM{i} m m m m.\n" for i in range(50))).encode())
    with pytest.raises(CorpusError, match="empty"):
        Tatoeba(valid_size=5, test_size=5, max_words=2).load(str(tmp_path))


def test_tokenizer_is_cached_by_inputs_and_settings(tmp_path):
    pairs = [Pair(f"le chat numéro {i} dort", f"the cat number {i} sleeps") for i in range(200)]
    first = train_tokenizer(pairs, tmp_path, vocab_size=60)
    models = sorted(tmp_path.glob("*.model"))
    mtime = models[0].stat().st_mtime_ns
    second = train_tokenizer(pairs, tmp_path, vocab_size=60)
    assert sorted(tmp_path.glob("*.model")) == models and models[0].stat().st_mtime_ns == mtime
    assert second.model_proto == first.model_proto
    train_tokenizer(pairs, tmp_path, vocab_size=70)
    assert len(list(tmp_path.glob("*.model"))) == 2
    assert first.decode(first.encode(["le chat numéro 7 dort"])) == ["le chat numéro 7 dort"]


def test_a_tokenizer_trained_in_two_places_is_the_same_file_and_a_moved_checkpoint_s_model_is_recognised(tmp_path):
    """SentencePiece writes its temporary input's path into the model: without clearing it, the same model trained
    in two checkouts differed in bytes, and a pilot's checkpoint was refused by a comparison in another worktree."""
    from sentencepiece import sentencepiece_model_pb2

    pairs = [Pair(f"le chat numéro {i} dort", f"the cat number {i} sleeps") for i in range(200)]
    here, there = train_tokenizer(pairs, tmp_path / "a", vocab_size=60), train_tokenizer(pairs, tmp_path / "b",
                                                                                          vocab_size=60)
    assert here.model_proto == there.model_proto
    assert str(tmp_path) not in here.model_proto.decode("latin-1")
    older = sentencepiece_model_pb2.ModelProto()   # a model saved before the path was cleared (older checkpoints)
    older.ParseFromString(here.model_proto)
    older.trainer_spec.input.append("/elsewhere/tmpabc/train.txt")
    older.trainer_spec.model_prefix = "/elsewhere/tmpabc/spm"
    older.trainer_spec.num_threads = 16
    assert here.tokenizes_like(older.SerializeToString()) and here.tokenizes_like(here.model_proto)
    dogs = [Pair(f"le chien numéro {i} mange", f"the dog number {i} eats") for i in range(200)]
    assert not here.tokenizes_like(train_tokenizer(dogs, tmp_path / "a", vocab_size=60).model_proto)
    older.pieces[10].score += 0.5                  # one score changed: another model
    assert not here.tokenizes_like(older.SerializeToString())


def test_batches_respect_the_token_budget_and_cover_every_sentence():
    import random

    rng = random.Random(0)
    src = [rng.randint(1, 60) for _ in range(3000)]
    tgt = [max(1, s + rng.randint(-5, 5)) for s in src]
    batches = make_batches(src, tgt, max_tokens=500, seed=3)
    for b in batches:
        assert len(b) * max(max(src[i], tgt[i]) for i in b) <= 500
    assert sorted(i for b in batches for i in b) == list(range(3000))
    assert padding_fraction(batches, src) < 0.05
    assert make_batches(src, tgt, 500, seed=3) == batches and make_batches(src, tgt, 500, seed=4) != batches


def test_collate_adds_specials_and_pads():
    batch = collate([[5, 6, 7], [8]], [[9], [10, 11]], [0, 1], pad_id=0, bos_id=2, eos_id=3)
    assert batch.src.tolist() == [[5, 6, 7, 3], [8, 3, 0, 0]]
    assert batch.tgt_in.tolist() == [[2, 9, 0], [2, 10, 11]]
    assert batch.tgt_out.tolist() == [[9, 3, 0], [10, 11, 3]]
    assert batch.target_tokens == 5


def test_parallel_jobs_training_the_same_tokenizer_all_use_the_first_saved(tmp_path, monkeypatch):
    """Two sweep jobs on one fresh cache both train the model; the one that finishes second must not replace it
    (multi-threaded training is not byte-for-byte repeatable, and the first job's checkpoints hold its model)."""
    import sentencepiece as spm

    pairs = [Pair(f"le chat numéro {i} dort", f"the cat number {i} sleeps") for i in range(200)]
    winner = train_tokenizer(pairs, tmp_path / "other", vocab_size=70).model_proto  # stands for the other job's
    real_train = spm.SentencePieceTrainer.train
    cache = tmp_path / "cache"
    final = cached_model_path(pairs, cache, vocab_size=60)

    def train_then_other_job_saves(**kwargs):  # the other job saves while ours is still training
        real_train(**kwargs)
        final.write_bytes(winner)

    monkeypatch.setattr(spm.SentencePieceTrainer, "train", train_then_other_job_saves)
    ours = train_tokenizer(pairs, cache, vocab_size=60)
    assert ours.model_proto == winner
    assert final.read_bytes() == winner
    assert list(cache.iterdir()) == [final]  # our copy is gone
