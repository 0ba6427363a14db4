"""What a checker finds wrong with an answer, as data: each finding's kind (its class), where, how, and how much it
tells; the verdict's words are made from these, in one place (microgpt.course.wording).

A checker (microgpt.course.checking) looks for findings in several ways: the objects the answer is made of, a slip
its piece knows, the numbers (microgpt.course.diagnosis), the one line of the rule that, changed, gives the answer
(microgpt.course.variants). It chooses between them by what each tells (Tells): the first kind in that order is the
one a verdict says, and a finding that asks the reader about a cause (asks) is not followed by another question.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Any, ClassVar

from microgpt.course.factors import Named

Index = tuple[int, ...]

RTOL = 1e-13  # an entry agrees when it is within this times its part's largest entry (microgpt.course.diagnosis)


class Tells(IntEnum):
    """What a finding tells, the most telling first: a verdict says the first kind found, and tries no later kind
    once it has one (microgpt.course.checking chooses on this alone)."""

    OBJECTS = 1  # the answer's lists themselves: rows that are one list, results swapped or in another order
    SLIP = 2  # a slip the piece knows, the answer's on every case missed
    SHAPE = 3  # a shape that is not the engine's
    SHARING = 4  # results that are one list, or one copied from another
    WHOLE = 5  # one relation at every entry, said plainly: a factor that is a size, 0, an offset, a rounding
    RESTARTED = 6  # a sum each pass replaces (= where += belongs): one changed line, said before the terms it loses
    TERMS = 7  # the engine's terms with other weights, or one of them written another way
    LINE = 8  # the one line of the rule that, changed, gives the answer on every case
    GUESS = 9  # a pattern that suggests a cause, asked as a question (a shift: an index off by one?)
    VALUE = 10  # a number the rule computes once, given another value, gives the answer on every case
    PLACE = 11  # where the answer is wrong, not how
    PARTS = 12  # which results are wrong, and what only they use
    UNTOLD = 13  # these numbers cannot tell (not a fit, and not a refusal either)


class Guess(Enum):
    """A cause a change suggests, asked as a question (microgpt.course.variants gives each change its own)."""

    OFF_BY_ONE = "off by one"
    INDEX_OFF_BY_ONE = "an index off by one"
    FIRST_FOR_EACH = "the first one, in place of each"
    LAST_FOR_EACH = "the last one, in place of each"
    BACKWARDS = "an order run backwards"
    EXCHANGED = "two indices exchanged"
    TRANSPOSE = "a transpose"
    LOOP_SHORT = "a loop one short"
    LOOP_LONG = "a loop one long"
    LOOP_SKIPS_FIRST = "a loop that skips the first"
    SIGN = "a sign"
    TERM_LEFT_OUT = "a term left out"
    FACTOR_LEFT_OUT = "a factor left out"
    DIVISION_LEFT_OUT = "a division left out"
    FLOOR_DIVISION = "floor division"
    SQRT_LEFT_OUT = "sqrt left out"
    EXP_LEFT_OUT = "exp left out"
    SUM_REPLACED = "each pass replaces the sum so far"
    LINE_LEFT_OUT = "a line left out"
    SOFTMAX_AGAIN = "softmax applied again"


@dataclass(frozen=True)
class Grouping:
    """A way to group the entries of a part: along one axis, by a key of the index there (a head: i // d_h).

    name and plural say a group ("head", "heads"); key(facts, i) is the group of index i on that axis.
    """

    axis: int
    name: str
    plural: str
    key: Callable[[dict[str, float], int], int] = field(default=lambda sizes, i: i)


@dataclass
class Layout:
    """How a piece's answer is spoken about: each part's axes, notes on an index, groupings, its terms.

    axes:      part -> the name of each axis, outermost first ("position", "entry")
    note:      (facts, part, axis, i) -> words after an index (" (head 1)", " (the true token)"), or ""
    groupings: part -> groupings tried before the axes themselves (heads before rows)
    """

    axes: dict[str, tuple[str, ...]]
    note: Callable[[dict[str, Any], str, int, int], str] = field(default=lambda sizes, part, axis, i: "")
    groupings: dict[str, tuple[Grouping, ...]] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Naming:
    """What a place or a number in one part of one case is called: the part's name, the piece's layout, the case's
    facts (the true token, d_h for a head) and sizes, and the page's step's sizes (for a size written as a number)."""

    part: str
    layout: Layout
    facts: dict[str, Any]
    sizes: dict[str, Any]
    defaults: dict[str, Any]


@dataclass(frozen=True)
class Finding:
    """Something found wrong with an answer. TELLS is what a finding of its kind tells (an instance may tell less:
    tells); asks: its words ask the reader about a cause (a question: an index off by one?), and then no other
    question follows them in a verdict."""

    TELLS: ClassVar[Tells] = Tells.PLACE
    ALONE: ClassVar[bool] = False  # said alone: no number follows it (the answer's objects, its shape, a known slip)

    @property
    def tells(self) -> Tells:
        return self.TELLS

    @property
    def asks(self) -> bool:
        return False


@dataclass(frozen=True)
class Untold(Finding):
    """These numbers cannot tell: a pattern nothing here contradicts, and nothing shows either (one row read)."""

    TELLS: ClassVar[Tells] = Tells.UNTOLD


UNTOLD = Untold()


@dataclass(frozen=True)
class Results:
    """The results a finding is about, in the piece's order, among all of its results."""

    wrong: tuple[str, ...]
    of: tuple[str, ...]


# ---------------------------------------------------------------- the answer's objects


@dataclass(frozen=True)
class SharedRows(Finding):
    """Rows of a part that are one list object ([[0.0] * n] * m): adding into one adds into all."""

    TELLS: ClassVar[Tells] = Tells.OBJECTS
    ALONE: ClassVar[bool] = True
    part: str
    rows: tuple[int, int] | None  # two rows that are one list; None: all of them are


@dataclass(frozen=True)
class Swapped(Finding):
    """Two results returned in each other's place: by their numbers, or by their shapes."""

    TELLS: ClassVar[Tells] = Tells.OBJECTS
    ALONE: ClassVar[bool] = True
    a: str
    b: str
    numbers: bool  # the numbers are each other's (else: the shapes)
    order: tuple[str, ...]  # every result, in the order to return them


@dataclass(frozen=True)
class Exchanged(Finding):
    """Two results with each other's numbers while a third is wrong too: exchanged before that one uses them."""

    TELLS: ClassVar[Tells] = Tells.OBJECTS
    ALONE: ClassVar[bool] = True
    a: str
    b: str
    also: tuple[str, ...]

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class Reordered(Finding):
    """Every result the engine's, in another order."""

    TELLS: ClassVar[Tells] = Tells.OBJECTS
    ALONE: ClassVar[bool] = True
    theirs: tuple[str, ...]  # the engine's result each of yours is, in your order
    order: tuple[str, ...]


@dataclass(frozen=True)
class KnownSlip(Finding):
    """A slip the piece lists, the answer's on every case missed."""

    TELLS: ClassVar[Tells] = Tells.SLIP
    ALONE: ClassVar[bool] = True
    results: Results
    hint: str


# ---------------------------------------------------------------- shapes


@dataclass(frozen=True)
class NotAList(Finding):
    TELLS: ClassVar[Tells] = Tells.SHAPE
    what: str
    length: int
    type: str


@dataclass(frozen=True)
class WrongLength(Finding):
    TELLS: ClassVar[Tells] = Tells.SHAPE
    what: str
    length: int
    engine: int
    shape: str  # the engine's shape: "27 x 16", or "27"
    filtered: bool  # one entry for each nonzero entry of the engine's: a filter where a mask belongs

    @property
    def asks(self) -> bool:
        return self.filtered


@dataclass(frozen=True)
class NotANumber(Finding):
    TELLS: ClassVar[Tells] = Tells.SHAPE
    what: str
    type: str


@dataclass(frozen=True)
class NotFinite(Finding):
    TELLS: ClassVar[Tells] = Tells.SHAPE
    what: str
    value: float


ShapeProblem = NotAList | WrongLength | NotANumber | NotFinite


@dataclass(frozen=True)
class PartsCount(Finding):
    """An answer with another number of results than the piece has."""

    TELLS: ClassVar[Tells] = Tells.SHAPE
    parts: tuple[str, ...]


@dataclass(frozen=True)
class LengthIsASize(Finding):
    """A part whose length is another size of the call on every case it has the wrong length."""

    TELLS: ClassVar[Tells] = Tells.SHAPE
    part: str
    size: str
    cases: tuple[int, ...]

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class LengthPattern(Finding):
    """A part's wrong length, the same against the engine's on every case it is wrong: "one" (a single entry),
    "one short", "one more", "square" (len squared: a pair of loops), "flat" (the rows' entries in one list)."""

    TELLS: ClassVar[Tells] = Tells.SHAPE
    part: str
    kind: str
    cases: tuple[int, ...]

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class WrongShape(Finding):
    """A part of the wrong shape: the problem, and, if it is another size on every case, that; where the function
    raised on other cases, which it raised."""

    TELLS: ClassVar[Tells] = Tells.SHAPE
    ALONE: ClassVar[bool] = True
    problem: ShapeProblem
    size: LengthIsASize | None = None
    raised_on: tuple[int, ...] = ()
    errors: tuple[str, ...] = ()
    pattern: LengthPattern | None = None  # where no size is its length: how its length stands to the engine's

    @property
    def asks(self) -> bool:
        return self.problem.asks or self.size is not None or self.pattern is not None


# ---------------------------------------------------------------- results shared or copied


@dataclass(frozen=True)
class OneList(Finding):
    """Two results that are one list object (a = b = [...])."""

    TELLS: ClassVar[Tells] = Tells.SHARING
    ALONE: ClassVar[bool] = True
    a: str
    b: str


@dataclass(frozen=True)
class AllHold(Finding):
    """Three results or more that all hold one result of the engine's."""

    TELLS: ClassVar[Tells] = Tells.SHARING
    ALONE: ClassVar[bool] = True
    holders: tuple[str, ...]
    of: str

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class Copied(Finding):
    """A result that is the engine's other result, number for number."""

    TELLS: ClassVar[Tells] = Tells.SHARING
    part: str
    other: str

    @property
    def asks(self) -> bool:
        return True


# ---------------------------------------------------------------- one relation at every entry


@dataclass(frozen=True)
class AllZero(Finding):
    TELLS: ClassVar[Tells] = Tells.WHOLE
    part: str


@dataclass(frozen=True)
class RunningSum(Finding):
    """Each entry the sum of the engine's up to it: a running sum not started again for each entry."""

    TELLS: ClassVar[Tells] = Tells.WHOLE
    part: str

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class NearlyZero(Finding):
    """Every entry 0 but for rounding (a sum that cancels): said where nothing more telling is."""

    part: str
    largest: float


@dataclass(frozen=True)
class ConstantFactor(Finding):
    """Every entry the same multiple of the engine's."""

    TELLS: ClassVar[Tells] = Tells.WHOLE
    part: str
    factor: Named

    @property
    def asks(self) -> bool:
        return self.factor.hard_coded is not None


@dataclass(frozen=True)
class LocatedFactor(ConstantFactor):
    """A factor nothing names, said where nothing more telling is: where, not how."""

    TELLS: ClassVar[Tells] = Tells.PLACE


@dataclass(frozen=True)
class ConstantOffset(Finding):
    TELLS: ClassVar[Tells] = Tells.WHOLE
    naming: Naming
    amount: float


@dataclass(frozen=True)
class Rounded(Finding):
    TELLS: ClassVar[Tells] = Tells.WHOLE
    part: str
    decimals: int


@dataclass(frozen=True)
class Estimate(Finding):
    """Within a hair of the engine's everywhere, not to the last bits: a numerical estimate."""

    TELLS: ClassVar[Tells] = Tells.WHOLE
    part: str
    within: float  # a power of ten: every entry is within it times the part's largest entry

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class FloorDivision(Finding):
    TELLS: ClassVar[Tells] = Tells.WHOLE
    part: str

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class WholeNumbers(Finding):
    TELLS: ClassVar[Tells] = Tells.WHOLE
    part: str
    values: tuple[float, ...]  # the first few, in order
    mask: bool  # only 0s and 1s


@dataclass(frozen=True)
class TimesArgument(Finding):
    TELLS: ClassVar[Tells] = Tells.WHOLE
    part: str
    argument: str
    power: int  # 1: times it, -1: divided by it

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class OneRow(Finding):
    """Every row the same: each the sum of one argument times another."""

    TELLS: ClassVar[Tells] = Tells.WHOLE
    part: str
    summed: str
    times: str

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class SameFactor(Finding):
    """Several results off by one same factor, the others right; and what only they use."""

    TELLS: ClassVar[Tells] = Tells.WHOLE
    wrong: tuple[str, ...]
    right: tuple[str, ...]
    factor: Named
    only: tuple[str, ...]  # what, in the rule, only the wrong results use

    @property
    def asks(self) -> bool:
        return self.factor.hard_coded is not None


# ---------------------------------------------------------------- the engine's terms


@dataclass(frozen=True)
class TermInstead(Finding):
    """The engine's terms, one of them written another way (a factor left out, an index where another belongs)."""

    TELLS: ClassVar[Tells] = Tells.TERMS
    part: str
    names: tuple[str, ...]
    term: str
    how: str  # the piece's words for how the term is written


@dataclass(frozen=True)
class TermWeights(Finding):
    """The engine's terms with other weights: a term missing, its sign flipped, or scaled."""

    TELLS: ClassVar[Tells] = Tells.TERMS
    part: str
    names: tuple[str, ...]
    weights: tuple[tuple[str, Named], ...]  # the terms whose weight is not 1, with it

    @property
    def asks(self) -> bool:
        return any(w.hard_coded is not None for _, w in self.weights)

    @property
    def tells(self) -> Tells:
        return Tells.GUESS if self.asks else Tells.TERMS


@dataclass(frozen=True)
class OneTerm(Finding):
    """A sum with one of its terms missing, flipped or counted twice."""

    TELLS: ClassVar[Tells] = Tells.TERMS
    part: str
    what: str
    term: str  # the term's name: "row 3"
    edge: str  # "first", "last", or ""
    weight: float  # -1: missing, -2: its sign flipped, 1: counted twice


@dataclass(frozen=True)
class TermsAtAnEnd(Finding):
    """A run of a sum's terms at one end missing: a loop that starts late or stops early."""

    TELLS: ClassVar[Tells] = Tells.TERMS
    part: str
    what: str
    each: str  # one term's name, given its index: "row {k}"
    start: int  # the first missing term (last: True), or the first kept (last: False)
    bound: int  # how far the run may reach through terms that are 0 here
    last: bool


@dataclass(frozen=True)
class Shifted(Finding):
    TELLS: ClassVar[Tells] = Tells.GUESS
    part: str
    axis: str
    step: int

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class Reversed(Finding):
    TELLS: ClassVar[Tells] = Tells.TERMS
    part: str
    axis: str
    length: int


@dataclass(frozen=True)
class PlusArgument(Finding):
    """Yours minus the engine's is one of the function's arguments, or a multiple of it."""

    TELLS: ClassVar[Tells] = Tells.TERMS
    part: str
    argument: str
    factor: Named

    @property
    def asks(self) -> bool:
        return self.factor.hard_coded is not None

    @property
    def tells(self) -> Tells:
        return Tells.GUESS if self.asks else Tells.TERMS


@dataclass(frozen=True)
class OffsetButOne(Finding):
    """Every entry but one off by one same amount, and that one by another."""

    TELLS: ClassVar[Tells] = Tells.TERMS
    naming: Naming
    amount: float
    index: Index
    there: float
    moved: bool  # the differences sum to 0: one amount moved between that entry and the others


@dataclass(frozen=True)
class MeanSubtracted(Finding):
    TELLS: ClassVar[Tells] = Tells.GUESS
    part: str
    arguments: tuple[str, ...]
    amount: float
    note: str  # the piece's words after "(x - mean(x))", if any

    @property
    def asks(self) -> bool:
        return True


# ---------------------------------------------------------------- where


@dataclass(frozen=True)
class Groups:
    """Some groups of a part's entries along one grouping: positions 4 to 6, head 1, the unit 12."""

    naming: Naming
    grouping: Grouping
    keys: tuple[int, ...]
    count: int  # how many groups there are


@dataclass(frozen=True)
class NonzeroWhereZero(Finding):
    """Nonzero in groups where the engine's is exactly 0 (the causal limit, a row not read, a unit off)."""

    groups: Groups
    wrong_elsewhere: int  # of the groups where the engine's is not 0, how many are wrong
    elsewhere: int  # how many groups the engine's is not 0 in
    rest: int  # the groups that are not wrong, where the engine's is 0 or not
    why: str  # why the engine's is 0 there (the case's words)


@dataclass(frozen=True)
class ZeroWhereNonzero(Finding):
    groups: Groups


@dataclass(frozen=True)
class WhereSigns(Finding):
    part: str
    unit: str  # the plural of the part's last axis: "units"
    argument: str
    sign: str  # "< 0" or "> 0"
    moving: bool  # only where the engine's is not 0 as well


@dataclass(frozen=True)
class Moved(Finding):
    """One amount at the wrong entry: what belongs at one place is at another."""

    naming: Naming
    amount: float
    at: Index  # where it belongs
    to: Index  # where it is
    near: bool  # the two are neighbours

    @property
    def asks(self) -> bool:
        return self.near


@dataclass(frozen=True)
class There:
    """How the wrong entries of some groups differ: 0, a factor, or one amount (nothing said if none)."""

    zero: bool = False
    factor: Named | None = None
    plus: float | None = None


@dataclass(frozen=True)
class RightAndWrong(Finding):
    """Right in some groups (positions, heads, rows) and wrong in others, and how where it is wrong."""

    bad: Groups
    good: Groups
    zeros: Groups  # where both are 0: right there too
    how: There

    @property
    def asks(self) -> bool:
        return self.how.factor is not None and self.how.factor.hard_coded is not None


@dataclass(frozen=True)
class SomeResultsWrong(Finding):
    """Which results are wrong and which right, and what only the wrong ones use."""

    TELLS: ClassVar[Tells] = Tells.PARTS
    wrong: tuple[str, ...]
    right: tuple[str, ...]
    only: tuple[str, ...]


# ---------------------------------------------------------------- the rule, changed


@dataclass(frozen=True)
class Omission:
    """What a change leaves out of its line: a term ("+ b"), a factor, a division ("/ n")."""

    code: str
    factor: bool = False


@dataclass(frozen=True)
class TheirLine:
    """A line of the reader's own code: its number in their block and its text."""

    line: int
    text: str


@dataclass(frozen=True)
class TheirChange:
    """The reader's line that a changed rule's line stands for, and, when found, the expression in it that, put
    back as the rule's, makes their function right on every case (or that is the changed code itself)."""

    line: TheirLine
    theirs: str = ""  # their expression: "qs[i][j]" ("" when none was found)
    before: str = ""  # the rule's code, in the reader's names where it can be: "ks[t][j]", "range(len(p))"
    after: str = ""  # the changed code, so written


@dataclass(frozen=True)
class RowsOfOneList(Finding):
    """A list of rows the reader made by repeating one row ([[0.0] * n] * m), so that its rows are one list: made
    m lists, their answer changes (microgpt.course.theirs)."""

    TELLS: ClassVar[Tells] = Tells.OBJECTS
    ALONE: ClassVar[bool] = True
    line: TheirLine
    name: str  # the name it is assigned to ("" if none)
    code: str  # as they wrote it
    fix: str  # each row its own list: [[0.0] * n for _ in range(m)]
    right: bool  # with that fix alone, their function is right on every case


@dataclass(frozen=True)
class SwappedInCode(Finding):
    """Two expressions of the reader's in each other's place: exchanged, their function is right on every case
    (microgpt.course.theirs)."""

    TELLS: ClassVar[Tells] = Tells.LINE
    ALONE: ClassVar[bool] = True
    line: TheirLine
    a: str
    b: str


@dataclass(frozen=True)
class OneLine(Finding):
    """The one line of the rule that, changed, gives the reader's answer on every case."""

    results: Results
    kind: str  # the change's kind (microgpt.course.variants.KINDS)
    role: str  # what the line computes
    before: str  # the rule's code
    after: str  # what it became
    left_out: Omission | None = None
    guess: Guess | None = None
    size: str = ""  # for a change of a size: its name
    written: bool = False  # the page's number written where the size belongs
    here: Any = None  # the size's value in this case
    theirs: TheirChange | None = None  # the reader's line it stands for, where it is known
    # for a written size whose line of theirs is not found: whether the number is in their code (None: not known)
    number_in_code: bool | None = None
    code: str = ""  # the rule's line, whole (to find the reader's like it)
    writes: frozenset[str] = frozenset()  # the names the rule's line writes

    @property
    def tells(self) -> Tells:
        return Tells.RESTARTED if self.kind == "accumulate" else Tells.LINE

    @property
    def guessed(self) -> bool:
        """The change's guess is said: the reader's own expression, where found, is the changed code itself."""
        theirs = self.theirs
        mine = theirs is None or not theirs.theirs or theirs.theirs in (self.after, theirs.after)
        return self.guess is not None and mine

    @property
    def asks(self) -> bool:
        return self.written_as_number or self.guessed

    @property
    def written_as_number(self) -> bool:
        """A written size that may be the number itself in the reader's code: asked about, never claimed."""
        theirs = self.theirs
        if not self.written or self.number_in_code is False:
            return False
        return theirs is None or not theirs.theirs or theirs.theirs == self.after


@dataclass(frozen=True)
class Substituted(Finding):
    """A number the rule computes once that, given another value, makes the rule give the answer on every case."""

    TELLS: ClassVar[Tells] = Tells.VALUE
    results: Results
    name: str
    role: str
    theirs: float
    computed: float
    kept_from: int | None  # the earlier case whose value it is, on every case missed
    rounded_down: bool  # the value rounded down to a whole number, on every case missed

    @property
    def asks(self) -> bool:
        return self.kept_from is not None or self.rounded_down


# ---------------------------------------------------------------- the cases, side by side


@dataclass(frozen=True)
class Cases(Finding):
    """Which cases an answer gets right and which wrong, and what sets them apart (a size, a trait), if anything."""

    TELLS: ClassVar[Tells] = Tells.PARTS
    right: tuple[int, ...]
    wrong: tuple[int, ...]


@dataclass(frozen=True)
class SomeRaised(Cases):
    """Some cases missed raised, some returned: which raised, and nothing guessed."""

    raised: tuple[int, ...] = ()
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class WithTrait(Cases):
    """Only the cases missed have a trait (and perhaps sizes of their own too)."""

    traits: tuple[str, ...] = ()
    sizes: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # sizes only they have, with their values there


@dataclass(frozen=True)
class PageSizes(Cases):
    """Sizes that are the page's wherever the answer is right and another wherever it is wrong."""

    sizes: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    page: tuple[Any, ...] = ()  # each size's value on the page's step

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class LargerSizes(Cases):
    """Sizes it is wrong at, larger there than anywhere it is right: a list cut short, or a size written."""

    sizes: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    larger: tuple[tuple[str, Any], ...] = ()  # the sizes larger there, each with the most it is right at

    @property
    def asks(self) -> bool:
        return True


@dataclass(frozen=True)
class OwnSizes(Cases):
    """Sizes it is wrong at and never right at, though right at several: an edge it does not handle."""

    sizes: tuple[tuple[str, tuple[Any, ...]], ...] = ()


@dataclass(frozen=True)
class KeptBetweenCalls(Cases):
    """No size sets the cases apart, or the cases missed have the page's own sizes: a value kept between calls."""

    same_sizes: bool = False  # the cases missed have case 1's sizes

    @property
    def asks(self) -> bool:
        return True


# ---------------------------------------------------------------- numbers, and the verdict's other lines


@dataclass(frozen=True)
class LargestDifference(Finding):
    """The entry furthest from the engine's, and by how much."""

    naming: Naming
    index: Index
    mine: float
    engine: float
    tolerance: float
    scale: float
    first: bool  # the verdict's first line about the part


@dataclass(frozen=True)
class CouldNotSay(Finding):
    """A fault in the checker's own diagnosis: the answer is still refused."""

    part: str
    error: str


@dataclass(frozen=True)
class ChangedArguments(Finding):
    """The function wrote into its arguments: which, and the first entry it changed."""

    TELLS: ClassVar[Tells] = Tells.OBJECTS
    function: str
    arguments: tuple[str, ...]
    at: Index | None = None  # the first entry changed, in the first argument, if a number
    was: float = 0.0
    now: float = 0.0


@dataclass(frozen=True)
class Raised(Finding):
    """The reader's function raised: what, and where in their code, outermost call first."""

    function: str
    error: str
    message: str
    frames: tuple[tuple[int, str, str], ...]  # (line, function, source)


@dataclass(frozen=True)
class NotWritten(Finding):
    """A blank body's NotImplementedError, raised by the reader's own code."""

    function: str
    line: int


@dataclass(frozen=True)
class Accepted(Finding):
    """Every case agrees."""

    function: str
    cases: int
    parts: int


@dataclass(frozen=True)
class Missed(Finding):
    """The first case missed: the verdict's first line."""

    case: int
    of: int
    label: str
