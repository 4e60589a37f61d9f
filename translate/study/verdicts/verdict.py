"""A verdict as a record: what a claim or control decided (its status, its halves and their readings, the Holm
family its stars were adjusted over, the PE it was read against), apart from the claims' decisions (claims.py) and
their wording (wording.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from translate.analysis.significance import holm
from translate.analysis.sweep.rows import RowSetting
from translate.analysis.sweep.rules import EXPLORATORY


LEVEL = 0.05

HOLDS, CONTRADICTED, INCONCLUSIVE, NOT_RUN = "holds", "contradicted", "inconclusive", "not run"



@dataclass
class Verdict:
    claim: str
    # supported, not supported as stated, inconclusive, not measured, a pending text; a control: its own word
    status: str = "not measured"
    details: list[str] = field(default_factory=list)   # the lines behind the verdict, as the page shows them
    family: str = ""                # what its stars were adjusted over
    halves: list["Half"] = field(default_factory=list)
    control: str = ""               # a control's ablation; its deciding readings in `shown` (a control has no halves)
    shown: list["Reading"] = field(default_factory=list)
    # what the metrics shown beside a deciding one say where they say otherwise ("diagonal share: no PE aligns
    # worse on long sentences, the gap shrinks from short to long"): a verdict names them wherever it is summarised
    dissent: list[str] = field(default_factory=list)

    @property
    def headline(self) -> str:
        """"supported", or with halves "not supported as stated (short half contradicted, long half holds)"; a
        pending claim with halves: "pending (short half holds, long half pending: 1 of 8 planned seeds)", its seeds
        said once, by the half that waits for them."""
        if not self.halves:
            return self.status
        status = "pending" if self.status.startswith("pending") else self.status
        return f"{status} ({halves_text(self.halves)})"

    def add(self, text: str) -> None:
        self.details.append(text)



@dataclass(frozen=True)
class Reference:
    """The PE a claim is read against: sinusoidal (the notes' own) or another encoding used as is, so the page can
    say whether (b) and (c) hold for PE in general or for sinusoidal PE only."""

    name: str

    def matches(self, r: RowSetting) -> bool:
        return r.encoding == self.name and r.ablation == "none"



SINUSOIDAL = Reference("sinusoidal")



class Family:
    """The tests that decide one claim on one page: Holm over them, and the stars read the adjusted p."""

    def __init__(self, claim: str) -> None:
        self.claim, self.p_values = claim, []

    def add(self, p: Optional[float]) -> int:
        self.p_values.append(p)
        return len(self.p_values) - 1

    def adjusted(self, index: int) -> Optional[float]:
        return holm(self.p_values)[index]

    def significant(self, index: int) -> bool:
        adjusted = self.adjusted(index)
        return adjusted is not None and adjusted < LEVEL

    def star(self, index: int) -> str:
        return "*" if self.significant(index) else ""

    def describe(self) -> str:
        tests = sum(p is not None for p in self.p_values)
        if not tests:
            return ""
        name = self.claim if self.claim.startswith("control") else f"claim {self.claim}"   # "claim (a)", "control X"
        return f"* Holm-adjusted p < {LEVEL} over the {tests} test{'s' * (tests != 1)} of {name} on this page"



@dataclass(frozen=True)
class Condition:
    """A half's extra condition, beside the half's Δ in the README: (b)'s Δ_long − Δ_short, (c)'s change of the gap
    from short to long sentences; in the unit of its reading."""

    label: str                       # e.g. "its condition: Δ_long − Δ_short within each model, paired by seed"
    delta: float
    low: float
    high: float
    met: bool                        # shown in the direction the half needs (after Holm where it decides)



@dataclass
class Reading:
    """One deciding cell of a half: its word and its Δ with the 95% interval, as the README table and the forest
    plot show it, and the half's extra condition where it has one."""

    word: str
    label: str                       # e.g. "`test`, trained on words 1-9"
    delta: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    unit: str = "BLEU"
    relative: Optional[float] = None  # Δ relative to the baseline's score
    condition: Optional[Condition] = None

    @property
    def digits(self) -> int:
        """Two decimals for BLEU, three for an alignment metric."""
        return 2 if self.unit == "BLEU" else 3



@dataclass
class Half:
    """One half of a claim: what it says, and its readings (none: not run)."""

    name: str                        # "short", "long"
    readings: list[Reading] = field(default_factory=list)

    @property
    def word(self) -> str:
        words = [r.word for r in self.readings]
        if not words:
            return NOT_RUN
        waiting = [w for w in words if w.startswith("pending")]
        if waiting:
            return waiting[0]
        if CONTRADICTED in words:
            return CONTRADICTED
        if all(w == HOLDS for w in words):
            return HOLDS
        return EXPLORATORY if all(w == EXPLORATORY for w in words) else INCONCLUSIVE



def claim_status(halves: list[Half]) -> str:
    """supported / not supported as stated / inconclusive, or the first half's pending text."""
    words = [h.word for h in halves]
    waiting = [w for w in words if w.startswith("pending")]
    if waiting:
        return waiting[0]
    if all(w == NOT_RUN for w in words):
        return "not measured"
    if all(w == HOLDS for w in words):
        return "supported"
    return "not supported as stated" if CONTRADICTED in words else "inconclusive"



def halves_text(halves: list[Half]) -> str:
    """"short half holds, long half not run": each half's word, in the claim's order."""
    return ", ".join(f"{h.name} half {h.word}" for h in halves)
