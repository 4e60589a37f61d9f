"""Length extrapolation against published results: the encodings trained on short sentences only, each against
sinusoidal (same data, seed and step), on the lengths they were trained on and on a test set whose sentences are all
longer than any training sentence, read against what three papers report:

- Rosendahl et al. 2019 (IWSLT, "Analysis of Positional Encodings for Neural Machine Translation"): relative
  encodings tie with absolute ones on the lengths trained on and lead by 4.4-11.9 BLEU on longer sentences;
- Neishi & Yoshinaga 2019 (CoNLL): absolute positions overfit the training lengths;

- Variš & Bojar 2021 (EMNLP): the drop beyond the training lengths comes from hypotheses that keep the training
  lengths;

with the length ratio beside every BLEU, and beside each BLEU gap beyond the training lengths the Δ of the length
ratio, so that a model that stops where it was trained to stop is told from one that writes worse words or orders
them worse.

An encoding's kind (absolute, relative, both, none) is read from the contracts its class fulfils, never its name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from translate.analysis.significance import interval_text
from translate.analysis.sweep.aggregate import ALL, Report
from translate.analysis.sweep.jobs import Job
from translate.analysis.sweep.plan import planned_but_missing
from translate.analysis.sweep.rows import Delta, ReportRow
from translate.analysis.sweep.rules import interim_text, pending, verdict_word
from translate.analysis.sweep.cells import comparison_cell, markdown_table, number, worded_cell
from translate.assembly.builders import encoding_class



@dataclass(frozen=True)
class Finding:
    source: str
    says: str


SMALLEST_REPORTED_LEAD, LARGEST_REPORTED_LEAD = 4.4, 11.9   # BLEU: Rosendahl et al.'s lead beyond the training lengths
ROSENDAHL = Finding("Rosendahl et al. 2019 (IWSLT, \"Analysis of Positional Encodings for Neural Machine "
                    "Translation\")", "relative encodings tie with absolute ones on the lengths trained on and lead "
                    f"by {SMALLEST_REPORTED_LEAD}-{LARGEST_REPORTED_LEAD} BLEU on sentences longer than any "
                    "training sentence")
NEISHI = Finding("Neishi & Yoshinaga 2019 (CoNLL)", "absolute positions overfit the training lengths")
VARIS = Finding("Variš & Bojar 2021 (EMNLP)", "the drop beyond the training lengths comes from hypotheses that keep "
                "the training lengths")


def encoding_kinds(jobs: list[Job]) -> dict[str, str]:
    """{encoding name: its kind}, as each finished job's metrics.json records it (`encoding_kind`); for jobs from
    before it was recorded, from the class their config names (`encoding._target_`, within translate.encodings)."""
    kinds = {}
    for job in jobs:
        if job.metrics is not None and job.metrics.encoding_kind:
            kinds[job.settings.encoding] = job.metrics.encoding_kind
        elif (found := encoding_class(job.config.get("encoding._target_"))) is not None:
            kinds[job.settings.encoding] = found.position_kind()
    return kinds


@dataclass
class Columns:
    """The buckets the section reads: in range (the trained lengths of the first test set that has them) and beyond
    (every bucket of the first test set whose sentences are all beyond the training lengths)."""

    in_range: list[tuple[str, str]]
    beyond: list[tuple[str, str]]
    long_set: Optional[str]

    @classmethod
    def of(cls, rows: list[ReportRow]) -> "Columns":
        buckets = [r for r in rows if r.bucket != ALL]
        sets = list(dict.fromkeys(r.test_set for r in buckets))
        all_beyond = [s for s in sets if {r.lengths for r in buckets if r.test_set == s} == {"beyond"}]
        long_set = all_beyond[0] if all_beyond else None
        # in range: the first test set (the primary one) that holds trained lengths, the same domain as training
        primary = next((t for t in sets if t != long_set and any(r.lengths == "trained" for r in buckets
                                                                  if r.test_set == t)), None)
        in_range = list(dict.fromkeys((r.test_set, r.bucket) for r in buckets
                                      if r.lengths == "trained" and r.test_set == primary))
        beyond = list(dict.fromkeys((r.test_set, r.bucket) for r in sorted(buckets, key=lambda r: r.low or 0)
                                    if r.test_set == long_set))
        return cls(in_range, beyond, long_set)


def score_text(row: Optional[ReportRow]) -> str:
    """"35.67 ± 0.41, ratio 0.97": mean BLEU over seeds, the SD between them, the length ratio."""
    if row is None or row.bleu.value is None:
        return "–"
    spread = f" ± {row.bleu.std:.2f}" if row.bleu.std is not None and (row.seeds or 1) > 1 else ""
    return f"{row.bleu.value:.2f}{spread}, ratio {number(row.length_ratio)}"


def word_of(row: Optional[ReportRow], margin: float) -> Optional[str]:
    d = row.compared.bleu if row is not None else None
    if d is None or d.delta is None:
        return None
    return verdict_word(d, bool(row.decides), margin)


def deciding_words(words: Sequence[Optional[str]]) -> list[str]:
    """The words of the buckets that decide (not "too few", not missing)."""
    return [w for w in words if w not in (None, "too few")]


def level_within(in_range: Sequence[Optional[str]]) -> bool:
    """Level on the trained lengths: some bucket decides there, and every one that does is about the same."""
    level = deciding_words(in_range)
    return bool(level) and all(w == "about the same" for w in level)


def direction(in_range: list[Optional[str]], beyond: list[Optional[str]],
              beyond_deltas: Sequence[Optional[Delta]] = ()) -> str:
    """What the words say of Rosendahl et al.'s direction: ahead beyond the training lengths (and by how much: the
    Δs of the deciding buckets there), level within them. The buckets that decide are counted, so one inconclusive
    bucket does not hide the others."""
    deciding = deciding_words(beyond)
    if not deciding:
        return "not measured (no bucket beyond the training lengths decides)"
    ahead, behind = deciding.count("better"), deciding.count("worse")
    of = f"of the {len(deciding)} deciding bucket{'s' * (len(deciding) != 1)} beyond the training lengths"
    reading = (f"the published direction: ahead on {ahead} {of}, behind on none" if ahead and not behind else
               f"the opposite direction: behind on {behind} {of}, ahead on none" if behind and not ahead else
               f"mixed: ahead on {ahead} and behind on {behind} {of}" if ahead else
               f"about the same on each {of}" if all(w == "about the same" for w in deciding) else
               f"neither ahead nor behind shown on any {of}")
    level = deciding_words(in_range)
    tie = ("level within them, as reported" if level_within(in_range) else
           f"within them: {', '.join(level)} (reported: a tie)" if level else "within them: not measured")
    return f"{reading}{lead_ruled_out(beyond_deltas)}; {tie}"


def lead_ruled_out(deltas: Sequence[Optional[Delta]]) -> str:
    """Whether the published size of the lead fits this corpus: on how many deciding buckets beyond the training
    lengths the smallest reported lead lies above Δ's 95% interval ("" when no bucket has an interval)."""
    highs = [d.high for d in deltas if d is not None and d.high is not None]
    if not highs:
        return ""
    above = sum(high < SMALLEST_REPORTED_LEAD for high in highs)
    return (f"; a lead as large as the smallest reported (+{SMALLEST_REPORTED_LEAD} BLEU) lies above the 95% interval "
            f"on {above} of {len(highs)}")


