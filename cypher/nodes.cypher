// name: nodes
// purpose: The kind, name, status and properties of the nodes of a given set (for tables and tooltips).
// param uids: list, required. The uids. Example: ["pegasus:workflow:ea17e8ac-02ac-4909-b5e3-16e367392556"]
// returns: uid, kind, name, status, properties
MATCH (n:Lineage)
WHERE n.uid IN $uids
RETURN n.uid AS uid,
       n.kind AS kind,
       coalesce(n.name, n.uid) AS name,
       n.status AS status,
       properties(n) AS properties
ORDER BY uid
