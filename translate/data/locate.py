"""Find corpus files: data.path, then $TRANSLATE_DATA_DIR, then ../shared/data, then data/, then download."""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

REPO_ROOT = Path(__file__).resolve().parents[2]
ENV_VAR = "TRANSLATE_DATA_DIR"


class CorpusNotFound(FileNotFoundError):
    pass


@dataclass(frozen=True)
class RemoteFile:
    """One file of a corpus: its path under the corpus folder, public URL and sha256 (None: not checked)."""

    relative_path: str
    url: str
    sha256: Optional[str] = None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def candidate_dirs(corpus: str) -> list[tuple[str, Path]]:
    """(how it was found, folder) in search order, after data.path."""
    places = []
    if os.environ.get(ENV_VAR):
        places.append((f"${ENV_VAR}", Path(os.environ[ENV_VAR]) / corpus))
    places.append(("../shared/data", REPO_ROOT.parent / "shared" / "data" / corpus))
    places.append(("data/", REPO_ROOT / "data" / corpus))
    return places


def download(remote: RemoteFile, target: Path) -> None:
    """Download to a temporary file, check sha256, then rename into place (never a half file)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(remote.url, timeout=60) as response:
            shutil.copyfileobj(response, out)
        got = sha256_of(Path(tmp))
        if remote.sha256 and got != remote.sha256:
            raise CorpusNotFound(f"{remote.url} has sha256 {got}, expected {remote.sha256}; the public release may "
                                 f"have changed. Put the expected file under a folder given by data.path.")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def locate_corpus(corpus: str, files: list[RemoteFile], data_path: Optional[str] = None,
                  allow_download: bool = True) -> Path:
    """The folder holding every file of `files` for `corpus`, downloading them into data/ as a last resort."""
    if data_path:
        path = Path(data_path).expanduser()
        if not path.exists():
            raise CorpusNotFound(f"data.path={data_path!r} does not exist; give a folder holding "
                                 f"{[f.relative_path for f in files]} or remove data.path to search the defaults.")
        folder = path.parent if path.is_file() else path
        missing = [f.relative_path for f in files if not (folder / f.relative_path).exists()]
        if missing:
            raise CorpusNotFound(f"data.path={data_path!r} lacks {missing} for corpus {corpus!r}.")
        return folder
    looked = []
    for how, folder in candidate_dirs(corpus):
        looked.append(f"{how} ({folder})")
        if all((folder / f.relative_path).exists() for f in files):
            return folder
    target = REPO_ROOT / "data" / corpus
    if allow_download:
        try:
            for remote in files:
                if not (target / remote.relative_path).exists():
                    download(remote, target / remote.relative_path)
            return target
        except CorpusNotFound:
            raise
        except OSError as error:
            looked.append(f"download from {files[0].url} ({error})")
    raise CorpusNotFound(
        f"corpus {corpus!r} not found. Looked in: " + "; ".join(looked) +
        f". Fix: pass data.path=/folder/with/{files[0].relative_path}, or set {ENV_VAR}=/folder holding "
        f"{corpus}/, or connect to the internet so it can be downloaded into data/{corpus}/.")
