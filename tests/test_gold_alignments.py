"""The human gold alignment: French contractions restored as written, each gold link moved onto the written word
that holds its part, Sure links inside Possible, and bad files refused with the file and line."""
from __future__ import annotations

import pytest

from translate.data.gold_alignments import read_gold, restore_contractions


@pytest.mark.parametrize("gold, written", [
    ("parler de le droit de le fournisseur", "parler du droit du fournisseur"),
    ("la distribution de les produits", "la distribution des produits"),
    ("à le égard de la négociation", "à l'égard de la négociation"),     # the article elides: no "au"
    ("de le expérience", "de l'expérience"),
    ("à le ordre , à les députés", "à l'ordre , aux députés"),
    ("je en ai assez", "j'en ai assez"),
    ("ce ne est pas que il pleut", "ce n'est pas qu'il pleut"),
    ("ce est si il veut", "c'est s'il veut"),
    ("le homme le voit", "l'homme le voit"),                               # h elides (an aspirated h would not)
    ("je le ai dit", "je l'ai dit"),
    ("monsieur le Orateur", "monsieur l'Orateur"),
])
def test_contractions_are_restored_as_french_writes_them(gold, written):
    words, word_of = restore_contractions(gold.split())
    assert " ".join(words) == written
    assert len(word_of) == len(gold.split()) and word_of == sorted(word_of) and word_of[-1] == len(words) - 1


def test_each_gold_token_maps_to_the_written_word_that_holds_it():
    words, word_of = restore_contractions("je en ai assez de le droit".split())
    assert words == ["j'en", "ai", "assez", "du", "droit"]
    assert word_of == [0, 0, 1, 2, 3, 3, 4]


def write_gold(folder, fr, en, links):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trial.fr").write_text("\n".join(fr) + "\n", encoding="utf-8")
    (folder / "trial.en").write_text("\n".join(en) + "\n", encoding="utf-8")
    (folder / "trial.wa.nonullalign").write_text("\n".join(links) + "\n", encoding="utf-8")


def test_links_move_onto_written_words_and_a_sure_link_stays_sure(tmp_path):
    # "je en ai faim" -> "j'en ai faim": English 1 "I" is linked Sure to "je" and Possible to "en": one link, Sure
    write_gold(tmp_path, ["je en ai faim .", "oui ."], ["I am hungry .", "yes ."],
               ["0001 1 1 S", "0001 1 2 P", "0001 2 3 P", "0001 3 4 S", "0001 4 5 S", "0002 1 1 S", "0002 2 2 S"])
    first, second = read_gold(tmp_path, "trial")
    assert first.french == "j'en ai faim ." and first.english == "I am hungry ."
    assert first.sure == {(0, 0), (2, 2), (3, 3)}
    assert first.possible == first.sure | {(1, 1)}
    assert second.sure == second.possible == {(0, 0), (1, 1)}


def test_a_bad_gold_file_is_refused_naming_file_line_and_what_is_allowed(tmp_path):
    write_gold(tmp_path, ["oui ."], ["yes ."], ["0001 1 1 X"])
    with pytest.raises(ValueError, match=r"trial.wa.nonullalign:1: expected 'sentence english french S\|P'"):
        read_gold(tmp_path, "trial")
    write_gold(tmp_path, ["oui ."], ["yes ."], ["0001 3 1 S"])
    with pytest.raises(ValueError, match="sentence 1 links English 3 and French 1, beyond its 2 and 2 tokens"):
        read_gold(tmp_path, "trial")
    with pytest.raises(ValueError, match="split 'dev' is not one of trial, test"):
        read_gold(tmp_path, "dev")


def test_the_shared_gold_set_reads_whole():
    from translate.data.locate import candidate_dirs

    folder = next((path for _, path in candidate_dirs("hansards_align") if (path / "test.wa.nonullalign").exists()),
                  None)
    if folder is None:
        pytest.skip("hansards_align is not in the data folder")
    test, trial = read_gold(folder, "test"), read_gold(folder, "trial")
    assert (len(test), len(trial)) == (447, 37)
    assert all(p.sure <= p.possible for p in test + trial)
    words = [w for p in test for w in p.french.split()]
    assert "du" in words and "l'Orateur" in words and not any(w in ("de", "à") for w, _ in
                                                              zip(words, words[1:]) if _ in ("le", "les"))
