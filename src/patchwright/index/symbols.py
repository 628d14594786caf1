"""Definitions and references of one file, from its tree-sitter syntax tree.

One query per language captures definition nodes and identifier nodes in C; Python code
then only touches the captured nodes, which keeps a 10k-file cold index practical. Names of
definitions come from the node's ``name`` field, or for C-like declarators from the
innermost identifier of the ``declarator`` chain. Qualified names follow the nesting of
definitions (``Class.method``); Python modules get ``pkg.mod.`` prefixes from ``pysymbols``.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from patchwright import grammars
from patchwright.index.model import MAX_REF_LINES, Definition, FileSymbols

_JS_DEFS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "method_definition": "method",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "function_signature": "function",
    "abstract_method_signature": "method",
    "internal_module": "module",
    "variable_declarator": "function",  # only when its value is a function (see _FUNCTION_VALUES)
}
_FUNCTION_VALUES = ("arrow_function", "function_expression", "function", "generator_function")
_C_DEFS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
    "type_definition": "type",
}

# language -> definition node type -> kind
DEFINITIONS: dict[str, dict[str, str]] = {
    "python": {"function_definition": "function", "class_definition": "class"},
    "javascript": _JS_DEFS,
    "typescript": _JS_DEFS,
    "tsx": _JS_DEFS,
    "go": {
        "function_declaration": "function",
        "method_declaration": "method",
        "type_spec": "type",
    },
    "rust": {
        "function_item": "function",
        "function_signature_item": "function",
        "struct_item": "struct",
        "enum_item": "enum",
        "union_item": "union",
        "trait_item": "trait",
        "mod_item": "module",
        "macro_definition": "macro",
        "type_item": "type",
        "const_item": "const",
        "static_item": "static",
    },
    "java": {
        "class_declaration": "class",
        "interface_declaration": "interface",
        "enum_declaration": "enum",
        "record_declaration": "record",
        "annotation_type_declaration": "interface",
        "method_declaration": "method",
        "constructor_declaration": "constructor",
    },
    "c": _C_DEFS,
    "cpp": {
        **_C_DEFS,
        "class_specifier": "class",
        "namespace_definition": "namespace",
        "alias_declaration": "type",
    },
    "csharp": {
        "class_declaration": "class",
        "interface_declaration": "interface",
        "struct_declaration": "struct",
        "enum_declaration": "enum",
        "record_declaration": "record",
        "method_declaration": "method",
        "constructor_declaration": "constructor",
        "property_declaration": "property",
        "namespace_declaration": "namespace",
        "delegate_declaration": "delegate",
    },
    "ruby": {
        "method": "method",
        "singleton_method": "method",
        "class": "class",
        "module": "module",
    },
    "php": {
        "function_definition": "function",
        "class_declaration": "class",
        "method_declaration": "method",
        "interface_declaration": "interface",
        "trait_declaration": "trait",
        "enum_declaration": "enum",
    },
    "bash": {"function_definition": "function"},
}

# node types that only give their children a qualifier (Rust ``impl Foo { fn bar }``)
CONTAINERS: dict[str, dict[str, str]] = {"rust": {"impl_item": "type"}}

IDENTIFIERS = (
    "identifier",
    "type_identifier",
    "field_identifier",
    "property_identifier",
    "constant",
    "name",
    "namespace_identifier",
    "command_name",
    "shorthand_property_identifier",
)
_BODY_FIELDS = ("body", "block")
_HASH_COMMENT = re.compile(r"(^|\s)#(?![\[!{]).*$")
_SIGNATURE_CHARS = 240


@cache
def _query(language: str) -> Any | None:
    """The capture query for ``language`` (only node types its grammar knows)."""
    grammar, _ = grammars.load(language)
    if grammar is None:
        return None
    from tree_sitter import Query

    def known(kind: str) -> bool:
        return bool(grammar.id_for_node_kind(kind, True))

    parts = [f"({t}) @def" for t in DEFINITIONS.get(language, {}) if known(t)]
    parts += [f"({t}) @container" for t in CONTAINERS.get(language, {}) if known(t)]
    parts += [f"({t}) @ref" for t in IDENTIFIERS if known(t)]
    return Query(grammar, "\n".join(parts))


def _declarator_name(node: Any) -> Any | None:
    """Innermost name node of a C/C++ declarator chain."""
    for _ in range(8):
        if node is None:
            return None
        if node.type in ("identifier", "field_identifier", "type_identifier", "operator_name"):
            return node
        if node.type in ("qualified_identifier", "destructor_name"):
            inner = node.child_by_field_name("name")
            if inner is None:
                return node
            node = inner
            continue
        node = node.child_by_field_name("declarator")
    return None


def _name_node(node: Any) -> Any | None:
    named = node.child_by_field_name("name")
    if named is not None:
        return named
    if node.type == "type_definition" or node.child_by_field_name("declarator") is not None:
        return _declarator_name(node.child_by_field_name("declarator"))
    return None


def _signature(node: Any, source: bytes) -> str:
    """Header text of a definition: from its start to its body, whitespace collapsed."""
    end = node.end_byte
    for field in _BODY_FIELDS:
        body = node.child_by_field_name(field)
        if body is not None and body.start_byte > node.start_byte:
            end = body.start_byte
            break
    else:
        newline = source.find(b"\n", node.start_byte, end)
        end = newline if newline != -1 else end
    text = source[node.start_byte : end].decode("utf-8", "replace")
    if "#" in text:  # drop trailing comments of hash-comment languages (Python, Ruby, Bash)
        text = "\n".join(_HASH_COMMENT.sub("", line) for line in text.split("\n"))
    text = " ".join(text.split()).rstrip("{").rstrip().removesuffix(":").rstrip()
    return text[:_SIGNATURE_CHARS]


_NEEDS_BODY = ("struct_specifier", "union_specifier", "enum_specifier", "class_specifier")


def _definitions(
    path: str, language: str, source: bytes, captures: dict[str, list[Any]]
) -> tuple[list[Definition], set[int]]:
    """Definitions with nesting-based qualified names, and the byte offsets of their names."""
    kinds = DEFINITIONS.get(language, {})
    items: list[tuple[int, int, str, Any]] = []  # (start, -end, name, def node or None)
    name_starts: set[int] = set()
    for node in captures.get("def", []):
        if node.type in _NEEDS_BODY and node.child_by_field_name("body") is None:
            continue
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is None or value.type not in _FUNCTION_VALUES:
                continue
        name_node = _name_node(node)
        if name_node is None or not name_node.text:
            continue
        name_starts.add(name_node.start_byte)
        name = name_node.text.decode("utf-8", "replace")
        items.append((node.start_byte, -node.end_byte, name, node))
    for node in captures.get("container", []):
        target = node.child_by_field_name("type")
        if target is not None and target.text:
            items.append((node.start_byte, -node.end_byte, target.text.decode(), None))
    items.sort(key=lambda item: (item[0], item[1]))
    stack: list[tuple[int, str, str]] = []  # (end byte, name, kind) of enclosing scopes
    definitions: list[Definition] = []
    for start, neg_end, name, node in items:
        while stack and stack[-1][0] <= start:
            stack.pop()
        outer = [entry[1] for entry in stack]
        parent_kind = stack[-1][2] if stack else ""
        kind = "type" if node is None else kinds.get(node.type, "definition")
        stack.append((-neg_end, name, kind))
        if node is None:
            continue
        if kind == "function" and parent_kind in ("class", "struct", "type", "trait", "interface"):
            kind = "method"
        definitions.append(
            Definition(
                name=name,
                kind=kind,
                path=path,
                line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                signature=_signature(node, source),
                qualname=".".join([*outer, name]),
            )
        )
    return definitions, name_starts


def extract(path: str, language: str, source: bytes) -> FileSymbols:
    """Parse ``source`` as ``language``; return its definitions and references.

    A file whose grammar is unavailable gets ``error`` set and no symbols; syntax errors
    are tolerated (tree-sitter recovers) and what parsed is kept.
    """
    parser = grammars.parser_for(language)
    query = _query(language)
    if parser is None or query is None:
        return FileSymbols(path, language, error=grammars.load(language)[1].source)
    from tree_sitter import QueryCursor

    tree = parser.parse(source)
    captures = QueryCursor(query).captures(tree.root_node)
    definitions, name_starts = _definitions(path, language, source, captures)
    references: dict[str, list[int]] = {}
    for node in captures.get("ref", []):
        if node.start_byte in name_starts:
            continue
        text = node.text
        if not text or len(text) > 80:
            continue
        lines = references.setdefault(text.decode("utf-8", "replace"), [])
        if len(lines) < MAX_REF_LINES:
            lines.append(node.start_point[0] + 1)
    return FileSymbols(path, language, definitions, references)