def overfitting_shown(in_range: list[Optional[str]], beyond: list[Optional[str]]) -> bool:
    """What Neishi & Yoshinaga's finding predicts of a relative encoding against an absolute baseline: ahead on some
    deciding bucket beyond the training lengths and behind on none, about the same on every deciding bucket within
    them."""
    return "better" in beyond and "worse" not in beyond and level_within(in_range)


def falls_short(in_range: Optional[float], beyond: Sequence[Optional[float]]) -> str:
    """"1.00 → 0.86, 0.70": the length ratio on the trained lengths, then on each bucket beyond them."""
    return f"{number(in_range)} → {', '.join(number(r) for r in beyond) or '–'}"


def shortfall(ratios: dict[str, tuple[Optional[float], list[Optional[float]]]]) -> str:
    """Whether every encoding's outputs are shorter on each bucket beyond the training lengths than on the lengths
    trained on, as Variš & Bojar report."""
    measured = {s: (inside, [r for r in beyond if r is not None]) for s, (inside, beyond) in ratios.items()
                if inside is not None and any(r is not None for r in beyond)}
    if not measured:
        return "not measured"
    short = [s for s, (inside, beyond) in measured.items() if all(r < inside for r in beyond)]
    if len(short) == len(measured):
        return (f"as reported, every encoding's outputs are shorter on each bucket beyond the training lengths than "
                f"on them (beyond: {number(min(min(b) for _, b in measured.values()))}-"
                f"{number(max(max(b) for _, b in measured.values()))})")
    return (f"outputs shorter on each bucket beyond the training lengths for {len(short)} of {len(measured)} "
            f"encodings{': ' + ', '.join(short) if short else ''}")


