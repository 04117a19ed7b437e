#!/usr/bin/env python3
"""The public Rust API of a crate, one item per line, from rustdoc's JSON.

    rust_api.py CRATE.json > api/CRATE.txt

Each line is `KEY :: SIGNATURE` (or just `KEY` when the key says it all):
the key names the item (its public path, its kind, and for associated items
the impl block they sit in); the signature is what callers depend on.
tools/api/compare.py compares two such files. Every public path an item is
reachable by is listed (a re-export is API too). Blanket impls (`impl<T>
From<T> for T` and the like) come from other crates and are left out; auto
traits (Send, Sync, Unpin, ...) are kept, since losing one breaks callers.
"""

import json
import sys

# The auto traits a caller can rely on; rustdoc also lists unstable ones
# (Freeze, UnsafeUnpin) that come and go with the nightly.
AUTO_TRAITS = {"Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"}
# Marker impls the compiler adds for derives, not callable API.
INTERNAL_TRAITS = {"StructuralPartialEq"}

# The rustdoc JSON format versions this renderer has been checked against.
KNOWN_FORMATS = {57}


class Api:
    def __init__(self, doc):
        self.index = doc["index"]
        self.paths = doc["paths"]
        self.lines = set()
        self.seen_impls = set()

    def item(self, id_):
        return self.index.get(str(id_))

    # ---- types ----------------------------------------------------------

    def path(self, p):
        name = p["path"].split("::")[-1]
        return name + self.args(p.get("args"))

    def args(self, a):
        if not a:
            return ""
        if "angle_bracketed" in a:
            ab = a["angle_bracketed"]
            parts = [self.generic_arg(x) for x in ab["args"]]
            parts += [self.constraint(c) for c in ab["constraints"]]
            return "<" + ", ".join(parts) + ">" if parts else ""
        if "parenthesized" in a:
            p = a["parenthesized"]
            out = "(" + ", ".join(self.ty(t) for t in p["inputs"]) + ")"
            if p.get("output"):
                out += " -> " + self.ty(p["output"])
            return out
        return "(..)"

    def generic_arg(self, x):
        if "lifetime" in x:
            return x["lifetime"]
        if "type" in x:
            return self.ty(x["type"])
        if "const" in x:
            return self.const(x["const"])
        return "_"

    def const(self, c):
        return c.get("value") or c.get("expr") or "_"

    def constraint(self, c):
        head = c["name"] + self.args(c.get("args"))
        b = c["binding"]
        if "equality" in b:
            t = b["equality"]
            return head + " = " + (self.ty(t["type"]) if "type" in t else self.const(t["constant"]))
        return head + ": " + self.bounds(b["constraint"])

    def bounds(self, bs):
        out = []
        for b in bs:
            if "trait_bound" in b:
                tb = b["trait_bound"]
                mod = {"maybe": "?", "maybe_const": "~const "}.get(tb.get("modifier"), "")
                hrtb = self.hrtb(tb.get("generic_params"))
                out.append(hrtb + mod + self.path(tb["trait"]))
            elif "outlives" in b:
                out.append(b["outlives"])
            elif "use" in b:
                out.append("use<" + ", ".join(str(u) for u in b["use"]) + ">")
        return " + ".join(out)

    def hrtb(self, params):
        if not params:
            return ""
        return "for<" + ", ".join(p["name"] for p in params) + "> "

    def ty(self, t):
        if t is None:
            return "()"
        (k, v), = t.items()
        if k == "resolved_path":
            return self.path(v)
        if k in ("generic", "primitive"):
            return v
        if k == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if k == "slice":
            return "[" + self.ty(v) + "]"
        if k == "array":
            return "[" + self.ty(v["type"]) + "; " + v["len"] + "]"
        if k == "borrowed_ref":
            lt = v["lifetime"] + " " if v.get("lifetime") else ""
            return "&" + lt + ("mut " if v["is_mutable"] else "") + self.ty(v["type"])
        if k == "raw_pointer":
            return ("*mut " if v["is_mutable"] else "*const ") + self.ty(v["type"])
        if k == "impl_trait":
            return "impl " + self.bounds(v)
        if k == "dyn_trait":
            parts = [self.hrtb(p.get("generic_params")) + self.path(p["trait"]) for p in v["traits"]]
            if v.get("lifetime"):
                parts.append(v["lifetime"])
            return "dyn " + " + ".join(parts)
        if k == "qualified_path":
            self_ty = self.ty(v["self_type"])
            name = v["name"] + self.args(v.get("args"))
            if v.get("trait"):
                return "<" + self_ty + " as " + self.path(v["trait"]) + ">::" + name
            return self_ty + "::" + name
        if k == "function_pointer":
            return self.hrtb(v.get("generic_params")) + self.header(v["header"]) + "fn" + self.sig(v["sig"])
        if k == "pat":
            return self.ty(v["type"]) + " is " + v.get("__pat_unstable_do_not_use", "_")
        if k == "infer":
            return "_"
        sys.exit(f"rust_api.py: unknown type kind {k!r} (a new rustdoc JSON format?)")

    def header(self, h):
        out = ""
        if h.get("is_const"):
            out += "const "
        if h.get("is_async"):
            out += "async "
        if h.get("is_unsafe"):
            out += "unsafe "
        abi = h.get("abi", "Rust")
        if abi != "Rust":
            name = abi if isinstance(abi, str) else next(iter(abi))
            out += f'extern "{name}" '
        return out

    def receiver(self, t):
        if t == {"generic": "Self"}:
            return "self"
        r = t.get("borrowed_ref")
        if r and r["type"] == {"generic": "Self"}:
            lt = r["lifetime"] + " " if r.get("lifetime") else ""
            return "&" + lt + ("mut " if r["is_mutable"] else "") + "self"
        return "self: " + self.ty(t)

    def sig(self, s):
        ins = []
        for name, t in s["inputs"]:
            # Argument names are not API; the receiver's kind is.
            ins.append(self.receiver(t) if name == "self" else self.ty(t))
        if s.get("is_c_variadic"):
            ins.append("...")
        out = "(" + ", ".join(ins) + ")"
        if s.get("output") is not None:
            out += " -> " + self.ty(s["output"])
        return out

    def generics(self, g):
        ps = []
        for p in g["params"]:
            (k, v), = p["kind"].items()
            if k == "lifetime":
                ps.append(p["name"] + (": " + " + ".join(v["outlives"]) if v["outlives"] else ""))
            elif k == "type":
                if v.get("is_synthetic"):
                    continue  # `impl Trait` in argument position, shown there
                s = p["name"]
                if v["bounds"]:
                    s += ": " + self.bounds(v["bounds"])
                if v.get("default"):
                    s += " = " + self.ty(v["default"])
                ps.append(s)
            elif k == "const":
                s = "const " + p["name"] + ": " + self.ty(v["type"])
                if v.get("default"):
                    s += " = " + v["default"]
                ps.append(s)
        return "<" + ", ".join(ps) + ">" if ps else ""

    def where(self, g):
        ws = []
        for w in g["where_predicates"]:
            (k, v), = w.items()
            if k == "bound_predicate":
                ws.append(self.hrtb(v.get("generic_params")) + self.ty(v["type"]) + ": " + self.bounds(v["bounds"]))
            elif k == "lifetime_predicate":
                ws.append(v["lifetime"] + ": " + " + ".join(v["outlives"]))
            elif k == "eq_predicate":
                rhs = v["rhs"]
                ws.append(self.ty(v["lhs"]) + " == " + (self.ty(rhs["type"]) if "type" in rhs else self.const(rhs["constant"])))
        return " where " + ", ".join(ws) if ws else ""

    def function(self, name, f):
        return (self.header(f["header"]) + "fn " + name + self.generics(f["generics"])
                + self.sig(f["sig"]) + self.where(f["generics"]))

    # ---- items ----------------------------------------------------------

    def add(self, key, sig=None):
        self.lines.add(key if sig is None else f"{key} :: {sig}")

    def attrs(self, it):
        # non_exhaustive changes what callers may write (matching, building).
        out = []
        for a in it.get("attrs", []):
            text = a if isinstance(a, str) else json.dumps(a, sort_keys=True)
            if "non_exhaustive" in text:
                out.append("#[non_exhaustive] ")
        return "".join(out)

    def walk_module(self, mod, prefix, stack):
        for id_ in mod["items"]:
            it = self.item(id_)
            if it is None:
                continue
            self.walk_item(it, prefix, stack)

    def walk_item(self, it, prefix, stack, name=None):
        (k, v), = it["inner"].items()
        name = name or it.get("name")
        if it.get("visibility") not in ("public", "default") and k != "use":
            return
        if k == "use":
            self.walk_use(it, v, prefix, stack)
            return
        path = f"{prefix}::{name}"
        if k == "module":
            if it["id"] in stack:
                return
            self.add(f"{path} [mod]")
            self.walk_module(v, path, stack | {it["id"]})
        elif k == "function":
            self.add(f"{path} [fn]", self.function(name, v))
        elif k == "constant":
            self.add(f"{path} [const]", self.ty(v["type"]) + " = " + self.const(v["const"]))
        elif k == "static":
            mut = "mut " if v.get("is_mutable") else ""
            self.add(f"{path} [static]", mut + self.ty(v["type"]))
        elif k == "type_alias":
            self.add(f"{path} [type]", "type " + name + self.generics(v["generics"]) + " = " + self.ty(v["type"]))
        elif k == "macro":
            self.add(f"{path} [macro]")
        elif k == "proc_macro":
            self.add(f"{path} [proc_macro]", v.get("kind", ""))
        elif k == "struct":
            self.walk_struct(it, v, path, name)
        elif k == "union":
            self.add(f"{path} [union]", "union " + name + self.generics(v["generics"]) + self.where(v["generics"]))
            self.fields(path, v["fields"])
            self.walk_impls(path, v["impls"])
        elif k == "enum":
            self.walk_enum(it, v, path, name)
        elif k == "trait":
            self.walk_trait(it, v, path, name)
        elif k == "trait_alias":
            self.add(f"{path} [trait alias]", self.generics(v["generics"]) + " = " + self.bounds(v["params"]))
        else:
            self.add(f"{path} [{k}]")

    def walk_use(self, it, u, prefix, stack):
        target = self.item(u["id"]) if u.get("id") is not None else None
        local = target is not None and target["crate_id"] == 0
        if u["is_glob"]:
            if local and "module" in target["inner"] and target["id"] not in stack:
                self.walk_module(target["inner"]["module"], prefix, stack | {target["id"]})
            elif local and "enum" in target["inner"]:
                for vid in target["inner"]["enum"]["variants"]:
                    var = self.item(vid)
                    self.add(f"{prefix}::{var['name']} [use]", u["source"] + "::" + var["name"])
            else:
                self.add(f"{prefix}::* [use]", u["source"] + "::*")
            return
        if local:
            self.walk_item(target, prefix, stack, name=u["name"])
        else:
            # A re-export of another crate's item: its path is the API.
            self.add(f"{prefix}::{u['name']} [use]", u["source"])

    def fields(self, path, ids):
        for fid in ids:
            if fid is None:
                continue
            f = self.item(fid)
            if f and f.get("visibility") == "public":
                self.add(f"{path}::{f['name']} [field]", self.ty(f["inner"]["struct_field"]))

    def walk_struct(self, it, v, path, name):
        g = v["generics"]
        head = self.attrs(it) + "struct " + name + self.generics(g)
        kind = v["kind"]
        if kind == "unit":
            shape = ";"
        elif "tuple" in kind:
            fs = []
            for fid in kind["tuple"]:
                f = self.item(fid) if fid is not None else None
                fs.append(self.ty(f["inner"]["struct_field"]) if f and f.get("visibility") == "public" else "_")
            shape = "(" + ", ".join(fs) + ")"
        else:
            shape = " { .. }" if kind["plain"]["has_stripped_fields"] else " {}"
            self.fields(path, kind["plain"]["fields"])
        self.add(f"{path} [struct]", head + shape + self.where(g))
        self.walk_impls(path, v["impls"])

    def walk_enum(self, it, v, path, name):
        g = v["generics"]
        self.add(f"{path} [enum]", self.attrs(it) + "enum " + name + self.generics(g) + self.where(g))
        for vid in v["variants"]:
            var = self.item(vid)
            vv = var["inner"]["variant"]
            kind = vv["kind"]
            vpath = f"{path}::{var['name']}"
            if kind == "plain":
                shape = ""
            elif "tuple" in kind:
                shape = "(" + ", ".join(self.ty(self.item(f)["inner"]["struct_field"]) if f is not None else "_"
                                        for f in kind["tuple"]) + ")"
            else:
                shape = " { .. }" if kind["struct"]["has_stripped_fields"] else " {}"
                for fid in kind["struct"]["fields"]:
                    f = self.item(fid)
                    self.add(f"{vpath}::{f['name']} [field]", self.ty(f["inner"]["struct_field"]))
            if vv.get("discriminant"):
                shape += " = " + vv["discriminant"]["value"]
            self.add(f"{vpath} [variant]", self.attrs(var) + var["name"] + shape)
        self.walk_impls(path, v["impls"])

    def assoc(self, key_prefix, it):
        (k, v), = it["inner"].items()
        name = it["name"]
        if k == "function":
            body = "" if v.get("has_body", True) else " (required)"
            self.add(f"{key_prefix}fn {name}", self.function(name, v) + body)
        elif k == "assoc_const":
            val = f" = {v['value']}" if v.get("value") else ""
            self.add(f"{key_prefix}const {name}", self.ty(v["type"]) + val)
        elif k == "assoc_type":
            s = "type " + name + self.generics(v["generics"])
            if v.get("bounds"):
                s += ": " + self.bounds(v["bounds"])
            if v.get("type"):
                s += " = " + self.ty(v["type"])
            self.add(f"{key_prefix}type {name}", s)

    def walk_trait(self, it, v, path, name):
        g = v["generics"]
        head = ("unsafe " if v["is_unsafe"] else "") + ("auto " if v["is_auto"] else "") + "trait " + name
        head += self.generics(g)
        if v["bounds"]:
            head += ": " + self.bounds(v["bounds"])
        head += self.where(g)
        if not v.get("is_dyn_compatible", True):
            head += " (not dyn-compatible)"
        self.add(f"{path} [trait]", head)
        for aid in v["items"]:
            a = self.item(aid)
            if a:
                self.assoc(f"{path} [trait] ", a)
        self.walk_impls(path, v.get("implementations", []))

    def impl_header(self, v):
        g = v["generics"]
        h = "unsafe " if v["is_unsafe"] else ""
        h += "impl" + self.generics(g) + " "
        if v.get("trait"):
            h += ("!" if v["is_negative"] else "") + self.path(v["trait"]) + " for "
        return h + self.ty(v["for"]) + self.where(g)

    def walk_impls(self, path, ids):
        for iid in ids:
            it = self.item(iid)
            if it is None:
                continue
            v = it["inner"]["impl"]
            if v.get("blanket_impl") is not None:
                continue
            trait = v.get("trait")
            if trait is not None:
                tname = trait["path"].split("::")[-1]
                if tname in INTERNAL_TRAITS or (v["is_synthetic"] and tname not in AUTO_TRAITS):
                    continue
            header = self.impl_header(v)
            if trait is not None:
                # A trait impl is one line: the trait decides its items.
                self.add(f"{path} [{'auto ' if v['is_synthetic'] else ''}impl] {header}")
                continue
            for aid in v["items"]:
                a = self.item(aid)
                if a and a.get("visibility") == "public":
                    self.assoc(f"{path} [{header}] ", a)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: rust_api.py CRATE.json (rustdoc --output-format json)")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    fmt = doc.get("format_version")
    if fmt not in KNOWN_FORMATS:
        sys.exit(f"rust_api.py: rustdoc JSON format {fmt}, checked only against {sorted(KNOWN_FORMATS)}: "
                 "read the format's changes (rustdoc-types' CHANGELOG) and extend the renderer")
    api = Api(doc)
    root = api.item(doc["root"])
    name = root["name"]
    api.add(f"{name} [crate]")
    api.walk_module(root["inner"]["module"], name, {root["id"]})
    sys.stdout.write("".join(line + "\n" for line in sorted(api.lines)))


if __name__ == "__main__":
    main()
