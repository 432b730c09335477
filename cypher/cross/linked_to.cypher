// name: cross/linked_to
// purpose: The nodes `lineage link` connected to any of the given nodes (either direction): the same process or what ran within it, in another system.
// param uids: list of strings, required. Node uids. Example: ["pegasus:job_instance:ea17e8ac-02ac-4909-b5e3-16e367392556:analyze_j4:13"]
// returns: uid
UNWIND $uids AS uid
MATCH (:Lineage {uid: uid})-[:SAME_ACTIVITY|RAN_WITHIN]-(o:Lineage)
RETURN DISTINCT o.uid AS uid
ORDER BY uid
