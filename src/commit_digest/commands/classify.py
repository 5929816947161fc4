"""`classify`: platforms and subsystems for JSON Lines on stdin, one JSON line out per line in."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from commit_digest.commands.common import add_common_options, settings_from_args
from commit_digest.errors import InputError
from commit_digest.meaning.taxonomy import classify, load_taxonomy


class ClassifyInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str
    message: str = ""
    files: list[str] = []


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "classify",
        help="label JSON Lines from stdin with platforms and subsystems",
        description='Reads lines like {"title": ..., "message": ..., "files": [paths]} (message and files '
        'optional) and prints {"platforms": [...], "subsystems": [...], "reasons": {...}} for each.',
    )
    add_common_options(parser)
    parser.set_defaults(handler=run_classify)


def run_classify(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    taxonomy = load_taxonomy(settings.taxonomy, settings.taxonomy_file)
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            item = ClassifyInput.model_validate_json(line)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "(line)"
            raise InputError(f"<stdin>:{number}: {where}: {first['msg']}") from error
        result = classify(item.title, item.message, item.files, taxonomy)
        output = {
            "platforms": [label.id for label in result.platforms],
            "subsystems": [label.id for label in result.subsystems],
            "reasons": result.reasons,
        }
        print(json.dumps(output, ensure_ascii=False), flush=True)
    return 0
