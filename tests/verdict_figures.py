"""The verdicts that print figures the tests check, as learners' functions: the same text must come out of every
Python a learner runs, CPython 3.11 to 3.13 and the page's Pyodide (tests/site/test_site_verdicts_pyodide.py).

Each case is a piece and a learner's whole source, taken from where the tests keep it (no copy here): the reviewed
slips' numerical estimates and the Richardson estimate of the checker tests (their figures once differed between
3.11 and 3.12, where sum() of floats became compensated), the page's 7 written where T belongs (gpt-backprop.md),
and slips whose verdicts name a factor, a value or an amount as a number.
"""

import ast
import json
from pathlib import Path

from reviewed_slips_2 import SLIPS as SECOND
from reviewed_slips_4 import SLIPS as FOURTH

HERE = Path(__file__).parent
IMPORTS = "import math\nfrom microgpt.course.pieces import attention_head_backward, linear_backward, softmax_backward\n"


def _functions(path: Path, *names: str) -> str:
    """The sources of some top-level functions of a test file, in the file's order."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    found = [ast.get_source_segment(text, f) for f in tree.body if isinstance(f, ast.FunctionDef) and f.name in names]
    assert len(found) == len(names), names
    return "\n\n".join(s for s in found if s)


def _as(name: str, source: str, called: str) -> str:
    """A learner's function named as the page names it, from a source whose function has another name."""
    return f"{source}\n\n{name} = {called}\n"


REVIEWED = HERE / "package" / "test_gpt_exercises_reviewed_slips.py"
EXERCISES = HERE / "package" / "test_gpt_exercises.py"

CASES: list[dict[str, str]] = [
    {
        "id": "ce_numeric",
        "ex": "cross_entropy_backward",
        "src": _as("cross_entropy_backward", _functions(REVIEWED, "ce_numeric"), "ce_numeric"),
    },
    {
        "id": "rms_numeric",
        "ex": "rmsnorm_backward",
        "src": _as("rmsnorm_backward", _functions(REVIEWED, "rms_numeric"), "rms_numeric"),
    },
    {
        "id": "sm_numeric",
        "ex": "softmax_backward",
        "src": _as("softmax_backward", _functions(REVIEWED, "softmax_list", "sm_numeric"), "sm_numeric"),
    },
    {
        "id": "richardson-softmax_backward",
        "ex": "softmax_backward",
        "src": _functions(EXERCISES, "_softmax", "_central", "_richardson") + "\n\n\ndef softmax_backward(w, gm):\n"
        "    return _richardson(lambda s: sum(a * b for a, b in zip(gm, _softmax(s))), [math.log(v) for v in w])\n",
    },
    {
        "id": "page_7_where_T_belongs",
        "ex": "cross_entropy_backward",
        "src": "def cross_entropy_backward(p, target, T):\n"
        "    return [(pj - (j == target)) / 7 for j, pj in enumerate(p)]  # 7 where T belongs\n",
    },
    *(s for s in SECOND if s["id"] in ("ce_forgot_log", "rms_layernorm", "rms_eps_1e6")),
    *(s for s in FOURTH if s["id"] in ("ce_divided_by_p_target", "rms_eps_outside_the_power", "head_scores_q_t_k_i")),
]

# A numerical estimate's own numbers are the learner's, computed with exp and log (WebAssembly's libm is not glibc's)
# and sum() (compensated from 3.12), each difference in the last bit amplified a million times by the step 1e-6: on
# another Python its largest difference is truly another number, at another place. What the verdict says of it before
# that line is the same everywhere; the rest is the learner's own number.
ESTIMATES = frozenset({"ce_numeric", "rms_numeric", "sm_numeric", "richardson-softmax_backward"})
LARGEST = "\n The largest difference is at "

# the learner's functions defined as the page defines them, their lines kept, and each checked: the verdicts as JSON
RUN = """
import json, linecache
from microgpt.course import checkers
from microgpt.course.checking import check

said = {}
for case in CASES:
    source, name = IMPORTS + case["src"], "<" + case["id"] + ">"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace = {}
    exec(compile(source, name, "exec"), namespace)
    said[case["id"]] = check(checkers.PIECES[case["ex"]], namespace[case["ex"]]).text
print(json.dumps(said))
"""


def script() -> str:
    """A Python script that prints every case's verdict as JSON, on any Python the package runs on."""
    cases = [{k: case[k] for k in ("id", "ex", "src")} for case in CASES]
    return f"CASES = {json.dumps(cases)}\nIMPORTS = {IMPORTS!r}\n{RUN}"