def length_gap(ratio: Optional[Delta]) -> str:
    """"ratio -0.041 [-0.055, -0.027], shorter": the Δ of the length ratio and what its 95% interval shows."""
    if ratio is None or ratio.delta is None or ratio.low is None or ratio.high is None:
        return "no Δ of the length ratio"
    shown = ("shorter" if ratio.high < 0 else "longer" if ratio.low > 0 else "no length difference shown")
    return f"ratio {interval_text(ratio.delta, ratio.low, ratio.high, 3)}, {shown}"


def length_reading(setting: str, beyond: list[tuple[str, Optional[ReportRow]]], margin: float) -> Optional[str]:
    """Each deciding bucket beyond the training lengths where BLEU is shown better or worse, with the Δ of the
    length ratio: "11-17: BLEU worse, ratio -0.041 [-0.055, -0.027], shorter"; None when no such bucket."""
    gaps = [(bucket, row, word_of(row, margin)) for bucket, row in beyond]
    parts = [f"{bucket}: BLEU {word}, {length_gap(row.compared.length_ratio)}"
             for bucket, row, word in gaps if row is not None and word in ("better", "worse")]
    return f"{setting}: {'; '.join(parts)}" if parts else None


def missing_text(jobs: list[Job]) -> str:
    """" Planned and not in these runs yet: rope, alibi." (plan.planned_but_missing), or nothing."""
    missing = planned_but_missing([job.path for job in jobs], "+sweep/pe")
    return f" Planned by its sweep and not in these runs yet: {', '.join(missing)}." if missing else ""


def waiting_of(rows: list[ReportRow]) -> dict[str, str]:
    """{setting: "pending: 1 of 3 planned seeds"} for each setting compared at fewer seeds than its sweep planned
    (rules.pending, on any of its rows): its figures are an interim look, shown without p, star or word."""
    waiting = {}
    for row in rows:
        text = pending(row) if row.compared.bleu is not None else None
        if text and row.setting not in waiting:
            waiting[row.setting] = text
    return waiting


def delta_cell(row: Optional[ReportRow], waiting: Optional[str], margin: float) -> str:
    """Δ with its interval, p, star and word; for a pending setting Δ and its interval only, marked interim."""
    if row is None:
        return "–"
    if waiting and row.compared.bleu is not None and row.compared.bleu.delta is not None:
        return f"{comparison_cell(row.compared.bleu, decides=False)} interim"
    return worded_cell(row.compared.bleu, row.decides, margin)


