"""Run every benchmark script in bench/ one after another (``make bench``)."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for script in ["bench_generate.py", "bench_codecs.py", "bench_dispatch.py", "bench_spark.py", "bench_formats.py"]:
    if (HERE / script).exists():
        print(f"== {script}", flush=True)
        subprocess.run([sys.executable, str(HERE / script), *sys.argv[1:]], check=False)
