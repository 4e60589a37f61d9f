"""The results page says how good the silver links are, from the committed check against the human gold links."""
from __future__ import annotations

import json

from translate.study.pages.results import silver_check_lines


def test_the_silver_links_gold_aer_is_on_the_page_per_bucket(tmp_path):
    check = tmp_path / "silver_against_gold.json"
    check.write_text(json.dumps({"split": "test", "pairs": 447, "aligner_trained_on": 136817, "aer": 0.1408,
                                 "buckets": {"1-10": {"pairs": 111, "aer": 0.1098},
                                             "11-17": {"pairs": 144, "aer": 0.1239}}}))
    line, blank = silver_check_lines(check)
    assert line.startswith("**The silver links themselves.** eflomal, trained as the runs train it (136,817 pairs), "
                           "scores AER 0.141 against the human gold alignment of 447 Hansards pairs")
    assert "1-10 words 0.110 (111 pairs); 11-17 words 0.124 (144 pairs)" in line and blank == ""
    assert silver_check_lines(None) == []