@dataclass
class Comparisons:
    """The report as the section reads it: each (setting, test set, bucket) row, the columns in range and beyond,
    each encoding's kind, the settings pending more seeds and those compared with the baseline."""

    report: Report
    columns: Columns
    cell: dict[tuple[str, str, str], ReportRow]
    settings: list[str]
    kind: dict[str, str]               # setting -> absolute, relative, ... ("?" when its class is unknown)
    waiting: dict[str, str]            # setting -> "pending: 2 of 3 planned seeds"
    compared: set[str]                 # every setting with a Δ: all but the baseline

    @classmethod
    def of(cls, report: Report, jobs: list[Job]) -> "Comparisons":
        rows = [r for r in report.rows if r.bucket != ALL]
        kinds = encoding_kinds(jobs)
        encodings = {r.setting: r.encoding for r in report.rows}
        settings = list(dict.fromkeys(r.setting for r in report.rows if r.bucket == ALL))
        return cls(report, Columns.of(rows), {(r.setting, r.test_set, r.bucket): r for r in rows}, settings,
                   {s: kinds.get(encodings[s], "?") for s in settings}, waiting_of(report.rows),
                   {r.setting for r in rows if r.compared.bleu is not None})

    @property
    def margin(self) -> float:
        return self.report.rules.margin

    @property
    def baseline(self) -> str:
        return self.report.baseline or "the baseline"

    def row(self, setting: str, key: tuple[str, str]) -> Optional[ReportRow]:
        return self.cell.get((setting, *key))

    def table(self, scores: bool = True) -> list[str]:
        """One line per encoding: per bucket in range and beyond, its BLEU (scores=True) and its Δ."""
        header = ["encoding", "kind", "seeds"]
        for test_set, bucket in self.columns.in_range + self.columns.beyond:
            header += ([f"`{test_set}` {bucket}", "Δ BLEU"] if scores else [f"Δ BLEU `{test_set}` {bucket}"])
        lines = []
        for setting in self.settings:
            seeds = str(next((r.seeds for (s, _, _), r in self.cell.items() if s == setting), "–"))
            line = [setting, self.kind[setting], self.waiting.get(setting, seeds)]
            for key in self.columns.in_range + self.columns.beyond:
                row = self.row(setting, key)
                line += ([score_text(row)] if scores else []) + [delta_cell(row, self.waiting.get(setting),
                                                                            self.margin)]
            lines.append(line)
        return markdown_table(header, lines)

    def readings(self) -> list[str]:
        """What each published finding predicts and what this corpus shows."""
        return self.rosendahl() + self.neishi() + self.varis()

    def rosendahl(self) -> list[str]:
        lines = [f"- {ROSENDAHL.source}: {ROSENDAHL.says}. Against {self.baseline}:"]
        relative = [s for s in self.settings if "relative" in self.kind[s]]
        for setting in relative:
            if setting not in self.compared:
                lines.append(f"  - {setting}: not compared (no Δ: tested at another step than its baseline, or no "
                             "baseline job with its seed; see the notes).")
            elif setting in self.waiting:
                lines.append(f"  - {setting} ({self.kind[setting]}): {interim_text(self.waiting[setting])}.")
            else:
                beyond = [self.row(setting, key) for key in self.columns.beyond]
                deciding = [row.compared.bleu for row in beyond if row is not None and row.decides]
                words = direction(self.words(setting, self.columns.in_range),
                                  self.words(setting, self.columns.beyond), deciding)
                lines.append(f"  - {setting} ({self.kind[setting]}): {words}.")
        return lines + ([] if relative else ["  - no relative encoding ran here."])

    def neishi(self) -> list[str]:
        """How many relative encodings show what the finding predicts (ahead of the absolute baseline beyond the
        training lengths, level within them), then each other absolute encoding against the baseline, bucket by
        bucket."""
        decided = [s for s in self.settings if "relative" in self.kind[s] and s in self.compared
                   and s not in self.waiting]
        agree = [s for s in decided if overfitting_shown(self.words(s, self.columns.in_range),
                                                          self.words(s, self.columns.beyond))]
        lines = [f"- {NEISHI.source}: {NEISHI.says}. If so, a relative encoding is ahead of the absolute baseline "
                 "beyond the training lengths and level within them: "
                 + (f"{len(agree)} of the {len(decided)} decided here ({', '.join(decided)}) show that"
                    f"{': ' + ', '.join(agree) if agree else ''}." if decided else "no relative encoding decided here.")
                 + " Another absolute encoding against the baseline:"]
        absolute = [s for s in self.settings if self.kind[s] == "absolute" and s in self.compared]
        for setting in absolute:
            if setting in self.waiting:
                lines.append(f"  - {setting}: {interim_text(self.waiting[setting])}.")
                continue
            lines.append(f"  - {setting}: beyond the training lengths {self.bucket_words(setting, self.columns.beyond)}"
                         f"; within them {self.bucket_words(setting, self.columns.in_range)}.")
        return lines + ([] if absolute else ["  - none ran here."])

    def words(self, setting: str, keys: list[tuple[str, str]]) -> list[Optional[str]]:
        """The report's word (better, worse, about the same, inconclusive, too few) in each bucket, None if no Δ."""
        return [word_of(self.row(setting, key), self.margin) for key in keys]

    def bucket_words(self, setting: str, keys: list[tuple[str, str]]) -> str:
        """"11-17 worse, 18-20 inconclusive, 31+ too few": each bucket's word, or "not measured"."""
        named = [f"{bucket} {word}" for (_, bucket), word in zip(keys, self.words(setting, keys)) if word]
        return ", ".join(named) or "not measured"

    def varis(self) -> list[str]:
        """Every encoding's length ratio on the trained lengths and beyond them; then, for each BLEU gap beyond
        them, whether the outputs are shorter or longer than the baseline's (the Δ of the length ratio)."""
        columns = self.columns
        in_range = columns.in_range[-1] if columns.in_range else None   # the longest trained lengths
        if not in_range or not columns.long_set:
            return [f"- {VARIS.source}: {VARIS.says}. Not measured here (no test set holds only longer sentences)."]

        def ratio(setting: str, key: tuple[str, str]) -> Optional[float]:
            row = self.row(setting, key)
            return row.length_ratio if row is not None else None
        ratios = {s: (ratio(s, in_range), [ratio(s, key) for key in columns.beyond]) for s in self.settings}
        falls = [f"{s} {falls_short(*ratios[s])}" for s in self.settings]
        lines = [f"- {VARIS.source}: {VARIS.says}. Length ratio (output words per reference word, mean over seeds) "
                 f"on `{in_range[0]}` {in_range[1]}, then on each bucket of `{columns.long_set}`: "
                 f"{'; '.join(falls)}: {shortfall(ratios)}.",
                 "  Where BLEU is shown better or worse beyond the training lengths, the Δ of the length ratio against "
                 "the baseline (95% interval; descriptive, in no Holm family): shorter outputs point to a gap in where "
                 "the model stops; no length difference, to one in which words it writes and in what order:"]
        readings = []
        for setting in (s for s in self.settings if s in self.compared):
            if setting in self.waiting:
                readings.append(f"  - {setting}: {interim_text(self.waiting[setting])}.")
                continue
            reading = length_reading(setting, [(key[1], self.row(setting, key)) for key in columns.beyond],
                                     self.margin)
            readings.append(f"  - {reading}." if reading else f"  - {setting}: no BLEU gap shown beyond the "
                            "training lengths.")
        return lines + (readings or ["  - no encoding compared here."])


