"""What agents search for, and the Herald tool each search is for: the intent set of the tool-search
tests (test_tool_search.py). Written from the agent workflow of Herald's prompt, the words-to-counts
walk-through and the history and lineage examples (docs/tools.md) and from what operators of a supply
Domain ask, in the words an agent types into a host's tool search, not from the tools'
descriptions or hints. The sandbox's `supply` Domain (Supplier, Part, Plant, PurchaseOrder) is the
one Herald serves in the tests, so the Domain's words are its words.

lorebase_context is loaded from the start in Claude Code (`anthropic/alwaysLoad`): a search never
returns it, and an intent for it counts as found there.
"""

INTENTS: list[tuple[str, str]] = [
    # Context first.
    ("what do we know about supplier S-1001", "lorebase_context"),
    ("start a task about a purchase order", "lorebase_context"),
    ("tell me everything about part P-2001", "lorebase_context"),
    # The schema: names before querying or writing.
    ("which kinds of records are in this domain", "lorebase_schema"),
    ("what attributes does a part have", "lorebase_schema"),
    ("which operations can I run", "lorebase_schema"),
    ("what fields does a purchase order have", "lorebase_schema"),
    ("domain model and record types", "lorebase_schema"),
    ("parameters of an operation", "lorebase_schema"),
    # One Record.
    ("read supplier S-1001", "lorebase_get"),
    ("show the values of this record", "lorebase_get"),
    ("look up one record by its key", "lorebase_get"),
    ("get supplier S-1002", "lorebase_get"),
    ("fetch a record by ref", "lorebase_get"),
    ("current values of purchase order PO-3001", "lorebase_get"),
    # Ground the words, then query.
    ("what does this word mean in the domain", "lorebase_resolve"),
    ("map the words of a question to filters", "lorebase_resolve"),
    ("which attribute stands for country", "lorebase_resolve"),
    ("turn a phrase into a where filter", "lorebase_resolve"),
    ("which value means red", "lorebase_resolve"),
    ("how many suppliers per country", "lorebase_query"),
    ("count purchase orders by status", "lorebase_query"),
    ("list all parts with a lead time over 30 days", "lorebase_query"),
    ("filter records where risk score is high", "lorebase_query"),
    ("rows of plants in Germany", "lorebase_query"),
    ("number of plants per country", "lorebase_query"),
    ("all open purchase orders", "lorebase_query"),
    ("group suppliers by rating", "lorebase_query"),
    ("table of parts with unit price", "lorebase_query"),
    # Find by words.
    ("find suppliers that mention titanium", "lorebase_search"),
    ("full text search over records", "lorebase_search"),
    ("semantic search with a query vector", "lorebase_search"),
    ("look for records about steel", "lorebase_search"),
    ("keyword search for a supplier name", "lorebase_search"),
    ("vector similarity search", "lorebase_search"),
    # Links.
    ("what is linked to this plant", "lorebase_neighborhood"),
    ("which parts does this supplier supply", "lorebase_neighborhood"),
    ("walk the graph from a record", "lorebase_neighborhood"),
    ("neighbors of supplier S-1001", "lorebase_neighborhood"),
    ("related records and links", "lorebase_neighborhood"),
    ("plants that use this part", "lorebase_neighborhood"),
    # Before trusting a value.
    ("where did this value come from", "lorebase_explain"),
    ("why does this supplier have risk 90", "lorebase_explain"),
    ("who set the rating of this supplier", "lorebase_explain"),
    ("origin of the risk score", "lorebase_explain"),
    ("explain how this record was created", "lorebase_explain"),
    ("who changed this record and when", "lorebase_history"),
    ("previous versions of a record", "lorebase_history"),
    ("audit trail of supplier S-1001", "lorebase_history"),
    ("change log of one record", "lorebase_history"),
    ("when was this supplier last modified", "lorebase_history"),
    ("old values before the last edit", "lorebase_history"),
    ("which source or document is behind this value", "lorebase_lineage"),
    ("evidence for an extracted value", "lorebase_lineage"),
    ("provenance and source document of a value", "lorebase_lineage"),
    ("which import set this attribute", "lorebase_lineage"),
    # Catching up.
    ("what changed on main since yesterday", "lorebase_changes"),
    ("recent commits on the branch", "lorebase_changes"),
    ("catch up on changes since a revision", "lorebase_changes"),
    ("records changed by usr_editor", "lorebase_changes"),
    ("what happened on the branch today", "lorebase_changes"),
    ("latest revisions by author", "lorebase_changes"),
    ("compare two revisions", "lorebase_diff"),
    ("difference between two versions of the data", "lorebase_diff"),
    ("changes between revision a and revision b", "lorebase_diff"),
    ("what was added or removed between two commits", "lorebase_diff"),
    # Writes through Operations.
    ("update the risk score of a supplier", "lorebase_execute"),
    ("create a new purchase order", "lorebase_execute"),
    ("delete a part", "lorebase_execute"),
    ("flag a supplier for risk review", "lorebase_execute"),
    ("commit a change with expected head", "lorebase_execute"),
    ("open a proposal for review", "lorebase_execute"),
    ("set the status of a purchase order", "lorebase_execute"),
    ("write to the knowledge graph", "lorebase_execute"),
    ("rename a supplier", "lorebase_execute"),
    ("link a part to a plant", "lorebase_execute"),
    ("dry run an operation", "lorebase_execute"),
    ("list branches and their heads", "lorebase_branches"),
    ("which branch is protected", "lorebase_branches"),
    ("default branch head", "lorebase_branches"),
    ("show all branches", "lorebase_branches"),
    # The knowledge base.
    ("runbook for a Keeper outage", "kb_search"),
    ("search incident notes", "kb_search"),
    ("how to fix a stale head error runbook", "kb_search"),
    ("search the knowledge base for incidents", "kb_search"),
    ("read the runbook at this path", "kb_get"),
    ("open a markdown note by path", "kb_get"),
]

# Searches made only of the sandbox Domain's own words (a Kind's plural, a Relation's words), in no
# tool's static hint or description: found only through the words Herald reads from Keeper's schema.
DOMAIN_ONLY: list[tuple[str, str]] = [
    ("purchase orders", "lorebase_query"),
    ("used at", "lorebase_neighborhood"),
]
