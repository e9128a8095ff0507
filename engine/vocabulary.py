"""The kernel's closed vocabulary: the only relation names the kernel knows (kernel.md §3)."""

from __future__ import annotations

# provenance and fact metadata
DERIVED_BY = "derived_by"
IN_PERSPECTIVE = "in_perspective"
ASSERTED_BY = "asserted_by"
# rule reflection
RULE = "rule"
HAS_PREMISE = "has_premise"
PREMISE_POS = "premise_pos"
PREMISE_NEG = "premise_neg"
CONCLUDES = "concludes"
STAGES = "stages"  # an @next rule's head: it concludes into the next tick (an addition to the spec's list)
HAS_CONCLUSION = "has_conclusion"
PREMISE_LIT = "premise_lit"
CONCLUSION_LIT = "conclusion_lit"
READS_FROM = "reads_from"
WRITES_TO = "writes_to"
BRIDGE_DECL = "bridge_decl"
USES_BUILTIN = "uses_builtin"
# kernel-emitted tables
MODE = "mode"
RESERVED = "reserved"
AUTHORITY = "authority"
# An authority fact asserted by someone (a --load-as, --rules or fact file) grants nothing: the
# loader stores it as authority_claim(P, Who, By) for the audits (only identity-less programs grant).
AUTHORITY_CLAIM = "authority_claim"
LOADED_BY = "loaded_by"  # loaded_by(Rule, Who): a rule loaded from a source asserted by Who
HOLE = "hole"
EDB = "edb"
CYCLE_COMPONENT = "cycle_component"  # computed: the nodes on a cycle of a binary relation, by component

RESERVED_RELATIONS: tuple[str, ...] = (
    DERIVED_BY,
    RULE,
    HAS_PREMISE,
    PREMISE_POS,
    PREMISE_NEG,
    CONCLUDES,
    STAGES,
    HAS_CONCLUSION,
    PREMISE_LIT,
    CONCLUSION_LIT,
    READS_FROM,
    WRITES_TO,
    BRIDGE_DECL,
    IN_PERSPECTIVE,
    ASSERTED_BY,
    USES_BUILTIN,
    MODE,
    RESERVED,
    AUTHORITY,
    HOLE,
    EDB,
    CYCLE_COMPONENT,
    AUTHORITY_CLAIM,
    LOADED_BY,
)
RESERVED_SET = frozenset(RESERVED_RELATIONS)
# The arity of each reserved relation (its rows live in perspective main).
RESERVED_ARITY: dict[str, int] = {
    DERIVED_BY: 3,
    RULE: 1,
    HAS_PREMISE: 2,
    PREMISE_POS: 2,
    PREMISE_NEG: 2,
    CONCLUDES: 2,
    STAGES: 2,
    HAS_CONCLUSION: 2,
    PREMISE_LIT: 3,
    CONCLUSION_LIT: 3,
    READS_FROM: 2,
    WRITES_TO: 2,
    BRIDGE_DECL: 3,
    IN_PERSPECTIVE: 2,
    ASSERTED_BY: 2,
    USES_BUILTIN: 2,
    MODE: 2,
    RESERVED: 1,
    AUTHORITY: 2,
    HOLE: 2,
    EDB: 1,
    CYCLE_COMPONENT: 3,
    AUTHORITY_CLAIM: 3,
    LOADED_BY: 2,
}

# The read interface: boot.rofl concludes these; the kernel reads them to order evaluation.
STRATUM = "stratum"
UNSTRATIFIED = "unstratified"

# Perspectives with their own relation names: a relation written in one of them is stored as
# "persp$rel", a name source text cannot spell, so boot's helpers and the audits never share a
# relation (rows, rules, stratum) with a user's relation of the same name.  [boot] is private: only
# the boot program concludes into it, and boot concludes the read interface there.
PRIVATE_PERSP = "boot"
NAMESPACES = frozenset((PRIVATE_PERSP, "audit"))
PRIVATE_PREFIX = PRIVATE_PERSP + "$"
BOOT_STRATUM = PRIVATE_PREFIX + STRATUM
BOOT_UNSTRATIFIED = PRIVATE_PREFIX + UNSTRATIFIED

# Relations whose rows the kernel computes from fact metadata instead of storing them.
VIRTUAL_RELATIONS = frozenset((DERIVED_BY, IN_PERSPECTIVE, ASSERTED_BY, CYCLE_COMPONENT))
# Timeless: kernel-vocabulary facts survive tick boundaries.
TIMELESS_RELATIONS = RESERVED_SET

# Kernel-internal marker atoms ($ cannot be written in source).
KERNEL_WHO = "$kernel"
ANY_PERSP = "$any"
BUDGET_EXHAUSTED = "budget_exhausted"