def published_section(report: Report, jobs: list[Job], folder: str) -> list[str]:
    """`## Length extrapolation against published results`: the table per encoding and, per published finding, the
    direction this corpus shows."""
    view = Comparisons.of(report, jobs)
    lines = ["## Length extrapolation against published results", "",
             f"From `{folder}`: every encoding trained on the same short sentences, against {report.baseline or '–'} "
             "with the same seed, tested at the same step. In range: the lengths trained on"
             + (f"; beyond: every bucket of `{view.columns.long_set}`, whose sentences are all longer than any "
                "training sentence" if view.columns.long_set else "; no test set here holds only longer sentences")
             + ". BLEU is the mean over seeds ± the SD between them, with the length ratio (output words per "
             "reference word: below 1 the model stops early); Δ against the baseline with its 95% interval and the "
             "report's word. Where both score near 0, \"about the same\" says only that both fail. An encoding with "
             "fewer seeds than its sweep planned is pending: its Δ is an interim look, shown without p, star or word."
             + missing_text(jobs), ""]
    lines += view.table() + [""]
    lines += ["### What the published results predict, and what this corpus shows", ""] + view.readings()
    return lines + [""]


def published_readme_lines(report: Report, jobs: list[Job], folder: str) -> list[str]:
    """The README's block: the section's Δs (no scores) and its readings, as on the page."""
    view = Comparisons.of(report, jobs)
    return ([f"From `{folder}` ([docs/encodings_results.md](docs/encodings_results.md) has each BLEU with its SD "
             f"between seeds and length ratio). Δ against {view.baseline} with the same seed, 95% interval, * Holm-"
             "adjusted p < 0.05 within the test set's tests." + missing_text(jobs), ""]
            + view.table(scores=False) + [""] + view.readings())
