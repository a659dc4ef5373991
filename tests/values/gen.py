#!/usr/bin/env python3
"""gen.py -- a random C or C++ program whose calls print their own
arguments and results: the oracle of the value fuzzer (run.py).

usage: gen.py SEED [c|c++] [--m32] > prog.c

Functions take 1-10 parameters of random types (every integer width and
signedness, _Bool, char, enums, pointers, strings, float, double, long
double, __int128, small and large structs and unions by value; in C++
references and methods with `this`).  Their bodies read, modify, shift,
loop over, alias and forward their parameters and call each other:
bounded recursion, a table of function pointers called from one indirect
site, tail calls, static / inline / always_inline / noinline mixes, and
functions shaped for gcc's partial inlining (a cheap early exit, then a
large body).  Every call goes through a call site that first prints

    A<TAB>function<TAB>id<TAB>name=text...

(the arguments, formatted the way ctrace-symbolize formats values; a
`#name=text` item is what a trace without a capture plan shows instead),
then calls, then prints `R<TAB>id<TAB>text` for its result.  The A lines
of one function come in the order of its calls' entries.  Everything
printed is derived from the same bits the callee receives, so the text
is exact whatever the compiler does.
"""

import os
import random
import sys

# name, C spelling, kind, printer
INTS = [
    ("schar", "signed char", 1, True),
    ("uchar", "unsigned char", 1, False),
    ("short", "short", 2, True),
    ("ushort", "unsigned short", 2, False),
    ("int", "int", 4, True),
    ("uint", "unsigned", 4, False),
    ("long", "long", 8, True),
    ("ulong", "unsigned long", 8, False),
    ("llong", "long long", 8, True),
    ("ullong", "unsigned long long", 8, False),
]

