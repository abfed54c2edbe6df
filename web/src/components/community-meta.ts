/** A community tree row's meta, short (`L0 · 50 · ★10`) and as its tooltip says it in words. */
export function communityMeta(item: { level: number; size: number; rating?: number | null }): {
  short: string;
  long: string;
} {
  const rated = item.rating !== undefined && item.rating !== null;
  const entities = `${item.size} ${item.size === 1 ? "entity" : "entities"}`;
  return {
    short: `L${item.level} · ${item.size}${rated ? ` · ★${item.rating}` : ""}`,
    long: `Level ${item.level} · ${entities}${rated ? ` · report rating ${item.rating} of 10` : ""}`,
  };
}
