// Reserves `count` numbers of a per-workspace sequence and returns the first. The counter node is
// write-locked until commit, so concurrent writers get disjoint, ordered ranges.
// @param workspace  the workspace this store serves
// @param name  sequence name ("history", "merge")
// @param count  how many numbers to reserve
MERGE (n:Counter {workspace: $workspace, name: $name})
ON CREATE SET n.value = 0
SET n.value = n.value + $count
RETURN n.value - $count AS first