def read_prelude():
    """prelude.h beside this file, without its opening comment."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "prelude.h")
    with open(path) as fh:
        return fh.read().split("*/\n", 1)[1]


PRELUDE = "\n" + read_prelude()


# the most elements all the pointer walks of a program add up to: with the
# 16 a pointer starts at and the 8 a walk reads ahead, within prelude.h's
# g_arr[4096]
PTR_WALK = 4000
G_ARR_BYTES = 4096 * 4


class Type:
    def __init__(self, name, decl, kind, size=0, signed=False):
        self.name, self.decl, self.kind = name, decl, kind
        self.size, self.signed = size, signed

    def __repr__(self):
        return self.decl


def all_types(cxx, m32):
    ts = [Type(n, d, "int", s, sg) for n, d, s, sg in INTS]
    ts += [
        Type("bool", "bool" if cxx else "_Bool", "bool"),
        Type("char", "char", "char"),
        Type("color", "enum color", "enum"),
        Type("ptr", "int *", "ptr"),
        Type("str", "const char *", "str"),
        Type("float", "float", "float"),
        Type("double", "double", "double"),
        Type("ldouble", "long double", "ldouble"),
        Type("s2", "struct s2", "struct"),
        Type("s3", "struct s3", "struct"),
        Type("sd", "struct sd", "struct"),
        Type("sf", "struct sf", "struct"),
        Type("big", "struct big", "struct"),
        Type("mixed", "struct mixed", "struct"),
        Type("u", "union u", "struct"),
    ]
    if not m32:
        ts.append(Type("i128", "__int128", "i128", 16, True))
    if cxx:
        ts.append(Type("ref", "int &", "ref"))
        ts.append(Type("cref", "const struct s2 &", "cref"))
    return ts


STRINGS = ["", "a", "hello", "values", "x y", "tab\\there", "quote\\\"d",
           "0123456789", "UPPER", "back\\\\slash"]


class Gen:
    def __init__(self, seed, cxx, m32):
        self.r = random.Random(seed)
        self.cxx, self.m32 = cxx, m32
        self.types = all_types(cxx, m32)
        self.out = []
        self.funcs = []
        self.walked = 0

    # -- values ---------------------------------------------------------
    def int_lit(self, t):
        r = self.r
        bits = t.size * 8
        choice = r.random()
        if choice < 0.3:
            v = r.randint(0, 20)
        elif choice < 0.5:
            v = r.randint(-20, 20) if t.signed else r.randint(0, 40)
        else:
            if t.signed:
                v = r.randint(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            else:
                v = r.randint(0, (1 << bits) - 1)
        if t.kind == "i128":
            hi = r.randint(-(1 << 40), 1 << 40)
            # shifted unsigned: a negative value shifted left is undefined
            return "((__int128)((unsigned __int128)(%dLL) << 64 | %dULL))" % (
                hi, r.randint(0, (1 << 64) - 1))
        if t.signed and v == -(1 << (bits - 1)):
            return "(%s)(%d - 1)" % (t.decl, v + 1)
        suffix = "LL" if t.signed else "ULL"
        return "(%s)%d%s" % (t.decl, v, suffix)

    def float_lit(self):
        r = self.r
        c = r.random()
        if c < 0.3:
            return "%d.0" % r.randint(-100, 100)
        if c < 0.6:
            return "%d.%d" % (r.randint(-1000, 1000), r.randint(0, 999))
        return "%.6fe%d" % (r.uniform(-10, 10), r.randint(-30, 30))

    def value(self, t):
        r = self.r
        k = t.kind
        if k in ("int", "i128"):
            return self.int_lit(t)
        if k == "bool":
            return r.choice(["0", "1"])
        if k == "char":
            return "(char)%d" % r.choice([r.randint(32, 126), r.randint(0, 255)])
        if k == "enum":
            return r.choice(["RED", "GREEN", "BLUE", "BLACK"])
        if k == "ptr":
            return r.choice(["NULL", "&g_arr[%d]" % r.randint(0, 16),
                             "&g_arr[%d]" % r.randint(0, 16)])
        if k == "str":
            return '"%s"' % r.choice(STRINGS)
        if k == "float":
            return self.float_lit() + "f"
        if k == "double":
            return self.float_lit()
        if k == "ldouble":
            return self.float_lit() + "L"
        n = lambda: r.randint(-100000, 100000)
        if t.name == "s2":
            return "(struct s2){%d, %d}" % (n(), n())
        if t.name == "s3":
            return "(struct s3){(char)%d, %d, %d}" % (r.randint(32, 126), r.randint(-3000, 3000), n())
        if t.name == "sd":
            return "(struct sd){%s, %d}" % (self.float_lit(), n())
        if t.name == "sf":
            return "(struct sf){%sf, %sf}" % (self.float_lit(), self.float_lit())
        if t.name == "big":
            return "(struct big){{%s}}" % ", ".join(str(n()) for _ in range(5))
        if t.name == "mixed":
            return "(struct mixed){%d, %dLL, %s}" % (r.randint(0, 255), n() * 1000003, self.float_lit())
        if t.name == "u":
            return "(union u){%d}" % n()
        raise ValueError(t)

    def printer(self, t, expr, name):
        k = t.kind
        if k == "int":
            return ("pr_i((long long)(%s));" if t.signed else "pr_u((unsigned long long)(%s));") % expr
        if k == "i128":
            return "pr_i128(%s);" % expr
        if k == "bool":
            return "pr_bool(%s);" % expr
        if k == "char":
            return "pr_ch(%s);" % expr
        if k == "enum":
            return "pr_color(%s);" % expr
        if k == "ptr":
            return "pr_ptr(%s);" % expr
        if k == "str":
            return 'pr_str("%s", %s);' % (name, expr)
        if k == "float":
            return "pr_f(%s);" % expr
        if k == "double":
            return "pr_d(%s);" % expr
        if k == "ldouble":
            return "pr_ld(%s);" % expr
        if k in ("ref", "cref"):
            return 'printf("@"); pr_ptr(&(%s));' % expr
        if t.name == "u":
            return "pr_u_(%s);" % expr
        return "pr_%s(%s);" % (t.name, expr)

    # -- functions ------------------------------------------------------
    def make_funcs(self):
        r = self.r
        n = r.randint(14, 22)
        # a group sharing one signature, called through a table
        table_sig = [self.pick_type(False) for _ in range(r.randint(1, 4))]
        table_ret = self.pick_ret()
        ntable = r.randint(2, 4)
        for i in range(n):
            f = {"name": "f%d" % i, "index": i}
            if i < ntable:
                f["params"] = list(table_sig)
                f["ret"] = table_ret
                f["table"] = True
            else:
                f["params"] = [self.pick_type(True) for _ in range(r.choice([1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10]))]
                f["ret"] = self.pick_ret()
                f["table"] = False
            f["recursive"] = not f["table"] and r.random() < 0.15
            if f["recursive"]:
                f["params"][0] = next(t for t in self.types if t.name == "int")
            f["attr"] = r.choice(["NOINLINE", "NOINLINE", "", "static", "static NOINLINE",
                                  "static inline", "ALWAYS"])
            if f["table"] and f["attr"] == "ALWAYS":
                f["attr"] = "static"
            if f["recursive"] and f["attr"] == "ALWAYS":
                f["attr"] = "static"
            f["partial"] = r.random() < 0.2
            f["method"] = self.cxx and not f["table"] and r.random() < 0.2
            if f["method"] and f["attr"] == "ALWAYS":
                f["attr"] = ""
            self.funcs.append(f)
        self.ntable = ntable

    def pick_type(self, allow_ref):
        ts = [t for t in self.types if allow_ref or t.kind not in ("ref", "cref")]
        # integers more often
        if self.r.random() < 0.45:
            ts = [t for t in ts if t.kind == "int"]
        return self.r.choice(ts)

    def pick_ret(self):
        r = self.r
        c = r.random()
        if c < 0.2:
            return None
        ts = [t for t in self.types if t.kind not in ("ref", "cref", "str")]
        return r.choice(ts)

    def signature(self, f, names=True):
        ps = []
        for i, t in enumerate(f["params"]):
            ps.append("%s p%d" % (t.decl, i) if names else t.decl)
        return ", ".join(ps) if ps else "void"

    def ret_decl(self, f):
        return f["ret"].decl if f["ret"] else "void"

    def qual_name(self, f):
        return ("K::" if f["method"] else "") + f["name"]

    def as_int(self, t, e):
        """An unsigned long long made of parameter e of type t."""
        k = t.kind
        if k in ("int", "i128", "bool", "char", "enum"):
            return "(unsigned long long)(%s)" % e
        if k == "ptr":
            return "(unsigned long long)(%s ? *(%s) : 1)" % (e, e)
        if k == "str":
            return "(unsigned long long)strlen(%s)" % e
        if k in ("float", "double", "ldouble"):
            return "(unsigned long long)FTOI(%s)" % e
        if k == "ref":
            return "(unsigned long long)(%s)" % e
        if k == "cref":
            return "(unsigned long long)(%s).a" % e
        if t.name == "big":
            return "(unsigned long long)(%s).v[%d]" % (e, self.r.randint(0, 4))
        if t.name == "s3":
            return "(unsigned long long)(%s).i" % e
        if t.name == "sd":
            return "(unsigned long long)(%s).i" % e
        if t.name == "sf":
            return "(unsigned long long)FTOI((%s).x)" % e
        if t.name == "mixed":
            return "(unsigned long long)(%s).n" % e
        if t.name == "u":
            return "(unsigned long long)(%s).i" % e
        return "(unsigned long long)(%s).a" % e

    def from_int(self, t, e):
        """A value of type t made from the unsigned long long e."""
        k = t.kind
        if k in ("int", "i128", "char", "enum"):
            if k == "enum":
                return "((%s) & 1 ? RED : BLUE)" % e
            return "(%s)(%s)" % (t.decl, e)
        if k == "bool":
            return "(%s)((%s) & 1)" % (t.decl, e)
        if k == "ptr":
            return "&g_arr[(%s) %% 16]" % e
        if k in ("float", "double", "ldouble"):
            return "(%s)(long long)((%s) %% 100000)" % (t.decl, e)
        if t.name == "s2":
            return "(struct s2){(int)(%s), (int)((%s) >> 7)}" % (e, e)
        if t.name == "s3":
            return "(struct s3){(char)(%s), (short)(%s), (int)(%s)}" % (e, e, e)
        if t.name == "sd":
            return "(struct sd){(double)(int)(%s), (int)(%s)}" % (e, e)
        if t.name == "sf":
            # a short: a float holds it exactly
            return "(struct sf){(float)(short)(%s), 0.5f}" % e
        if t.name == "big":
            return "(struct big){{(long)(%s), 1, 2, 3, (long)((%s) >> 3)}}" % (e, e)
        if t.name == "mixed":
            return "(struct mixed){(unsigned char)(%s), (long long)(%s), 0.25}" % (e, e)
        if t.name == "u":
            return "(union u){NOSNAN(%s)}" % e
        raise ValueError(t)

    def modify(self, t, p, f):
        """A statement changing parameter p in place, or None."""
        r = self.r
        k = t.kind
        if k == "int":
            c = r.choice(["+= 3", "-= 1", "^= 0x55", "<<= 1", ">>= 2", "*= 3", "/= 2", "|= 8"])
            op, val = c.split(" ")
            return "%s = (%s)((unsigned long long)%s %s %s);" % (p, t.decl, p, op[:-1], val)
        if k == "i128":
            return "%s = (__int128)((unsigned __int128)%s * 3 + 1);" % (p, p)
        # floating values change by powers of two only: exact, so the same
        # whatever precision the compiler computes in (i386's x87 keeps
        # more than a float or a double holds, until a store)
        if k in ("float", "double", "ldouble"):
            return "%s = %s * 0.5f;" % (p, p)
        if k == "ptr":
            if not self.walk(f, 1):
                return None
            return "if (%s) %s++;" % (p, p)
        if k == "str":
            return "if (*%s) %s++;" % (p, p)
        if k == "char":
            return "%s = (char)(%s + 1);" % (p, p)
        if k == "bool":
            return "%s = !%s;" % (p, p)
        # integers change in unsigned arithmetic: signed overflow is
        # undefined
        if k == "ref":
            return "%s = (int)((unsigned)%s + 1);" % (p, p)
        if t.kind == "struct":
            if t.name == "sf":
                return "%s.x = %s.x * 2;" % (p, p)
            if t.name == "big":
                return "%s.v[1] = (long)((unsigned long)%s.v[1] + 5);" % (p, p)
            field, decl = {"s2": ("a", "int"), "s3": ("i", "int"),
                           "sd": ("i", "int"), "mixed": ("n", "long long"),
                           "u": ("i", "int")}[t.name]
            if t.name == "u":
                return "%s.i = NOSNAN((unsigned long long)%s.i + 2);" % (p, p)
            return "%s.%s = (%s)((unsigned long long)%s.%s + 2);" % (
                p, field, decl, p, field)
        return None

    def body(self, f, callees):
        r = self.r
        lines = ["unsigned long long acc = %d;" % r.randint(0, 99)]
        params = list(enumerate(f["params"]))
        if f["partial"]:
            i, t = r.choice(params)
            ret = "return;" if f["ret"] is None else "return %s;" % self.from_int(f["ret"], "acc + %d" % i)
            lines.append("if (%s < %d) %s" % (self.as_int(t, "p%d" % i), r.randint(1, 30), ret))
        for _ in range(r.randint(2, 7 if not f["partial"] else 12)):
            i, t = r.choice(params)
            p = "p%d" % i
            c = r.random()
            if f["recursive"] and i == 0:
                continue
            if c < 0.25:
                lines.append("acc += %s;" % self.as_int(t, p))
            elif c < 0.45:
                m = self.modify(t, p, f)
                if m:
                    lines.append(m)
            elif c < 0.6 and t.kind == "int":
                # counted loops over the parameter itself
                shape = r.choice(["down", "shift", "div"])
                lines.append("%s = (%s)(%s & 15);" % (p, t.decl, p))
                if shape == "down":
                    lines.append("while (%s--) acc += %d;" % (p, r.randint(1, 9)))
                elif shape == "shift":
                    lines.append("while (%s-- > 0) acc <<= 1;" % p)
                else:
                    lines.append("while (%s-- > 0) acc /= 3;" % p)
            elif c < 0.7 and t.kind == "ptr" and self.walk(f, 8):
                lines.append("if (%s) for (int k = 0; k < 8; k++, %s++) acc += (unsigned)*%s;" % (p, p, p))
            elif c < 0.75 and t.kind == "str":
                lines.append("for (; *%s; %s++) acc = acc * 31 + (unsigned char)*%s;" % (p, p, p))
            elif c < 0.82 and t.kind in ("int", "double", "float"):
                # aliased: its address escapes
                if t.kind == "int":
                    lines.append("{ %s *q = &%s; *q = (%s)((unsigned long long)*q + 1); sink = (unsigned long long)(*q); }" % (t.decl, p, t.decl))
                else:
                    lines.append("{ %s *q = &%s; *q = (%s)(*q * 2); sink = (unsigned long long)FTOI(*q); }" % (t.decl, p, t.decl))
            else:
                lines.append("acc = acc * %d + (%s);" % (r.randint(2, 9), self.as_int(t, p)))
        if f["partial"]:
            for k in range(r.randint(6, 14)):
                lines.append("acc = acc * %d + (acc >> %d) + g_arr[%d];" % (r.randint(3, 99), r.randint(1, 9), r.randint(0, 31)))
                k = r.randint(0, 31)
                lines.append("g_arr[%d] = (int)((unsigned)g_arr[%d] + (unsigned)acc);" % (k, k))
        # calls: forward parameters or locals
        calls = []
        budget = 60
        cost = 1
        if callees:
            for _ in range(r.randint(0, 3)):
                g = r.choice(callees)
                if cost + g["cost"] <= budget:
                    calls.append(g)
                    cost += g["cost"]
        use_table = (not f["table"] and self.ntable and r.random() < 0.3 and
                     cost + self.table_cost <= budget)
        if use_table:
            cost += self.table_cost
        if f["recursive"]:
            if cost * 4 <= budget:
                calls.append(f)
                cost *= 4
        f["cost"] = cost
        tail = None
        for g in calls:
            args = []
            for t in g["params"]:
                args.append(self.forward(t, f, params))
            if g is f:
                args[0] = "(p0 & 3) - 1"
                cond = "if ((p0 & 3) != 0) "
            else:
                cond = ""
            if g["ret"] is not None and g is not f and r.random() < 0.15 and tail is None and \
                    f["ret"] is not None and f["ret"].decl == g["ret"].decl and not f["partial"]:
                tail = (g, args)
                continue
            res = self.call(g, args, "acc", f)
            lines.append(cond + "{ " + res + " }")
        if use_table:
            tf = self.funcs[0]
            args = [self.forward(t, f, params) for t in tf["params"]]
            lines.append("{ unsigned ix_ = (unsigned)(acc %% %d); " % self.ntable +
                         self.call(tf, args, "acc", f, indirect="tbl[ix_]", name="tbl_names[ix_]") + " }")
        if tail:
            g, args = tail
            lines.append(self.call(g, args, None, f, tail=True))
        elif f["ret"] is not None:
            lines.append("return %s;" % self.from_int(f["ret"], "acc"))
        else:
            lines.append("sink = acc;")
        return lines

    def walk(self, f, n):
        """Whether f may move a pointer parameter n elements further: every
        pointer points into g_arr (prelude.h), at most 16 elements in when
        made, and moves only forwards, in the functions it is passed down to
        (each at most once on a chain of calls: callees have lower numbers)
        or in a recursive one (at most 4 activations).  The sum of every
        walk stays within the array: no read out of its bounds."""
        n *= 4 if f["recursive"] else 1
        if self.walked + n > PTR_WALK:
            return False
        self.walked += n
        return True

    def forward(self, t, f, params):
        """An argument of type t for a call from f: one of its parameters
        of the same type when there is one, else a constant."""
        same = [(i, pt) for i, pt in params if pt.decl == t.decl]
        if same and self.r.random() < 0.6:
            return "p%d" % self.r.choice(same)[0]
        if t.kind == "ref":
            return "g_arr[%d]" % self.r.randint(0, 31)
        if t.kind == "cref":
            return "g_s2"
        if t.kind == "int" and params and self.r.random() < 0.5:
            i, pt = self.r.choice(params)
            return "(%s)(%s)" % (t.decl, self.as_int(pt, "p%d" % i))
        return self.value(t)

    def call(self, g, args, acc, caller, indirect=None, tail=False, name=None):
        """A printing call site: arguments into temporaries, printed, the
        call, its result printed and folded into acc."""
        r = self.r
        pre = []
        names = []
        for k, (t, a) in enumerate(zip(g["params"], args)):
            v = "a%d_%d" % (k, r.randint(0, 1 << 30))
            if t.kind in ("ref", "cref"):
                pre.append("%s %s = %s;" % (t.decl, v, a))
            else:
                pre.append("%s %s = %s;" % (t.decl, v, a))
            names.append((v, t, k))
        pre.append("int id_ = open_call(%s);" % (name or '"%s"' % self.qual_name(g)))
        if g["method"]:
            pre.append('arg("this"); pr_ptr(&k_obj);')
        for v, t, k in names:
            pre.append('arg("p%d"); %s' % (k, self.printer(t, v, "p%d" % k)))
        pre.append("end_args();")
        callee = indirect or (("k_obj." if g["method"] else "") + g["name"])
        expr = "%s(%s)" % (callee, ", ".join(v for v, _, _ in names))
        if tail:
            pre.append("return %s;" % expr)
            return "{ " + " ".join(pre) + " }"
        if g["ret"] is None:
            pre.append("%s;" % expr)
            pre.append("result(id_); end_result();")
        else:
            pre.append("%s res_ = %s;" % (g["ret"].decl, expr))
            pre.append("result(id_); %s end_result();" % self.printer(g["ret"], "res_", "r"))
            if acc:
                pre.append("%s += %s;" % (acc, self.as_int(g["ret"], "res_")))
        return " ".join(pre)

    def emit(self):
        r = self.r
        self.make_funcs()
        o = self.out
        o.append("/* generated by tests/values/gen.py */")
        o.append(PRELUDE)
        o.append("static struct s2 g_s2 = {12, 34};")
        if self.cxx:
            o.append("struct K;")
        # prototypes
        for f in self.funcs:
            if f["method"]:
                continue
            attr = f["attr"] if f["attr"] != "ALWAYS" else "ALWAYS"
            o.append("%s %s %s(%s);" % (attr, self.ret_decl(f), f["name"], self.signature(f)))
        if self.ntable:
            o.append("static const char *const tbl_names[] = {%s};" % ", ".join(
                '"%s"' % f["name"] for f in self.funcs[:self.ntable]))
            o.append("static %s (*const tbl[])(%s) = {%s};" % (
                self.ret_decl(self.funcs[0]), self.signature(self.funcs[0], False),
                ", ".join(f["name"] for f in self.funcs[:self.ntable])))
        if self.cxx:
            o.append("struct K {")
            o.append("\tint k;")
            for f in self.funcs:
                if f["method"]:
                    o.append("\tNOINLINE %s %s(%s);" % (self.ret_decl(f), f["name"], self.signature(f)))
            o.append("};")
            o.append("static K k_obj = {5};")
        self.table_cost = 1
        for f in self.funcs:
            # callees: lower-numbered functions only (no unbounded cycles);
            # the table's functions call none
            callees = [g for g in self.funcs if g["index"] < f["index"]
                       and not f["table"]]
            if f["method"]:
                head = "%s K::%s(%s)" % (self.ret_decl(f), f["name"], self.signature(f))
            else:
                head = "%s %s %s(%s)" % (f["attr"], self.ret_decl(f), f["name"], self.signature(f))
            o.append(head)
            o.append("{")
            for line in self.body(f, callees):
                o.append("\t" + line)
            o.append("}")
            if f["table"]:
                self.table_cost = max(self.table_cost, f["cost"])
        o.append("int main(void)")
        o.append("{")
        o.append("\tunsigned long long acc = 0;")
        # where g_arr is: run.py compares pointers into it between builds
        o.append('\tprintf("G\\t"); pr_ptr(g_arr); printf("\\n");')
        o.append("\tfor (int i = 0; i < 32; i++) g_arr[i] = i * 7 - 40;")
        for _ in range(r.randint(60, 100)):
            g = r.choice(self.funcs)
            args = [self.value(t) if t.kind not in ("ref", "cref")
                    else ("g_arr[%d]" % r.randint(0, 31) if t.kind == "ref" else "g_s2")
                    for t in g["params"]]
            if g["recursive"]:
                args[0] = str(r.randint(0, 3))
            if g["table"] and r.random() < 0.5:
                o.append("\t{ " + self.call(g, args, "acc", None, indirect="tbl[%d]" % g["index"]) + " }")
            else:
                o.append("\t{ " + self.call(g, args, "acc", None) + " }")
        o.append("\tsink = acc;")
        o.append("\treturn 0;")
        o.append("}")
        return "\n".join(o) + "\n"


def main():
    argv = sys.argv[1:]
    m32 = "--m32" in argv
    argv = [a for a in argv if a != "--m32"]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    seed = int(argv[0])
    lang = argv[1] if len(argv) > 1 else "c"
    sys.stdout.write(Gen(seed, lang == "c++", m32).emit())
    return 0


if __name__ == "__main__":
    sys.exit(main())
