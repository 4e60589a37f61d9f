"""The trainer plug-in: encoding pictures at the start and the end, attention maps of the probes at every
validation (the trainer always validates at the end). The test report itself (`by_length`) is made by
translate.cli.train after loading best.pt."""
from __future__ import annotations

from typing import Optional

from translate.analysis.run.report_split import log_pictures, probes_for
from translate.analysis.run.settings import ReportSettings
from translate.data.pipeline import TokenizedSplit
from translate.decoding.translator import Translator


class LengthReport:
    def __init__(self, settings: ReportSettings, translator: Translator, writer: Optional[object],
                 probe_split: TokenizedSplit) -> None:
        """probe_split: the test split, so that the pictures follow the sentences the final report scores."""
        self.settings, self.translator, self.writer, self.probe_split = settings, translator, writer, probe_split
        self.probes: list = []

    def on_start(self, step: int) -> None:
        self.probes = probes_for(self.settings, self.translator, self.probe_split)
        log_pictures(self.settings, self.translator, [], self.writer, step, encoding=True)

    def on_validate(self, step: int) -> None:
        log_pictures(self.settings, self.translator, self.probes, self.writer, step, encoding=False)

    def on_end(self, step: int) -> None:
        log_pictures(self.settings, self.translator, [], self.writer, step, encoding=True)
