"""Run every benchmark script in bench/ one after another (``make bench``).

``spark_codegen_sizes.py`` (it takes catalogs as arguments) and ``spark_profile.py`` (it
needs the JDK's ``jcmd`` and ``jfr``) are diagnostic tools, not benchmarks, and are not run
here.
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [
    "bench_generate.py",
    "bench_package.py",
    "bench_codecs.py",
    "bench_dispatch.py",
    "bench_endpoints.py",
    "bench_serve.py",
    "bench_brokers.py",
    "bench_templates.py",
    "bench_spark.py",
    "spark_ablation.py",
    "bench_diff.py",
    "bench_export.py",
    "bench_formats.py",
    "bench_jsonstructure.py",
    "bench_otel.py",
]
for script in SCRIPTS:
    if (HERE / script).exists():
        print(f"== {script}", flush=True)
        subprocess.run([sys.executable, str(HERE / script), *sys.argv[1:]], check=False)
