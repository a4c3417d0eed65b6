"""A Verilog tokenizer light enough for mutation testing, and the map of what may be mutated.

:func:`tokenize` splits a source into tokens that cover it exactly (whitespace and comments
included, so applying a mutation is a splice of the original text). :class:`Source` then works on the
significant tokens and decides which ones a mutation may touch. It does not parse Verilog; it knows
the handful of constructs whose mutation is noise rather than a test of the verification:

* comments, strings and preprocessor lines (`` `include ``, `` `define ``, ...);
* `` `ifdef SIMT_FAULTS `` blocks: the test-only fault hooks of the meta-tests (their `` `else ``
  branch is the real design and is mutated);
* parameter-legality checks (an ``if`` whose body calls ``$fatal``, ``initial`` blocks): only illegal
  parameters reach them, so a mutant there either stops every build or changes nothing;
* declarations: module headers and ports, ``parameter``/``localparam``, function and task headers,
  the widths and array bounds of ``wire``/``reg``/``integer`` (an initialiser after ``=`` *is* logic
  and is mutated), instance parameter overrides ``#(...)``, size casts ``N'(x)``;
* the step clause of a ``for`` (``i = i + 1`` mutated makes a loop that never ends, not a bug the
  tests should find); the loop's start and bound are mutated;
* assignments to ``unused*`` signals (by the project's lint convention, nothing reads them).

It also classifies each ``<=`` as a non-blocking assignment or a comparison, and records every
assignment statement (for the stuck-bit operator) and every ``?:`` (condition and arms).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DIRECTIVES = {"include", "define", "undef", "ifdef", "ifndef", "elsif", "else", "endif", "timescale",
              "default_nettype", "resetall", "celldefine", "endcelldefine", "line", "pragma"}  # fmt: skip
# Preprocessor directives that take the rest of their line.
LINE_DIRECTIVES = {"include", "define", "undef", "timescale", "default_nettype", "line", "pragma"}
FAULT_MACRO = "SIMT_FAULTS"

KEYWORDS = {
    "always", "always_comb", "always_ff", "and", "assign", "automatic", "begin", "bit", "case", "casex",
    "casez", "default", "defparam", "else", "end", "endcase", "endfunction", "endgenerate", "endmodule",
    "endtask", "for", "forever", "function", "generate", "genvar", "if", "initial", "inout", "input", "int",
    "integer", "localparam", "logic", "module", "negedge", "or", "output", "parameter", "posedge", "real",
    "reg", "repeat", "return", "signed", "task", "unsigned", "while", "wire",
}  # fmt: skip
DECL_KEYWORDS = {"wire", "reg", "integer", "logic", "int", "bit", "real", "tri"}
SKIP_TO_SEMI = {"parameter", "localparam", "genvar", "defparam", "input", "output", "inout"}

# Longest first: the operators are matched greedily.
OPERATORS = ["<<<", ">>>", "===", "!==", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "**", "~&", "~|", "~^",
             "^~", "+:", "-:", "->", "::", "+", "-", "*", "/", "%", "<", ">", "!", "~", "&", "|", "^", "=",
             "?", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}", "#", "@", "'"]  # fmt: skip

_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<comment>//[^\n]*|/\*.*?\*/)"
    r"|(?P<string>\"(?:\\.|[^\"\\\n])*\")"
    r"|(?P<directive>`[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<number>(?:\d[\d_]*)?'[sS]?[bBoOdDhH][0-9a-fA-F_xXzZ?]+|'[01xXzZ](?![A-Za-z0-9_])|\d[\d_]*(?:\.\d+)?)"
    r"|(?P<sysid>\$[A-Za-z_][A-Za-z0-9_$]*)"
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_$]*|\\\S+)"
    r"|(?P<op>" + "|".join(re.escape(o) for o in OPERATORS) + ")",
    re.S,
)


@dataclass(frozen=True)
class Token:
    kind: str  # ws | comment | string | directive | number | sysid | ident | keyword | op
    text: str
    start: int  # offset in the source
    line: int  # 1-based
    col: int  # 1-based

    @property
    def end(self) -> int:
        return self.start + len(self.text)


class LexError(ValueError):
    pass


def tokenize(text: str) -> list[Token]:
    """Every token of ``text``, in order; their texts concatenate to ``text``."""
    tokens: list[Token] = []
    pos, line, line_start = 0, 1, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise LexError(
                f"line {line} col {pos - line_start + 1}: cannot tokenize {text[pos : pos + 20]!r}"
            )
        kind = m.lastgroup or "op"
        tok_text = m.group()
        if kind == "directive" and tok_text[1:] in LINE_DIRECTIVES:
            # The directive and the rest of its logical line (backslash-newline continues a `define).
            end = pos
            while True:
                nl = text.find("\n", end)
                if nl < 0:
                    end = len(text)
                    break
                if text[nl - 1] == "\\":
                    end = nl + 1
                    continue
                end = nl
                break
            tok_text = text[pos:end]
        elif kind == "ident" and tok_text in KEYWORDS:
            kind = "keyword"
        tokens.append(Token(kind, tok_text, pos, line, pos - line_start + 1))
        newlines = tok_text.count("\n")
        if newlines:
            line += newlines
            line_start = pos + tok_text.rindex("\n") + 1
        pos += len(tok_text)
    return tokens


@dataclass
class Assignment:
    """``lhs = rhs`` / ``lhs <= rhs`` (statement, continuous assign or declaration initialiser);
    indices into :attr:`Source.code`."""

    lhs: int  # first token of the target
    op: int  # the = or <=
    rhs_end: int  # last token of the right-hand side


@dataclass
class Ternary:
    """``cond ? a : b``; inclusive index ranges into :attr:`Source.code`."""

    cond: tuple[int, int]
    qmark: int
    true_arm: tuple[int, int]
    false_arm: tuple[int, int]


@dataclass
class Source:
    """One Verilog file: its tokens, the significant ones, and what a mutation may touch."""

    text: str
    tokens: list[Token] = field(init=False)
    code: list[Token] = field(init=False)  # significant tokens (no whitespace, comments)
    mutable: list[bool] = field(init=False)  # per code token: may this token change?
    movable: list[bool] = field(init=False)  # may it move inside a bigger mutation (arm swap, !(...))?
    assign_le: set[int] = field(init=False)  # code indices of `<=` that are assignments
    assignments: list[Assignment] = field(init=False)
    ternaries: list[Ternary] = field(init=False)
    ifs: list[tuple[int, int, int]] = field(init=False)  # (if token, open paren, close paren)
    match: dict[int, int] = field(init=False)  # bracket pairs, both directions

    def __post_init__(self) -> None:
        self.tokens = tokenize(self.text)
        self.code = [t for t in self.tokens if t.kind not in ("ws", "comment")]
        self.match = self._brackets()
        self.mutable = [True] * len(self.code)
        self.movable = [True] * len(self.code)
        self._statements()
        self._skip_preprocessor()
        self._skip_structure()
        self._find_ternaries()
        self.ifs = [
            (i, i + 1, self.match[i + 1])
            for i, t in enumerate(self.code)
            if t.text == "if" and t.kind == "keyword" and self._is(i + 1, "(")
        ]

    # ------------------------------------------------------------------ helpers
    def _is(self, i: int, text: str) -> bool:
        return (
            0 <= i < len(self.code) and self.code[i].text == text and self.code[i].kind in ("op", "keyword")
        )

    def _brackets(self) -> dict[int, int]:
        pairs = {"(": ")", "[": "]", "{": "}"}
        stack: list[int] = []
        match: dict[int, int] = {}
        for i, t in enumerate(self.code):
            if t.kind != "op":
                continue
            if t.text in pairs:
                stack.append(i)
            elif t.text in pairs.values():
                if not stack or pairs[self.code[stack[-1]].text] != t.text:
                    raise LexError(f"line {t.line}: unbalanced {t.text!r}")
                j = stack.pop()
                match[j], match[i] = i, j
        if stack:
            raise LexError(f"line {self.code[stack[-1]].line}: unclosed {self.code[stack[-1]].text!r}")
        return match

    def _skip(self, first: int, last: int, *, width: bool = False) -> None:
        """No mutation inside [first, last]; a ``width`` (a select's bounds, a replication count, a
        cast size) may still move with the expression around it."""
        for k in range(first, min(last, len(self.code) - 1) + 1):
            self.mutable[k] = False
            if not width:
                self.movable[k] = False

    def _until_semi(self, i: int) -> int:
        """Index of the `;` ending the declaration or simple statement that starts at ``i``."""
        while i < len(self.code):
            t = self.code[i]
            if t.kind == "op" and t.text in "([{":
                i = self.match[i]
            elif t.kind == "op" and t.text == ";":
                return i
            i += 1
        return len(self.code) - 1

    def statement_end(self, i: int) -> int:
        """Index of the last token of the statement starting at ``i``."""
        t = self.code[i]
        if t.kind == "keyword" and t.text == "begin":
            depth = 0
            for j in range(i, len(self.code)):
                if self.code[j].kind == "keyword" and self.code[j].text == "begin":
                    depth += 1
                elif self.code[j].kind == "keyword" and self.code[j].text == "end":
                    depth -= 1
                    if depth == 0:
                        return j
            return len(self.code) - 1
        if t.kind == "keyword" and t.text in ("case", "casex", "casez"):
            depth = 0
            for j in range(i, len(self.code)):
                if self.code[j].kind == "keyword" and self.code[j].text in ("case", "casex", "casez"):
                    depth += 1
                elif self.code[j].kind == "keyword" and self.code[j].text == "endcase":
                    depth -= 1
                    if depth == 0:
                        return j
            return len(self.code) - 1
        if t.kind == "keyword" and t.text in ("if", "for", "while", "repeat") and self._is(i + 1, "("):
            end = self.statement_end(self.match[i + 1] + 1)
            if t.text == "if" and self._is(end + 1, "else"):
                end = self.statement_end(end + 2)
            return end
        if t.kind == "keyword" and t.text in ("always", "initial", "forever", "always_comb", "always_ff"):
            return self.statement_end(i + 1)
        if t.kind == "op" and t.text == "@":
            nxt = self.match[i + 1] + 1 if self._is(i + 1, "(") else i + 2
            return self.statement_end(nxt)
        return self._until_semi(i)

    # ------------------------------------------------------------------ what may not be mutated
    def _skip_preprocessor(self) -> None:
        """Directives, and everything a plain build does not compile under `ifdef SIMT_FAULTS."""
        stack: list[tuple[bool, bool]] = []  # (is the fault macro, currently in the fault-only branch)
        pending: str | None = None  # an ifdef/ifndef waiting for its macro name
        for i, t in enumerate(self.code):
            if t.kind == "directive":
                self.mutable[i] = False
                word = t.text[1:].split()[0] if t.text[1:] else ""
                if word in ("ifdef", "ifndef", "elsif"):
                    if word == "elsif" and stack:
                        stack.pop()
                    pending = word
                elif word == "else" and stack:
                    fault, inside = stack[-1]
                    stack[-1] = (fault, fault and not inside)
                elif word == "endif" and stack:
                    stack.pop()
                continue
            if pending is not None:  # the macro name of an `ifdef / `ifndef
                self.mutable[i] = False
                fault = t.text == FAULT_MACRO
                stack.append((fault, fault and pending != "ifndef"))
                pending = None
                continue
            if any(inside for _, inside in stack):
                self.mutable[i] = False

    def _skip_structure(self) -> None:
        code, n = self.code, len(self.code)
        i = 0
        while i < n:
            t = code[i]
            word = t.text if t.kind == "keyword" else None
            if word == "module" or word in SKIP_TO_SEMI or word in ("function", "task"):
                end = self._until_semi(i)  # module header (parameters, ports); declarations
                self._skip(i, end)
                i = end + 1
                continue
            if word == "initial":
                end = self.statement_end(i)
                self._skip(i, end)
                i = end + 1
                continue
            if word == "if" and self._is(i + 1, "("):
                end = self.statement_end(i)
                if any(c.kind == "sysid" and c.text == "$fatal" for c in code[i : end + 1]):
                    self._skip(i, end)  # a parameter-legality check
                    i = end + 1
                    continue
            if word in DECL_KEYWORDS:
                self._declaration(i)
            elif word == "for" and self._is(i + 1, "("):
                close = self.match[i + 1]
                semis = [k for k in range(i + 2, close) if code[k].text == ";" and code[k].kind == "op"]
                if len(semis) == 2:  # start and step; the bound between them stays
                    self._skip(i + 1, semis[0])
                    self._skip(semis[1], close)
            elif t.kind == "op" and t.text == "[" and self._range_colon(i) is not None:
                self._skip(i, self.match[i], width=True)  # a part-select [msb:lsb], like a declared width
            elif t.kind == "op" and t.text in ("+:", "-:"):
                self._skip(i, self._expr_end(i + 1), width=True)  # the width of [base +: width]
            elif t.kind == "op" and t.text == "{" and self._replication(i) is not None:
                self._skip(i + 1, self._replication(i), width=True)  # the count of {n{x}}
            elif t.kind == "op" and t.text == "#":
                self._skip(i, self.match[i + 1] if self._is(i + 1, "(") else i + 1)
            elif t.kind == "op" and t.text == "@":
                self._skip(i, self.match[i + 1] if self._is(i + 1, "(") else i + 1)
            elif t.kind == "number" and self._is(i + 1, "'"):
                self._skip(i, i + 1, width=True)  # size cast N'(x)
            elif t.kind == "sysid" and t.text in ("$fatal", "$error", "$display", "$finish", "$stop"):
                self._skip(i, self._until_semi(i))
            i += 1
        # signals named unused*: by the lint convention nothing reads them
        for a in self.assignments:
            if code[a.lhs].text.startswith("unused"):
                self._skip(a.lhs, a.rhs_end)

    def _replication(self, i: int) -> int | None:
        """For `{n{x}}` at ``i``: the last token of the count n (None if not a replication)."""
        j = i + 1
        while j < self.match[i]:
            t = self.code[j]
            if t.kind == "op" and t.text == "{":
                return j - 1 if j > i + 1 else None
            if t.kind == "op" and t.text in "([":
                j = self.match[j] + 1
                continue
            if t.kind == "op" and t.text == ",":
                return None
            j += 1
        return None

    def _range_colon(self, i: int) -> int | None:
        """The top-level `:` of the bracket at ``i`` if it is a range [msb:lsb] (not [base +: w])."""
        j = i + 1
        while j < self.match[i]:
            t = self.code[j]
            if t.kind == "op" and t.text in "([{":
                j = self.match[j] + 1
                continue
            if t.kind == "op" and t.text == ":":
                return j
            if t.kind == "op" and t.text == "?":  # [c ? a : b] is an index, not a range
                return None
            j += 1
        return None

    def _declaration(self, i: int) -> None:
        """wire/reg/integer ...: skip the type, widths and names; keep initialisers after `=`."""
        j = i
        while j < len(self.code):
            t = self.code[j]
            if t.kind == "op" and t.text in "([{":
                self._skip(j, self.match[j])
                j = self.match[j] + 1
                continue
            if t.kind == "op" and t.text in (";", ")"):  # ) ends `int i = 0` in a for header
                return
            self.mutable[j] = False
            if t.kind == "op" and t.text == "=":
                j = self._expr_end(j + 1) + 1  # the initialiser stays mutable
                if j < len(self.code) and self.code[j].text == ",":
                    self.mutable[j] = False
                    j += 1
                    continue
                return
            j += 1

    def _expr_end(self, i: int) -> int:
        """Last index of the expression starting at ``i`` (stops before `,` `;` or a closing bracket)."""
        j = i
        while j < len(self.code):
            t = self.code[j]
            if t.kind == "op" and t.text in "([{":
                j = self.match[j] + 1
                continue
            if t.kind == "op" and t.text in (",", ";", ")", "]", "}"):
                return j - 1
            j += 1
        return len(self.code) - 1

    # ------------------------------------------------------------------ statements and assignments
    def _statements(self) -> None:
        """Classify each `<=` (assignment or comparison) and record every assignment statement.

        A statement starts after `;`, begin/end/else, a case label's `:`, or the `)` closing an
        if/for/while/case/@ header; its first `=` or `<=` outside brackets is the assignment."""
        code = self.code
        self.assign_le = set()
        self.assignments = []
        start = 0
        seen_assign: int | None = None
        header_close: set[int] = set()
        i = 0
        depth = 0
        while i < len(code):
            t = code[i]
            txt = t.text if t.kind in ("op", "keyword") else None
            if txt in ("if", "for", "while", "case", "casex", "casez", "repeat", "@") and self._is(
                i + 1, "("
            ):
                header_close.add(self.match[i + 1])
            if txt in ("(", "[", "{"):
                depth += 1
            elif txt in (")", "]", "}"):
                depth -= 1
                if i in header_close:
                    start, seen_assign = i + 1, None
                    i += 1
                    continue
            if depth == 0 and txt in ("=", "<=") and seen_assign is None:
                seen_assign = i
                if txt == "<=":
                    self.assign_le.add(i)
                if self._decl_or_stmt_target(start, i):
                    lhs = self._target_start(start, i)
                    self.assignments.append(Assignment(lhs, i, self._expr_end(i + 1)))
            elif depth == 0 and txt == "," and seen_assign is not None:
                start, seen_assign = i + 1, None  # next declarator: wire a = x, b = y;
            elif depth == 0 and (
                txt in (";", "begin", "end", "else", "endcase", "generate", "endgenerate")
                or txt in ("always", "initial", "assign")
            ):
                start, seen_assign = i + 1, None
                if txt == "begin" and self._is(i + 1, ":"):  # named block: skip `: name`
                    i += 2
                    start = i + 1
            elif depth == 0 and txt == ":" and seen_assign is None:
                start = i + 1  # case label
            i += 1

    def _decl_or_stmt_target(self, start: int, op: int) -> bool:
        return op > start and self.code[op - 1].kind in ("ident", "op")

    def _target_start(self, start: int, op: int) -> int:
        """The target's first identifier: after any declaration keywords, widths and `#`/`@` parts."""
        k = start
        while k < op:
            t = self.code[k]
            if t.kind == "op" and t.text == "[" and k in self.match:
                k = self.match[k] + 1
                continue
            if t.kind == "ident":
                # the last identifier before any [index] or `=` is the target in `wire [..] name = ..`
                j = k + 1
                while j < op and self.code[j].kind == "ident":
                    k = j
                    j += 1
                return k
            k += 1
        return start

    # ------------------------------------------------------------------ ?:
    def _find_ternaries(self) -> None:
        self.ternaries = []
        for i, t in enumerate(self.code):
            if t.kind == "op" and t.text == "?":
                cond = (self._cond_start(i), i - 1)
                colon = self._matching_colon(i)
                if colon is None:
                    continue
                false_end = self._false_arm_end(colon)
                self.ternaries.append(Ternary(cond, i, (i + 1, colon - 1), (colon + 1, false_end)))

    def _boundary(self, i: int) -> bool:
        t = self.code[i]
        if t.kind == "keyword":
            return True
        if t.kind != "op":
            return False
        return t.text in (",", ";", "?", ":", "=", "(", "[", "{") or (t.text == "<=" and i in self.assign_le)

    def _cond_start(self, q: int) -> int:
        j = q - 1
        while j >= 0:
            t = self.code[j]
            if t.kind == "op" and t.text in ")]}":
                j = self.match[j] - 1
                continue
            if self._boundary(j):
                return j + 1
            j -= 1
        return 0

    def _arm_stop(self, j: int, at_keyword: bool) -> int:
        """The first token from ``j`` on, outside brackets and nested ``?:``, that ends a ``?:`` arm: an
        unmatched ``:``, one of ``; , ) ] }``, or (``at_keyword``) a keyword; ``len(code)`` if none."""
        nested = 0
        while j < len(self.code):
            t = self.code[j]
            if t.kind == "op" and t.text in "([{":
                j = self.match[j] + 1
                continue
            if t.kind == "op" and t.text == "?":
                nested += 1
            elif t.kind == "op" and t.text == ":":
                if nested == 0:
                    return j
                nested -= 1
            elif (t.kind == "op" and t.text in (";", ",", ")", "]", "}")) or (
                at_keyword and t.kind == "keyword"
            ):
                return j
            j += 1
        return len(self.code)

    def _matching_colon(self, q: int) -> int | None:
        j = self._arm_stop(q + 1, at_keyword=False)
        return j if j < len(self.code) and self.code[j].kind == "op" and self.code[j].text == ":" else None

    def _false_arm_end(self, colon: int) -> int:
        return self._arm_stop(colon + 1, at_keyword=True) - 1
