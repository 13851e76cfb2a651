"""bench/spark_profile.py gives each JFR stack sample to the plan part its frames name."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from spark_profile import part_of, shares  # noqa: E402

#: frames as ``task_stacks`` writes them: the class name without its package, the method
STAGE = "GeneratedClass$GeneratedIteratorForCodegenStage"
PROJECTION = "GeneratedClass$SpecificUnsafeProjection.apply"
TASK = ["BufferedRowIterator.hasNext", "Executor$TaskRunner.run", "Thread.run"]


@pytest.mark.parametrize(
    ("frames", "part"),
    [
        # a parse inside a projection inside stage 2: the parse
        (
            [
                "ReaderBasedJsonParser._parseName",
                "JsonToStructsEvaluator.evaluate",
                PROJECTION,
                STAGE + "2.processNext",
                *TASK,
            ],
            "from_json",
        ),
        # the Parquet reader under stage 1: the scan
        (
            [
                "VectorizedPlainValuesReader.readBinary",
                STAGE + "1.columnartorow_nextBatch_0$",
                STAGE + "1.processNext",
                *TASK,
            ],
            "scan",
        ),
        # a row copy of a projection that stage 3 pulls rows through: the projection
        (
            ["UnsafeRowWriter.write", PROJECTION, STAGE + "3.processNext", *TASK],
            "projection",
        ),
        # stage 2's own expressions, in stage 3's pull: the innermost stage
        (
            [
                "UTF8String.concat",
                STAGE + "2.project_subExpr_1$",
                STAGE + "2.processNext",
                STAGE + "3.processNext",
                *TASK,
            ],
            "stage 2",
        ),
        (["NoopWriter.write", *TASK], "other"),
    ],
)
def test_part_of_names_the_innermost_part(frames: list[str], part: str) -> None:
    assert part_of(frames) == part


def test_shares_are_fractions_of_all_samples() -> None:
    stacks = [
        ["JsonToStructsEvaluator.evaluate"],
        ["JsonToStructsEvaluator.evaluate"],
        [STAGE + "1.processNext"],
        ["Thread.run"],
    ]
    assert shares(stacks) == {"from_json": 0.5, "stage 1": 0.25, "other": 0.25}
    assert shares([]) == {}
